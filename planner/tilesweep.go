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
	"maps"
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

// group tries the groupings of boundary i over tree t: its enders fall
// into blocks that every order keeps adjacent (pqTree.blocks), and a
// grouping joins whole blocks (a group that takes part of a block does
// no better than one that takes all of it: the block is adjacent anyway,
// and more starters in one hole allow more orders). Partitions of the
// blocks come finest first; for each, the ways to share the starters out
// at the groups' totals.
func (s *tileSweep) group(i int, t *pqTree) bool {
	ends, starts := s.ends[i], s.starts[i]
	s.stamp++
	for _, b := range ends {
		s.mark[b] = s.stamp
	}
	stamp := s.stamp
	blocks := t.blocks(func(b int32) bool { return s.mark[b] == stamp })
	total := func(bs []int32) int64 {
		var h int64
		for _, b := range bs {
			h += s.bufs[b].Size
		}
		return h
	}
	slices.SortStableFunc(blocks, func(a, b []int32) int { return cmp.Compare(total(b), total(a)) })
	st := slices.Clone(starts)
	slices.SortFunc(st, func(a, b int32) int {
		x, y := s.bufs[a], s.bufs[b]
		return cmp.Or(cmp.Compare(y.Size, x.Size), cmp.Compare(x.End, y.End), cmp.Compare(a, b))
	})
	if len(blocks) > 1 {
		if s.mode == tileEvidence {
			if s.evidence(i, t, blocks, st) {
				return true
			}
			if s.abort || s.jump >= 0 {
				return false
			}
		}
		if s.strong(i, t, blocks, st) {
			return true
		}
		if s.abort || s.jump >= 0 || s.mode != tileComplete {
			return false
		}
	}
	var reach map[int64]bool // the totals of sets of starters
	if len(blocks) > 1 {
		reach = map[int64]bool{0: true}
		for _, b := range st {
			for h := range maps.Clone(reach) {
				reach[h+s.bufs[b].Size] = true
			}
		}
	}
	part := make([]int, len(blocks)) // the group of each block
	finest := make([]int, len(blocks))
	for k := range finest {
		finest[k] = k
	}
	if s.share(i, t, blocks, finest, len(blocks), st, reach, 0, 1) {
		return true
	}
	if s.abort || s.jump >= 0 {
		return false
	}
	if len(blocks) > 1 { // one hole: the starters in any order
		if s.share(i, t, blocks, make([]int, len(blocks)), 1, st, reach, 0, -1) {
			return true
		}
		if s.abort || s.jump >= 0 {
			return false
		}
		if s.share(i, t, blocks, finest, len(blocks), st, reach, 1, -1) {
			return true
		}
		if s.abort || s.jump >= 0 {
			return false
		}
	}
	var parts func(k, groups int) bool
	parts = func(k, groups int) bool {
		if s.abort || s.jump >= 0 {
			return false
		}
		if k == len(blocks) {
			if groups == len(blocks) || groups == 1 {
				return false // tried above
			}
			return s.share(i, t, blocks, part, groups, st, reach, 0, -1)
		}
		part[k] = groups // a group of its own first
		if parts(k+1, groups+1) {
			return true
		}
		for g := range groups {
			part[k] = g
			if parts(k+1, groups) {
				return true
			}
		}
		return false
	}
	return parts(0, 0)
}

// share reduces each group of the partition to adjacent (a token in its
// place), then tries the ways to share the starters out.
func (s *tileSweep) share(i int, t *pqTree, blocks [][]int32, part []int, groups int, st []int32, reach map[int64]bool, skip, take int) bool {
	if !s.tick() {
		return false
	}
	grp := make([]tileGroup, groups)
	totals := make([]int64, groups)
	for k, b := range blocks {
		grp[part[k]].ends = append(grp[part[k]].ends, b...)
		for _, x := range b {
			totals[part[k]] += s.bufs[x].Size
		}
	}
	for _, h := range totals {
		if reach != nil && !reach[h] {
			return false // no set of starters has that total
		}
	}
	n := t.clone()
	tok := make([]int32, groups)
	for g := range grp {
		tok[g] = n.add(pqNode{kind: pqToken, buf: int32(g)}, 0, 0)
		if !s.apply(n, grp[g], func(*pqTree, []int32) int32 { return tok[g] }) {
			return false
		}
	}
	used := make([]bool, len(st))
	work := s.nodes + tileShareWork*int64(len(st))
	defer func() { s.halt = false }()
	var fill func(g int) bool
	fill = func(g int) bool {
		if g == groups {
			if skip > 0 {
				skip--
				return false
			}
			if take == 0 {
				s.halt = true // enough of this partition
				return false
			}
			take--
			m := n.clone()
			for j := range grp {
				kids := make([]int32, len(grp[j].starts))
				for k, b := range grp[j].starts {
					kids[k] = m.leaf(b)
				}
				m.setToken(int32(j), m.pnode(kids))
			}
			s.groups[i] = slices.Clone(grp)
			ok := s.onward(i+1, m)
			if s.jump == i {
				s.jump = -1 // the jump ends here: try the next grouping
			}
			if s.jump >= 0 {
				s.halt = true
			}
			return ok
		}
		if s.nodes > work {
			s.halt = true // give this partition up
			return false
		}
		return s.subset(st, used, totals[g], 0, func(pick []int32) bool {
			grp[g].starts = pick
			return fill(g + 1)
		})
	}
	return fill(0)
}

