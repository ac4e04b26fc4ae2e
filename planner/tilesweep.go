package planner

// The tiling sweep: a search for a placement at LB of a perfect instance
// (isPerfect) that decides groups, not offsets. It is not yet one of the
// search's steps: on the packable instances it places p250, p500 and p1000
// at LB but stalls on p2000 and p5000 (docs/BENCHMARKS.md, issue 18),
// where the guillotine cuts already do as well or better. Its model is
// the finding: following the generator's own tiling, it never fails on any
// of them (TestTileSweepFollowsTiling), so what is left is the choice of
// groups.
//
// At an arena of LB no byte is ever empty, so at each step boundary the
// bytes freed by the buffers that end there are exactly the bytes taken by
// those that start there. Group the boundary's buffers into sets of equal
// total, enders and starters: each group's enders stand adjacent at the
// step before, and its starters fill their bytes, in some order. Which
// orders of the live buffers are still possible, after every boundary so
// far, is one PQ-tree (pqtree.go): reduce each group's enders to adjacent,
// put a P-node of its starters in their place. The order of buffers in a
// hole, which sinks the searches over offsets, is never guessed; the only
// decision at a boundary is the grouping, and the tree refuses groupings
// whose enders cannot stand adjacent.
//
// The enders of a boundary fall into blocks that every order keeps
// adjacent (pqTree.blocks); a grouping need only join whole blocks. A
// boundary of one block has one grouping. For several, tileSweepPlace
// runs three orders in turn (tileMode), each under a third of the nodes:
// evidence (the finest groupings found, those of the most groups, and of
// those the ones whose groups mix the fewest parents in the tree: if one
// is left it goes first, else one hole for all), strong groups (a block
// and a starter of its size, blocks and one starter, a block and two
// starters, the rest in one hole), and a complete order. A boundary with
// no grouping left sends the search back to the latest boundary where
// one of its enders started (the groupings in between concern other
// buffers; this backjumping gives up completeness, which the node limit
// gives up anyway).
//
// Starters of one size that start together are interchangeable until
// one of them ends, so the groupings tell them apart by size alone, and
// which leaf is the one that ends is chosen where it ends: before a
// boundary the sweep may swap the labels of an ender and a live buffer
// of its start and size (relabelings; the swap that leaves the enders in
// the fewest blocks first), and the backward pass maps the labels back.
//
// When the last boundary is passed, a backward pass turns the trees into
// offsets: the order at the last step is any frontier of the last tree;
// at each boundary before it, the order of the step before is the one of
// the step after with each group's starters put back as its enders, in an
// order the tree before the boundary allows (its reduced tree, read with
// the group as one token).
//
// Example: a [0,1) 2 B, b [0,2) 1 B, c [1,2) 1 B, d [1,2) 1 B, e [2,3) 3 B
// at LB 3. Step 0: P(a b). Boundary 1: a ends, c and d start: one group
// {a | c d}, and P(c d) takes a's place: P(P(c d) b). Boundary 2: b, c, d
// end, e starts: the root is full, e replaces it. Backward: e at 0; then
// the order before boundary 2 is a frontier of its tree, c d b: c at 0,
// d at 1, b at 2; then a where c and d were: a at 0.

import (
	"cmp"
	"context"
	"slices"
)

// tileShareWork bounds the search for one partition's shares, in nodes
// per starter of the boundary; tileSwapMax the label swaps tried at one
// boundary (relabelings).
const (
	tileShareWork = 200
	tileSwapMax   = 32
	tileFinestMax = 8 // groupings evidence weighs
)

// tileSweep is one run of the sweep over a perfect instance.
type tileSweep struct {
	ctx     context.Context
	bufs    []Buffer
	bounds  []int64   // the step boundaries, increasing
	ends    [][]int32 // buffers ending at each boundary
	starts  [][]int32 // buffers starting at each boundary
	snap    []*pqTree // the tree before each boundary
	groups  [][]tileGroup
	limit   int64
	nodes   int64
	abort   bool
	mark    []int32 // reduce's set, by stamp
	stamp   int32
	halt    bool    // share's signal to subset: stop enumerating
	jump    int     // a boundary being jumped back to, or -1
	startAt []int32 // the boundary each buffer starts at
	deep    int     // the furthest boundary reached
	mode    tileMode
	swaps   [][][2]int32 // labels swapped before each boundary
	class   [][]int32    // the buffers of each one's start and size
	// onward goes on past a grouping (run; tests put a probe here).
	onward func(i int, t *pqTree) bool
}

// tileGroup is a set of enders and starters of equal total at a boundary.
type tileGroup struct {
	ends, starts []int32
}

