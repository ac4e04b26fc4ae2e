package planner

// The orders in which the tiling sweep (tilesweep.go) tries the
// groupings of a boundary of several blocks: evidence (a unique finest
// grouping), strong groups.

import (
	"slices"
)

// evidence weighs the groupings that finest finds (each group closed as
// soon as it balances; up to tileFinestMax of them): of those with the
// most groups, and of those the ones whose groups mix the fewest parents
// in the tree, a single one left is evidence of the tiling (sizes that
// particular rarely balance by chance) and goes first, then one hole for
// everything; when several are left, many small buffers balance by
// chance, and one hole goes first, then they.
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
		return s.tryGroups(i, t, all)
	}
	// join adds blocks after position k to the group until it reaches
	// want (the one starter's size), fewest blocks first by recursion
	// order: the group so far is cur.
	var join func(k, from int, want int64, cur tileGroup) bool
	join = func(k, from int, want int64, cur tileGroup) bool {
		if !s.tick() { // the sets of blocks that make up a size can be many
			return false
		}
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