// subset calls found with each set of unused starters from position k on
// that sums to want (one of each run of interchangeable starters: same
// size and end), the largest starters first; it stops at a true.
func (s *tileSweep) subset(st []int32, used []bool, want int64, k int, found func([]int32) bool) bool {
	var pick []int32
	var rec func(k int, want int64) bool
	rec = func(k int, want int64) bool {
		if s.halt || !s.tick() {
			return false
		}
		if want == 0 {
			return found(slices.Clone(pick))
		}
		var left int64
		for j := k; j < len(st); j++ {
			if !used[j] {
				left += s.bufs[st[j]].Size
			}
		}
		if left < want {
			return false
		}
		for j := k; j < len(st); j++ {
			b := s.bufs[st[j]]
			if used[j] || b.Size > want {
				continue
			}
			if j > k && !used[j-1] && s.bufs[st[j-1]].Size == b.Size {
				continue // the same as the one before, not taken here
			}
			used[j] = true
			pick = append(pick, st[j])
			ok := rec(j+1, want-b.Size)
			pick = pick[:len(pick)-1]
			used[j] = false
			if ok || s.abort || s.halt {
				return ok
			}
		}
		return false
	}
	return rec(k, want)
}

// apply reduces the group's enders to adjacent in n and puts the node
// that fill builds in their place; false if they cannot be adjacent.
func (s *tileSweep) apply(n *pqTree, grp tileGroup, fill func(*pqTree, []int32) int32) bool {
	s.stamp++
	for _, b := range grp.ends {
		s.mark[b] = s.stamp
	}
	stamp := s.stamp
	blk, ok := n.reduce(func(b int32) bool { return s.mark[b] == stamp }, int32(len(grp.ends)))
	if !ok {
		return false
	}
	n.replace(blk, fill(n, grp.starts))
	return true
}

// offsets is the backward pass: the order at each step, last to first,
// and the offsets it gives (a buffer keeps its offset over its life).
func (s *tileSweep) offsets() []int64 {
	off := make([]int64, len(s.bufs))
	pos := make([]int32, len(s.bufs))
	fin := make([]int32, len(s.bufs)) // the buffer each label stands for
	for b := range fin {
		fin[b] = int32(b)
	}
	var order []int32 // the order after the boundary being undone
	for i := len(s.bounds) - 1; i >= 0 && len(s.ends[i]) > 0; i-- {
		t := s.snap[i].clone()
		var prev []int32
		if len(s.starts[i]) == 0 {
			t.frontier(t.root, func(nd pqNode) { prev = append(prev, nd.buf) })
		} else {
			for k, b := range order {
				pos[b] = int32(k)
			}
			prev = s.undo(t, i, pos)
		}
		var at int64
		for _, b := range prev {
			off[fin[b]] = at
			at += s.bufs[b].Size
		}
		for _, sw := range s.swaps[i] { // back to the labels before i
			x, y := sw[0], sw[1]
			for k, b := range prev {
				switch b {
				case x:
					prev[k] = y
				case y:
					prev[k] = x
				}
			}
			fin[x], fin[y] = fin[y], fin[x]
		}
		order = prev
	}
	return off
}

// tileHole is what a group's token stands for in undo: the whole node
// (whole >= 0), or a run of a Q-node's children and a leaf beside the
// run (on its left when left), which tells the run's direction.
type tileHole struct {
	whole int32
	run   []int32
	side  int32
	left  bool
}

