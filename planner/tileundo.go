package planner

// The tiling sweep's backward pass (tilesweep.go): from the trees and
// groupings of the boundaries to offsets.

import (
	"cmp"
	"slices"
)

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
		blk, ok := t.reduce(s.in(grp.ends), int32(len(grp.ends)))
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
