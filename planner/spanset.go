package planner

import "math"

// spanSet is a growing union of half-open byte ranges [lo, hi), kept as
// sorted, disjoint, non-touching spans: inserting [4, 8) into {[0, 4), [8, 9)}
// leaves {[0, 9)}. The placer only ever adds memory to a set (placement never
// frees), so a set stays short when placements pack tightly: a thousand
// adjacent buffers are one span.
//
// A set is a header into a spanStore, which holds the spans of all the
// sets of one time index: span k of a set is two int64 (lo, hi) at the
// set's region, in chunks of memory shared by every set. A million-buffer
// placement keeps several million short sets; with a slice each (commit
// e1ec2a2) they were as many allocations, made again each time a set
// grew, and the collector walked every one of them at each cycle. The
// store allocates chunks (2 KiB, doubling up to 64 KiB) and reuses the
// region a set grows out of (free lists by capacity), and neither the
// headers nor the chunks hold a pointer the collector has to follow.
//
// Why not gods: a gods red-black tree (lo -> hi, spans named by tree node,
// commit 4662661 on main) made every placement 1.6 to 4.6 times slower:
// BenchmarkPlace synthetic n=1000 11.6 -> 27.8 ms, n=100000 2.04 -> 8.45 s,
// real/Y_1 4.14 -> 10.98 s, challenging/J 11.9 -> 19.4 ms (median of 5,
// interleaved, load 4-14; docs/BENCHMARKS.md). The placer's sets are
// short, append-mostly and scanned in order, which a sorted array does
// with one cache line per step and a tree with one allocation per span.
//
//	scripts/benchab.sh 6484e31 4662661 ./planner \
//	  'BenchmarkPlace/^(synthetic|dsa)$/^(n=1000|n=10000|n=100000|challenging|real)$' 5 1s
type spanSet struct {
	at     uint64 // chunk<<32 | offset (in int64) of the region
	n, cap int32  // spans held, spans the region has room for
}

// spans is a view of one set's spans: span k is s[2k] (lo), s[2k+1] (hi).
type spans []int64

func (s spans) len() int                     { return len(s) / 2 }
func (s spans) lo(k int) int64               { return s[2*k] }
func (s spans) hi(k int) int64               { return s[2*k+1] }
func (s spans) search(x int64, from int) int { return s.searchIn(x, from, s.len()) }

// searchIn returns the first span index in [i, j) with hi > x, or j.
func (s spans) searchIn(x int64, i, j int) int {
	for i < j {
		h := int(uint(i+j) >> 1)
		if s[2*h+1] <= x {
			i = h + 1
		} else {
			j = h
		}
	}
	return i
}

// startAt returns the start of span j, or math.MaxInt64 past the end.
func (s spans) startAt(j int) int64 {
	if 2*j < len(s) {
		return s[2*j]
	}
	return math.MaxInt64
}

// skip returns the first span index at or after j with hi > x: a few linear
// steps (the usual case, x moves little), then a galloping search (steps
// of 8, 16, 32, ... spans, then a binary search inside the last step), so
// that a jump of d spans costs O(log d) looks near the cursor instead of
// a binary search over the whole rest of the set.
func (s spans) skip(x int64, j int) int {
	for k := 0; k < 4; k++ {
		if 2*j >= len(s) || s[2*j+1] > x {
			return j
		}
		j++
	}
	n := s.len()
	for step := 8; ; step *= 2 {
		k := j + step
		if k >= n || s[2*k+1] > x {
			return s.searchIn(x, j, min(k, n))
		}
		j = k + 1
	}
}

// spanChunk is the int64 count of the largest chunk of a spanStore (64
// KiB); the first is spanFirstChunk (2 KiB, for the many small indexes
// of a portfolio) and each next one twice the last. A region larger than
// spanChunk gets a chunk of its own. The split placement keeps about 120
// small indexes open at once on a million buffers; with chunks of up to 2
// MiB their stores took 126 MiB at the peak, with 64 KiB 96 MiB (the
// unused tails of the last chunks; a scratch count at c9b6770).
const (
	spanChunk      = 1 << 13
	spanFirstChunk = 1 << 8
)

// spanSmall is the largest capacity (in spans) with a free list in an
// array; larger ones are in a map.
const spanSmall = 64

// spanStore holds the regions of spanSets. Chunks never move once made
// (a region's address names its chunk), so a region larger than
// spanChunk gets a chunk of its own, beside the one being filled.
type spanStore struct {
	mem     [][]int64
	fill    int // 1 + the chunk being filled; 0 before the first
	used    int // int64 taken in it
	free    [spanSmall + 1][]uint64
	bigFree map[int32][]uint64
	spare   [][]int64 // chunks of the sets before the last reset, for alloc
}

