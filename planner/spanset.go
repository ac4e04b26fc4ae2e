package planner

import "math"

// spanSet is a growing union of half-open byte ranges [lo, hi), kept as
// sorted, disjoint, non-touching spans: inserting [4, 8) into {[0, 4), [8, 9)}
// leaves {[0, 9)}. The placer only ever adds memory to a set (placement never
// frees), so a set stays short when placements pack tightly: a thousand
// adjacent buffers are one span. Span k is sp[2k] (lo) and sp[2k+1] (hi), in
// one slice so that a lookup touches one allocation.
//
// Why not gods: a gods red-black tree (lo -> hi, spans named by tree node,
// commit 4662661 on main) made every placement 1.6 to 4.6 times slower:
// BenchmarkPlace synthetic n=1000 11.6 -> 27.8 ms, n=100000 2.04 -> 8.45 s,
// real/Y_1 4.14 -> 10.98 s, challenging/J 11.9 -> 19.4 ms (median of 5,
// interleaved, load 4-14; docs/BENCHMARKS.md). The placer's sets are
// short, append-mostly and scanned in order, which a sorted slice does
// with one cache line per step and a tree with one allocation per span.
//
//	scripts/benchab.sh 6484e31 4662661 ./planner \
//	  'BenchmarkPlace/^(synthetic|dsa)$/^(n=1000|n=10000|n=100000|challenging|real)$' 5 1s
type spanSet struct {
	sp []int64
}

func (s *spanSet) len() int                  { return len(s.sp) / 2 }
func (s *spanSet) lo(k int) int64            { return s.sp[2*k] }
func (s *spanSet) hi(k int) int64            { return s.sp[2*k+1] }
func (s *spanSet) empty() bool               { return len(s.sp) == 0 }
func (s *spanSet) span(k int) (int64, int64) { return s.sp[2*k], s.sp[2*k+1] }

// search returns the index of the first span at or after from with hi > x.
func (s *spanSet) search(x int64, from int) int {
	i, j := from, s.len()
	for i < j {
		h := int(uint(i+j) >> 1)
		if s.sp[2*h+1] <= x {
			i = h + 1
		} else {
			j = h
		}
	}
	return i
}

// insert adds [lo, hi) to the set, merging spans it overlaps or touches.
// It reports whether the set already held all of [lo, hi) (and so did not
// change).
func (s *spanSet) insert(lo, hi int64) bool {
	if lo >= hi {
		return true
	}
	n := s.len()
	// i: first span with hi >= lo (touching merges); j: first span with lo > hi.
	i := s.search(lo-1, 0)
	if i < n && s.lo(i) <= lo && hi <= s.hi(i) {
		return true
	}
	j := i
	for j < n && s.lo(j) <= hi {
		j++
	}
	if i == j {
		if len(s.sp)+2 > cap(s.sp) {
			// Grow by one span up to four, then by a quarter, not
			// double: a million-buffer placement keeps over a million
			// short sets, most of one to six spans.
			c := len(s.sp) + 2
			if len(s.sp) >= 8 {
				c += len(s.sp) / 8 * 2
			}
			sp := make([]int64, len(s.sp), c)
			copy(sp, s.sp)
			s.sp = sp
		}
		s.sp = append(s.sp, 0, 0)
		copy(s.sp[2*i+2:], s.sp[2*i:])
		s.sp[2*i], s.sp[2*i+1] = lo, hi
		return false
	}
	s.sp[2*i] = min(s.lo(i), lo)
	s.sp[2*i+1] = max(s.hi(j-1), hi)
	if j > i+1 {
		s.sp = append(s.sp[:2*i+2], s.sp[2*j:]...)
	}
	return false
}

// startAt returns the start of span j, or math.MaxInt64 past the end.
func (s *spanSet) startAt(j int) int64 {
	if 2*j < len(s.sp) {
		return s.sp[2*j]
	}
	return math.MaxInt64
}

// skip returns the first span index at or after j with hi > x: a few linear
// steps (the usual case, x moves little), then a binary search.
func (s *spanSet) skip(x int64, j int) int {
	for k := 0; k < 4; k++ {
		if 2*j >= len(s.sp) || s.sp[2*j+1] > x {
			return j
		}
		j++
	}
	return s.search(x, j)
}
