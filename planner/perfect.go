package planner

// Perfect packings: an exact tiling search for instances whose live total
// equals the lower bound at every step (search.go runs it on them after
// the cuts of guillotine.go).
//
// On such an instance an arena of LB leaves no byte empty at any step, and
// that makes a bottom-up search strong. Place buffers on the skyline (per
// step, the top of what is placed; everything below it is full). Take its
// lowest segment [a, b) at level L: the byte L at step a must be covered by
// a buffer at offset L exactly, which cannot reach step a-1 (the skyline is
// higher there, or a is the first step) nor step b: so it starts at a and
// ends by b. The candidates are those unplaced buffers, usually few.
// Before branching, every segment of the skyline whose left neighbour is
// higher needs such a buffer still, and so does every segment whose right
// neighbour is higher (one that ends at its right end); a segment without
// one fails at once.
//
// A dead end is explained by the buffers placed over the columns of the
// segment that failed (they decide its level and walls) and the buffers
// that start there; conflict-directed backjumping returns to the latest
// decision among them and skips the decisions in between, which concern
// other columns. Buffers of the same size and lifespan are interchangeable:
// one of them is tried per node.
//
// Two attempts, each under a node limit (the first a short one): the
// buffers as they are, then with all buffers of one lifespan merged into
// one (a sound restriction: a placement of the merged buffer stacks its
// members). Merging removes the orders of buffers that only ever fill the
// same hole; on the packable instance p250 it finds LB where the plain
// search stalls (docs/BENCHMARKS.md).
//
// Example: three buffers tile 8 bytes: a [0,2) 8 B; b [2,4) 3 B; c [2,4)
// 5 B. The lowest segment is steps [0,4) at 0: only a starts at step 0,
// placed at 0; then [2,4) at 0: b or c, the larger first: c at 0, then b
// at 5. Arena 8 = LB.

import (
	"cmp"
	"context"
	"slices"
)

// perfectCheckEvery is how many nodes pass between checks of ctx.
const perfectCheckEvery = 1024

// perfectWork bounds an attempt: its node limit is perfectWork divided by
// the number of columns (a node scans the skyline), at most
// perfectMaxNodes: about a second on the packable instances.
const (
	perfectWork     = 200_000_000
	perfectMaxNodes = 2_000_000
)

// perfectPlainNodes bounds the attempt without merging, per buffer: it
// either goes through almost without backtracking (p500 does) or
// stalls.
const perfectPlainNodes = 50

// isPerfect reports whether the live total of bufs equals lb at every step
// between the first start and the last end. Fixed or aligned buffers make
// it false (the search assumes neither).
func isPerfect(bufs []Buffer, lb int64) bool {
	if len(bufs) == 0 || lb <= 0 {
		return false
	}
	for _, b := range bufs {
		if b.Fixed || b.Align > 1 {
			return false
		}
	}
	perfect := true
	liveSteps(bufs, func(_, live int64, last bool) {
		perfect = perfect && (last || live == lb)
	})
	return perfect
}

// perfectPack tries to place bufs (a perfect instance, isPerfect) in an
// arena of lb: first as they are, then with each lifespan's buffers merged
// (the same columns), each under its node limit. It returns the offsets,
// or nil when neither attempt found a placement, and the nodes it visited.
func perfectPack(ctx context.Context, bufs []Buffer, lb int64) ([]int64, int64) {
	plain := newPerfectSearch(ctx, bufs, lb, 0)
	limit := min(perfectWork/int64(max(len(plain.h), 1)), perfectMaxNodes)
	plain.limit = min(limit, perfectPlainNodes*int64(len(bufs)))
	off, nodes := plain.run()
	if off != nil {
		return off, nodes
	}
	merged, members := mergeLifespans(bufs)
	if len(merged) == len(bufs) {
		return nil, nodes
	}
	moff, mnodes := newPerfectSearch(ctx, merged, lb, limit).run()
	nodes += mnodes
	if moff == nil {
		return nil, nodes
	}
	off = make([]int64, len(bufs))
	for k, ms := range members {
		at := moff[k]
		for _, i := range ms {
			off[i] = at
			at += bufs[i].Size
		}
	}
	return off, nodes
}