// reset empties the store for new sets; it keeps the chunks of up to
// spanChunk int64, which alloc takes again before it makes new ones.
func (st *spanStore) reset() {
	for _, c := range st.mem {
		if len(c) <= spanChunk {
			st.spare = append(st.spare, c)
		}
	}
	clear(st.mem)
	st.mem = st.mem[:0]
	st.fill, st.used = 0, 0
	for c := range st.free {
		st.free[c] = st.free[c][:0]
	}
	clear(st.bigFree)
}

// chunk returns a chunk of size int64: a spare one of that size, or a new
// one.
func (st *spanStore) chunk(size int) []int64 {
	for k := len(st.spare) - 1; k >= 0; k-- {
		if c := st.spare[k]; len(c) == size {
			st.spare[k] = st.spare[len(st.spare)-1]
			st.spare = st.spare[:len(st.spare)-1]
			return c
		}
	}
	return make([]int64, size)
}

// view returns the spans of s.
func (st *spanStore) view(s *spanSet) spans {
	if s.n == 0 {
		return nil
	}
	c, o := s.at>>32, uint32(s.at)
	return spans(st.mem[c][o : o+2*uint32(s.n)])
}

// alloc returns a region of room for c spans.
func (st *spanStore) alloc(c int32) uint64 {
	if c <= spanSmall {
		if l := st.free[c]; len(l) > 0 {
			st.free[c] = l[:len(l)-1]
			return l[len(l)-1]
		}
	} else if l := st.bigFree[c]; len(l) > 0 {
		st.bigFree[c] = l[:len(l)-1]
		return l[len(l)-1]
	}
	w := 2 * int(c)
	if w > spanChunk {
		st.mem = append(st.mem, make([]int64, w))
		return uint64(len(st.mem)-1) << 32
	}
	if st.fill == 0 || st.used+w > len(st.mem[st.fill-1]) {
		size := spanFirstChunk
		if st.fill > 0 {
			size = min(2*len(st.mem[st.fill-1]), spanChunk)
		}
		for size < w {
			size *= 2
		}
		st.mem = append(st.mem, st.chunk(size))
		st.fill, st.used = len(st.mem), 0
	}
	at := uint64(st.fill-1)<<32 | uint64(st.used)
	st.used += w
	return at
}

// release puts the region of s on the free list of its capacity.
func (st *spanStore) release(s *spanSet) {
	switch {
	case s.cap == 0:
	case s.cap <= spanSmall:
		st.free[s.cap] = append(st.free[s.cap], s.at)
	default:
		if st.bigFree == nil {
			st.bigFree = map[int32][]uint64{}
		}
		st.bigFree[s.cap] = append(st.bigFree[s.cap], s.at)
	}
}

// grow moves s to a region with room for one more span: by one span up
// to four, then by a quarter (most sets hold one to six spans).
func (st *spanStore) grow(s *spanSet) {
	c := s.n + 1
	if s.n >= 4 {
		c += s.n / 4
	}
	old := st.view(s)
	at := st.alloc(c)
	ac, ao := at>>32, uint32(at)
	copy(st.mem[ac][ao:], old)
	st.release(s)
	s.at, s.cap = at, c
}

// insert adds [lo, hi) to s, merging spans it overlaps or touches. It
// reports whether s already held all of [lo, hi) (and so did not change).
func (st *spanStore) insert(s *spanSet, lo, hi int64) bool {
	if lo >= hi {
		return true
	}
	sp := st.view(s)
	n := sp.len()
	// i: first span with hi >= lo (touching merges); j: first span with lo > hi.
	i := sp.search(lo-1, 0)
	if i < n && sp.lo(i) <= lo && hi <= sp.hi(i) {
		return true
	}
	j := i
	for j < n && sp.lo(j) <= hi {
		j++
	}
	if i == j {
		if s.n == s.cap {
			st.grow(s)
		}
		s.n++
		sp = st.view(s)
		copy(sp[2*i+2:], sp[2*i:2*n])
		sp[2*i], sp[2*i+1] = lo, hi
		return false
	}
	sp[2*i] = min(sp[2*i], lo)
	sp[2*i+1] = max(sp[2*j-1], hi)
	if j > i+1 {
		copy(sp[2*i+2:], sp[2*j:])
		s.n -= int32(j - i - 1)
	}
	return false
}