// undo returns the order before boundary i, from the tree t before it and
// pos, the rank of each buffer in the order after it.
func (s *tileSweep) undo(t *pqTree, i int, pos []int32) []int32 {
	groups := s.groups[i]
	holes := make([]tileHole, len(groups))
	group := map[int32]int32{} // ender -> its group
	for j, grp := range groups {
		for _, b := range grp.ends {
			group[b] = int32(j)
		}
	}
	for j, grp := range groups {
		s.stamp++
		for _, b := range grp.ends {
			s.mark[b] = s.stamp
		}
		stamp := s.stamp
		blk, ok := t.reduce(func(b int32) bool { return s.mark[b] == stamp }, int32(len(grp.ends)))
		if !ok { // cannot happen: the forward pass reduced the same tree
			return nil
		}
		h := tileHole{whole: -1}
		kids := t.n[blk.node].kids
		if blk.lo < 0 || (blk.lo == 0 && blk.hi == len(kids)-1) {
			h.whole = t.add(t.n[blk.node], 0, 0)
		} else {
			h.run = slices.Clone(kids[blk.lo : blk.hi+1])
			if blk.lo > 0 {
				h.side, h.left = t.firstLeaf(kids[blk.lo-1]), true
			} else {
				h.side = t.firstLeaf(kids[blk.hi+1])
			}
		}
		holes[j] = h
		t.replace(blk, t.add(pqNode{kind: pqToken, buf: int32(j)}, 0, 0))
	}
	tokPos := make([]int32, len(groups))
	for j, grp := range groups {
		tokPos[j] = pos[grp.starts[0]]
		for _, b := range grp.starts {
			tokPos[j] = min(tokPos[j], pos[b])
		}
	}
	at := func(nd pqNode) int32 { // the rank of a leaf or token
		if nd.kind == pqToken {
			return tokPos[nd.buf]
		}
		if j, ok := group[nd.buf]; ok { // a leaf now inside another token
			return tokPos[j]
		}
		return pos[nd.buf]
	}
	minPos := make([]int32, len(t.n))
	var low func(x int32) int32
	low = func(x int32) int32 {
		nd := t.n[x]
		m := int32(1 << 30)
		if nd.kind == pqLeaf || nd.kind == pqToken {
			m = at(nd)
		}
		for _, k := range nd.kids {
			m = min(m, low(k))
		}
		minPos[x] = m
		return m
	}
	low(t.root)
	var out []int32
	emit := func(nd pqNode) { out = append(out, nd.buf) }
	var expand func(x int32)
	expand = func(x int32) {
		nd := t.n[x]
		switch nd.kind {
		case pqLeaf:
			out = append(out, nd.buf)
		case pqToken:
			h := holes[nd.buf]
			if h.whole >= 0 {
				t.frontier(h.whole, emit)
				return
			}
			side := at(t.n[h.side])
			forward := (side < tokPos[nd.buf]) == h.left
			for k := range h.run {
				if forward {
					t.frontier(h.run[k], emit)
				} else {
					t.frontier(h.run[len(h.run)-1-k], emit)
				}
			}
		case pqP:
			kids := slices.Clone(nd.kids)
			slices.SortFunc(kids, func(a, b int32) int { return cmp.Compare(minPos[a], minPos[b]) })
			for _, k := range kids {
				expand(k)
			}
		default:
			kids := nd.kids
			rev := minPos[kids[0]] > minPos[kids[len(kids)-1]]
			for k := range kids {
				if rev {
					expand(kids[len(kids)-1-k])
				} else {
					expand(kids[k])
				}
			}
		}
	}
	expand(t.root)
	return out
}