// tileSweepPlace places bufs (perfect, live total lb at every step) at lb
// by the sweep, within limit nodes; nil when it found no tiling.
func tileSweepPlace(ctx context.Context, bufs []Buffer, limit int64) ([]int64, int64) {
	var nodes int64
	for _, m := range []tileMode{tileEvidence, tileStrong, tileComplete} {
		s := newTileSweep(ctx, bufs, limit/3)
		s.mode = m
		ok := s.run(0, newPQTree())
		nodes += s.nodes
		if ok {
			return s.offsets(), nodes
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, nodes
}

// tileMode is an order of groupings to try at a boundary of several
// blocks; each run of tileSweepPlace takes a third of the nodes.
type tileMode uint8

const (
	// tileEvidence: the finest grouping first if it is the only one,
	// else one hole first (evidence); then strong groups (strong).
	tileEvidence tileMode = iota
	// tileStrong: strong groups only.
	tileStrong
	// tileComplete: strong groups, then every partition of the blocks
	// (finest first, one hole early) and every way to share the
	// starters out: complete but for the backjumping.
	tileComplete
)

func newTileSweep(ctx context.Context, bufs []Buffer, limit int64) *tileSweep {
	s := &tileSweep{ctx: ctx, bufs: bufs, limit: limit, mark: make([]int32, len(bufs)), jump: -1, startAt: make([]int32, len(bufs))}
	ts := make([]int64, 0, 2*len(bufs))
	for _, b := range bufs {
		ts = append(ts, b.Start, b.End)
	}
	slices.Sort(ts)
	s.bounds = slices.Compact(ts)
	s.ends = make([][]int32, len(s.bounds))
	s.starts = make([][]int32, len(s.bounds))
	for i, b := range bufs {
		k, _ := slices.BinarySearch(s.bounds, b.End)
		s.ends[k] = append(s.ends[k], int32(i))
		k, _ = slices.BinarySearch(s.bounds, b.Start)
		s.starts[k] = append(s.starts[k], int32(i))
		s.startAt[i] = int32(k)
	}
	s.onward = s.run
	s.snap = make([]*pqTree, len(s.bounds))
	s.swaps = make([][][2]int32, len(s.bounds))
	s.class = make([][]int32, len(bufs))
	mates := map[[2]int64][]int32{}
	for i, b := range bufs {
		key := [2]int64{b.Start, b.Size}
		mates[key] = append(mates[key], int32(i))
	}
	for i, b := range bufs {
		s.class[i] = mates[[2]int64{b.Start, b.Size}]
	}
	s.groups = make([][]tileGroup, len(s.bounds))
	return s
}

// tick counts a node; false once the limit or the context ends the run.
func (s *tileSweep) tick() bool {
	s.nodes++
	if s.nodes > s.limit {
		s.abort = true
	} else if s.nodes%perfectCheckEvery == 0 && s.ctx.Err() != nil {
		s.abort = true
	}
	return !s.abort
}

// run passes boundaries i onward with tree t (the order before i).
func (s *tileSweep) run(i int, t *pqTree) bool {
	if i == len(s.bounds) {
		return true
	}
	if !s.tick() {
		return false
	}
	s.deep = max(s.deep, i)
	s.snap[i] = t
	ends, starts := s.ends[i], s.starts[i]
	switch {
	case len(ends) == 0: // the first boundary: any order
		n := t.clone()
		kids := make([]int32, len(starts))
		for k, b := range starts {
			kids[k] = n.leaf(b)
		}
		n.root = n.pnode(kids)
		s.groups[i] = nil
		return s.run(i+1, n)
	case len(starts) == 0: // the last: everything ends
		s.groups[i] = nil
		return s.run(i+1, newPQTree())
	}
	ok := false
	for _, sw := range s.relabelings(i, t) {
		n := t
		if len(sw) > 0 {
			n = t.clone()
			n.relabel(sw[0][0], sw[0][1])
		}
		s.snap[i], s.swaps[i] = n, sw
		if ok = s.group(i, n); ok || s.abort || s.jump >= 0 {
			break
		}
	}
	if !ok && !s.abort && s.jump < 0 {
		// Back to the latest boundary that started one of ours: the
		// groupings between concern other buffers.
		s.jump = -2
		for _, b := range ends {
			if k := int(s.startAt[b]); k < i {
				s.jump = max(s.jump, k)
			}
		}
		if s.jump < 0 {
			s.jump = -1
		}
	}
	return ok
}

// in returns a test for membership in bs (by stamp: no allocation per
// buffer); it holds until the next call.
func (s *tileSweep) in(bs []int32) func(int32) bool {
	s.stamp++
	stamp := s.stamp
	for _, b := range bs {
		s.mark[b] = stamp
	}
	return func(b int32) bool { return s.mark[b] == stamp }
}

// apply reduces the group's enders to adjacent in n and puts the node
// that fill builds in their place; false if they cannot be adjacent.
func (s *tileSweep) apply(n *pqTree, grp tileGroup, fill func(*pqTree, []int32) int32) bool {
	blk, ok := n.reduce(s.in(grp.ends), int32(len(grp.ends)))
	if !ok {
		return false
	}
	n.replace(blk, fill(n, grp.starts))
	return true
}

// relabelings lists the label swaps to try before boundary i, the
// current labels first. Buffers of one size that start together are
// interchangeable until one ends: which of their leaves is the one that
// ends here is chosen now, when the tree shows which can stand with the
// other enders, instead of when they started. Swaps that leave the
// enders in fewer blocks come first.
func (s *tileSweep) relabelings(i int, t *pqTree) [][][2]int32 {
	opts := [][][2]int32{nil}
	var any bool
	for _, x := range s.ends[i] {
		for _, y := range s.class[x] {
			if y != x && s.bufs[y].End > s.bounds[i] {
				any = true
			}
		}
	}
	if !any {
		return opts
	}
	parent, leafOf := t.parents()
	for _, x := range s.ends[i] {
		seen := map[int32]bool{parent[leafOf[x]]: true}
		for _, y := range s.class[x] {
			ly, ok := leafOf[y]
			if y == x || s.bufs[y].End <= s.bounds[i] || !ok || seen[parent[ly]] {
				continue
			}
			seen[parent[ly]] = true
			opts = append(opts, [][2]int32{{x, y}})
			if len(opts) == tileSwapMax {
				break
			}
		}
	}
	count := make([]int, len(opts))
	ending := s.in(s.ends[i])
	for k, sw := range opts {
		n := t
		if len(sw) > 0 {
			n = t.clone()
			n.relabel(sw[0][0], sw[0][1])
		}
		count[k] = len(n.blocks(ending))
	}
	idx := make([]int, len(opts))
	for k := range idx {
		idx[k] = k
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(count[a], count[b]) })
	out := make([][][2]int32, len(opts))
	for k, j := range idx {
		out[k] = opts[j]
	}
	return out
}