// mergeLifespans returns one buffer per distinct lifespan of bufs, of their
// total size, in order of first appearance, and the members of each.
func mergeLifespans(bufs []Buffer) ([]Buffer, [][]int) {
	idx := map[[2]int64]int{}
	var out []Buffer
	var members [][]int
	for i, b := range bufs {
		key := [2]int64{b.Start, b.End}
		k, ok := idx[key]
		if !ok {
			k = len(out)
			idx[key] = k
			out = append(out, Buffer{ID: int64(k), Start: b.Start, End: b.End})
			members = append(members, nil)
		}
		out[k].Size += b.Size
		members[k] = append(members[k], i)
	}
	return out, members
}

// perfectSearch is one attempt. Time is compressed to columns: column k is
// [bounds[k], bounds[k+1]).
type perfectSearch struct {
	ctx    context.Context
	bufs   []Buffer
	c      int64   // the arena: the lower bound
	col0   []int   // first column of each buffer
	col1   []int   // one past its last column
	h      []int64 // skyline per column
	starts [][]int // buffers by first column, by end desc then size desc
	ends   [][]int // buffers by one-past-last column
	used   []bool
	off    []int64
	placed []int   // placement order
	colBuf [][]int // per column, the placed buffers over it (a stack)
	words  int
	nodes  int64
	limit  int64
	abort  bool
	// deepest is the most buffers placed at once so far (how far the
	// attempt got: TestPackableP5000CruxChoices).
	deepest int
}

func newPerfectSearch(ctx context.Context, bufs []Buffer, c, limit int64) *perfectSearch {
	var bounds []int64
	for _, b := range bufs {
		bounds = append(bounds, b.Start, b.End)
	}
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	colOf := func(t int64) int { k, _ := slices.BinarySearch(bounds, t); return k }
	cols := len(bounds) - 1
	s := &perfectSearch{ctx: ctx, bufs: bufs, c: c, limit: limit,
		col0: make([]int, len(bufs)), col1: make([]int, len(bufs)),
		h: make([]int64, cols), starts: make([][]int, cols), ends: make([][]int, cols+1),
		used: make([]bool, len(bufs)), off: make([]int64, len(bufs)), words: (len(bufs) + 63) / 64,
		colBuf: make([][]int, cols)}
	for i, b := range bufs {
		s.col0[i], s.col1[i] = colOf(b.Start), colOf(b.End)
		s.starts[s.col0[i]] = append(s.starts[s.col0[i]], i)
		s.ends[s.col1[i]] = append(s.ends[s.col1[i]], i)
	}
	for _, l := range s.starts {
		slices.SortFunc(l, func(x, y int) int {
			if d := cmp.Compare(int64(s.col1[y]), int64(s.col1[x])); d != 0 {
				return d
			}
			if d := cmp.Compare(bufs[y].Size, bufs[x].Size); d != 0 {
				return d
			}
			return x - y
		})
	}
	return s
}

// run returns the offsets of a placement in an arena of s.c, or nil.
func (s *perfectSearch) run() ([]int64, int64) {
	if ok, _ := s.dfs(); ok {
		return s.off, s.nodes
	}
	return nil, s.nodes
}

// nogood is a set of buffers (bit i: buffer i's placement).
type nogood []uint64

func (c nogood) has(i int) bool { return c[i>>6]&(1<<(i&63)) != 0 }
func (c nogood) clear(i int)    { c[i>>6] &^= 1 << (i & 63) }
func (c nogood) union(o nogood) {
	for k := range c {
		c[k] |= o[k]
	}
}