// strong tries the groupings made of strong groups, whose sizes are
// unlikely to match by chance (blocks and one starter; one block and two
// starters), with every block outside them in one hole with the starters
// left: many small starters balance many sets of blocks by chance, and
// a grouping built on such a coincidence fails only much later, where
// one hole for all of them fails nothing. Blocks are decided in order
// (largest first): into a strong group with later blocks, or left for
// the hole; each strong group is tried before leaving the block.
func (s *tileSweep) strong(i int, t *pqTree, blocks [][]int32, st []int32) bool {
	size := func(bs []int32) int64 {
		var h int64
		for _, b := range bs {
			h += s.bufs[b].Size
		}
		return h
	}
	tot := make([]int64, len(blocks))
	for k, b := range blocks {
		tot[k] = size(b)
	}
	usedB := make([]bool, len(blocks))
	usedS := make([]bool, len(st))
	var groups []tileGroup
	same := func(j int) bool { // the starter before j is the same, and unused
		return j > 0 && !usedS[j-1] && s.bufs[st[j-1]].Size == s.bufs[st[j]].Size
	}
	var decide func(k int) bool
	finish := func() bool {
		if !s.tick() {
			return false
		}
		var rest tileGroup
		for k, b := range blocks {
			if !usedB[k] {
				rest.ends = append(rest.ends, b...)
			}
		}
		for j, b := range st {
			if !usedS[j] {
				rest.starts = append(rest.starts, b)
			}
		}
		all := slices.Clone(groups)
		if len(rest.ends) > 0 {
			all = append(all, rest)
		}
		n := t.clone()
		for _, g := range all {
			if !s.apply(n, g, starterNode) {
				return false
			}
		}
		s.groups[i] = all
		ok := s.onward(i+1, n)
		if s.jump == i {
			s.jump = -1
		}
		return ok
	}
	// join adds blocks after position k to the group until it reaches
	// want (the one starter's size), fewest blocks first by recursion
	// order: the group so far is cur.
	var join func(k, from int, want int64, cur tileGroup) bool
	join = func(k, from int, want int64, cur tileGroup) bool {
		if want == 0 {
			groups = append(groups, cur)
			ok := decide(k + 1)
			groups = groups[:len(groups)-1]
			return ok
		}
		for m := from; m < len(blocks); m++ {
			if usedB[m] || tot[m] > want {
				continue
			}
			usedB[m] = true
			next := cur
			next.ends = append(slices.Clone(cur.ends), blocks[m]...)
			ok := join(k, m+1, want-tot[m], next)
			usedB[m] = false
			if ok || s.abort || s.jump >= 0 {
				return ok
			}
		}
		return false
	}
	decide = func(k int) bool {
		if s.abort || s.jump >= 0 {
			return false
		}
		for k < len(blocks) && usedB[k] {
			k++
		}
		if k == len(blocks) {
			return finish()
		}
		usedB[k] = true
		// blocks from k on and one starter
		for j := range st {
			b := s.bufs[st[j]]
			if usedS[j] || b.Size < tot[k] || same(j) {
				continue
			}
			usedS[j] = true
			ok := join(k, k+1, b.Size-tot[k], tileGroup{ends: slices.Clone(blocks[k]), starts: []int32{st[j]}})
			usedS[j] = false
			if ok || s.abort || s.jump >= 0 {
				usedB[k] = false
				return ok
			}
		}
		// block k and two starters
		for j := range st {
			if usedS[j] || s.bufs[st[j]].Size >= tot[k] || same(j) {
				continue
			}
			usedS[j] = true
			for j2 := j + 1; j2 < len(st); j2++ {
				if usedS[j2] || s.bufs[st[j]].Size+s.bufs[st[j2]].Size != tot[k] || same(j2) {
					continue
				}
				usedS[j2] = true
				groups = append(groups, tileGroup{ends: slices.Clone(blocks[k]), starts: []int32{st[j], st[j2]}})
				ok := decide(k + 1)
				groups = groups[:len(groups)-1]
				usedS[j2] = false
				if ok || s.abort || s.jump >= 0 {
					usedS[j] = false
					usedB[k] = false
					return ok
				}
			}
			usedS[j] = false
		}
		usedB[k] = false
		// block k left for the hole: only if a hole is left at all
		return decide(k + 1)
	}
	return decide(0)
}

// starterNode is apply's fill for a search: a P-node of the starters.
func starterNode(n *pqTree, starts []int32) int32 {
	kids := make([]int32, len(starts))
	for k, b := range starts {
		kids[k] = n.leaf(b)
	}
	return n.pnode(kids)
}

// tryGroups applies groups to a copy of t and goes on past boundary i.
func (s *tileSweep) tryGroups(i int, t *pqTree, groups []tileGroup) bool {
	if !s.tick() {
		return false
	}
	n := t.clone()
	for _, g := range groups {
		if !s.apply(n, g, starterNode) {
			return false
		}
	}
	s.groups[i] = groups
	ok := s.onward(i+1, n)
	if s.jump == i {
		s.jump = -1
	}
	return ok
}

