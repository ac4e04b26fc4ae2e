package planner

// Groupings of one boundary of the tiling sweep (tilesweep.go): the
// partitions of its blocks and the ways to share its starters out.

import (
	"cmp"
	"maps"
	"slices"
)

// group tries the groupings of boundary i over tree t: its enders fall
// into blocks that every order keeps adjacent (pqTree.blocks), and a
// grouping joins whole blocks (a group that takes part of a block does
// no better than one that takes all of it: the block is adjacent anyway,
// and more starters in one hole allow more orders). Partitions of the
// blocks come finest first; for each, the ways to share the starters out
// at the groups' totals.
func (s *tileSweep) group(i int, t *pqTree) bool {
	ends, starts := s.ends[i], s.starts[i]
	blocks := t.blocks(s.in(ends))
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

// starterNode is apply's fill for a search: a P-node of the starters.
func starterNode(n *pqTree, starts []int32) int32 {
	kids := make([]int32, len(starts))
	for k, b := range starts {
		kids[k] = n.leaf(b)
	}
	return n.pnode(kids)
}