// window returns the placed buffers over columns [a, z] (clamped).
func (s *perfectSearch) window(a, z int) nogood {
	w := make(nogood, s.words)
	for t := max(a, 0); t <= min(z, len(s.h)-1); t++ {
		for _, i := range s.colBuf[t] {
			w[i>>6] |= 1 << (i & 63)
		}
	}
	return w
}

// walls returns a nogood when some segment of the skyline can no longer
// be filled: a segment with a higher left neighbour needs an unplaced
// buffer starting at its first column that fits up to the next higher
// column; one with a higher right neighbour, one ending at its last column.
func (s *perfectSearch) walls() nogood {
	n := len(s.h)
	for t := range n {
		lvl := s.h[t]
		if lvl >= s.c {
			continue
		}
		if t == 0 || s.h[t-1] > lvl {
			r := t + 1
			for r < n && s.h[r] <= lvl {
				r++
			}
			if !slices.ContainsFunc(s.starts[t], func(i int) bool {
				return !s.used[i] && s.col1[i] <= r && lvl+s.bufs[i].Size <= s.c
			}) {
				return s.window(t-1, r)
			}
		}
		if t == n-1 || s.h[t+1] > lvl {
			l := t - 1
			for l >= 0 && s.h[l] <= lvl {
				l--
			}
			if !slices.ContainsFunc(s.ends[t+1], func(i int) bool {
				return !s.used[i] && s.col0[i] > l && lvl+s.bufs[i].Size <= s.c
			}) {
				return s.window(l, t+1)
			}
		}
	}
	return nil
}

// dfs places the rest. On failure it returns the nogood that explains it
// (nil contents when aborted).
func (s *perfectSearch) dfs() (bool, nogood) {
	if len(s.placed) == len(s.bufs) {
		return true, nil
	}
	s.nodes++
	s.deepest = max(s.deepest, len(s.placed))
	if s.nodes > s.limit || (s.nodes%perfectCheckEvery == 0 && s.ctx.Err() != nil) {
		s.abort = true
		return false, nil
	}
	if c := s.walls(); c != nil {
		return false, c
	}
	a, lvl, b := s.lowest()
	var why nogood // computed when a child fails
	prevSize, prevEnd := int64(-1), -1
	for _, i := range s.starts[a] {
		size := s.bufs[i].Size
		if s.used[i] || s.col1[i] > b || lvl+size > s.c || (size == prevSize && s.col1[i] == prevEnd) {
			continue
		}
		prevSize, prevEnd = size, s.col1[i]
		s.place(i, lvl)
		ok, c := s.dfs()
		if ok {
			return true, nil
		}
		s.unplace(i)
		if s.abort {
			return false, nil
		}
		if !c.has(i) {
			return false, c // i's placement plays no part: jump over this node
		}
		c.clear(i)
		if why == nil {
			why = s.window(a-1, b)
		}
		why.union(c)
	}
	if why == nil {
		why = s.window(a-1, b)
	}
	return false, why
}

// lowest returns the skyline's lowest segment, the leftmost: columns
// [a, b) at level lvl.
func (s *perfectSearch) lowest() (a int, lvl int64, b int) {
	for t := range s.h {
		if s.h[t] < s.h[a] {
			a = t
		}
	}
	lvl, b = s.h[a], a
	for b < len(s.h) && s.h[b] == lvl {
		b++
	}
	return a, lvl, b
}

func (s *perfectSearch) place(i int, at int64) {
	s.used[i], s.off[i] = true, at
	s.placed = append(s.placed, i)
	for t := s.col0[i]; t < s.col1[i]; t++ {
		s.h[t] += s.bufs[i].Size
		s.colBuf[t] = append(s.colBuf[t], i)
	}
}

func (s *perfectSearch) unplace(i int) {
	for t := s.col0[i]; t < s.col1[i]; t++ {
		s.h[t] -= s.bufs[i].Size
		s.colBuf[t] = s.colBuf[t][:len(s.colBuf[t])-1]
	}
	s.placed = s.placed[:len(s.placed)-1]
	s.used[i] = false
}