// evidence weighs the finest groupings (every group balanced, none
// splits into two balanced ones): when there is one, sizes this
// particular are evidence of the tiling, and it goes first; when there
// are several, many small buffers balance by chance, and one hole for
// everything goes first.
func (s *tileSweep) evidence(i int, t *pqTree, blocks [][]int32, st []int32) bool {
	parts := s.finest(blocks, st, tileFinestMax, s.nodes+tileShareWork*int64(len(st)+len(blocks)))
	most := 0 // the most groups: the finest of the groupings found
	for _, p := range parts {
		most = max(most, len(p))
	}
	parts = slices.DeleteFunc(parts, func(p []tileGroup) bool { return len(p) < max(most, 2) })
	if len(parts) > 1 { // ties: the groupings whose groups mix the fewest parents
		parent, leafOf := t.parents()
		mix := func(p []tileGroup) int {
			n := 0
			for _, g := range p {
				seen := map[int32]bool{}
				for _, b := range g.ends {
					seen[parent[leafOf[b]]] = true
				}
				n += len(seen) - 1
			}
			return n
		}
		least := mix(parts[0])
		for _, p := range parts[1:] {
			least = min(least, mix(p))
		}
		parts = slices.DeleteFunc(parts, func(p []tileGroup) bool { return mix(p) > least })
	}
	merged := []tileGroup{{starts: st}}
	for _, b := range blocks {
		merged[0].ends = append(merged[0].ends, b...)
	}
	var order [][]tileGroup
	if len(parts) == 1 {
		order = append(order, parts[0], merged)
	} else {
		order = append(order, merged)
		order = append(order, parts...)
	}
	for _, groups := range order {
		if s.tryGroups(i, t, groups) {
			return true
		}
		if s.abort || s.jump >= 0 {
			return false
		}
	}
	return false
}

// finest returns up to max finest groupings of blocks and starters,
// within the given node count.
func (s *tileSweep) finest(blocks [][]int32, st []int32, max int, work int64) [][]tileGroup {
	tot := make([]int64, len(blocks))
	for k, b := range blocks {
		for _, x := range b {
			tot[k] += s.bufs[x].Size
		}
	}
	usedB := make([]bool, len(blocks))
	usedS := make([]bool, len(st))
	var out [][]tileGroup
	var groups []tileGroup
	var next func() bool
	var build func(cur tileGroup, diff int64, lastB, lastS int) bool
	done := func() bool { return len(out) >= max || s.nodes > work || s.abort }
	next = func() bool {
		k := slices.Index(usedB, false)
		if k < 0 {
			if !slices.Contains(usedS, false) {
				out = append(out, slices.Clone(groups))
			}
			return done()
		}
		usedB[k] = true
		stop := build(tileGroup{ends: slices.Clone(blocks[k])}, tot[k], k, -1)
		usedB[k] = false
		return stop
	}
	build = func(cur tileGroup, diff int64, lastB, lastS int) bool {
		if !s.tick() || done() {
			return true
		}
		if diff == 0 {
			groups = append(groups, cur)
			stop := next()
			groups = groups[:len(groups)-1]
			return stop
		}
		if diff > 0 {
			for j := lastS + 1; j < len(st); j++ {
				if usedS[j] {
					continue
				}
				if j > lastS+1 && !usedS[j-1] && s.bufs[st[j-1]].Size == s.bufs[st[j]].Size {
					continue
				}
				usedS[j] = true
				next := cur
				next.starts = append(slices.Clone(cur.starts), st[j])
				stop := build(next, diff-s.bufs[st[j]].Size, lastB, j)
				usedS[j] = false
				if stop {
					return true
				}
			}
			return false
		}
		for m := lastB + 1; m < len(blocks); m++ {
			if usedB[m] {
				continue
			}
			usedB[m] = true
			next := cur
			next.ends = append(slices.Clone(cur.ends), blocks[m]...)
			stop := build(next, diff+tot[m], m, lastS)
			usedB[m] = false
			if stop {
				return true
			}
		}
		return false
	}
	next()
	return out
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
	for k, sw := range opts {
		n := t
		if len(sw) > 0 {
			n = t.clone()
			n.relabel(sw[0][0], sw[0][1])
		}
		s.stamp++
		stamp := s.stamp
		for _, b := range s.ends[i] {
			s.mark[b] = stamp
		}
		count[k] = len(n.blocks(func(b int32) bool { return s.mark[b] == stamp }))
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
