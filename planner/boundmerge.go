package planner

// Boundary blocks: the second renewal route's reduction (renew.go), built
// bottom up from every step boundary of a perfect instance.
//
// At an arena of LB the bytes freed by the buffers that end at a boundary
// are exactly the bytes taken by those that start there. Where all of
// them belong to one block of the tiling cut in time at that step, the
// block holds every ender and every starter, and its height is the
// enders' total. So each boundary proposes a rectangle: its enders and
// starters given, the height their total, from the first ender's start to
// the last starter's end, filled out by other buffers that live within
// those steps (flowRect, with the given ones decided in). A rectangle
// that the cuts tile at its height becomes one block. The next round sees
// the blocks as buffers, so later rounds build blocks of blocks; the
// shortest rectangles go first, and the merging stops when a round finds
// none or the time is up.
//
// Where several blocks of the tiling are cut at one step, the boundary
// proposes a mixture of them, and a block need not be part of any
// placement at LB; the search keeps the best of the routes' placements
// and the cuts'. On packable instances the much smaller instance that is
// left gives the search far less room to waste (docs/BENCHMARKS.md,
// issue 18).
//
// Example (TestBoundaryMergeWorkedExample): a [0,2) 2 B, b [0,1) 2 B,
// c [1,3) 2 B, d [2,3) 2 B; live total 4 at every step. Boundary 1
// proposes b and c over [0,3) at 2 B: b, then c, make 2 B at every step,
// so no other buffer is needed. Boundary 2 proposes a and d likewise.
// Two blocks of [0,3) x 2 B are left, and no boundary has both an ender
// and a starter: the merging stops.

import (
	"cmp"
	"context"
	"slices"
)

// boundRectNodes bounds the flow search of one proposed rectangle.
const boundRectNodes = 20_000

// boundItem is a buffer of the reduced instance: a block or an original
// buffer, with its members (positions in the instance) and their offsets
// within it.
type boundItem struct {
	b   Buffer
	mem []int
	off []int64
}

// boundCand is a boundary's proposed rectangle: [from, to) at height h,
// holding given (items that end or start at t).
type boundCand struct {
	t, from, to, h int64
	given          []int
}

// boundaryMerge returns bufs (perfect) with the rectangles found as
// above merged into blocks, a function that turns a placement of those
// into one of bufs, and the number of blocks. With none it returns bufs
// itself.
func boundaryMerge(ctx context.Context, bufs []Buffer) ([]Buffer, func([]int64) []int64, int) {
	items := make([]boundItem, len(bufs))
	for i, b := range bufs {
		items[i] = boundItem{b: b, mem: []int{i}, off: []int64{0}}
	}
	for ctx.Err() == nil {
		next, merged := boundaryRound(ctx, items)
		if merged == 0 {
			break
		}
		items = next
	}
	if len(items) == len(bufs) {
		return bufs, slices.Clone[[]int64], 0
	}
	red := make([]Buffer, len(items))
	mem := make([][]int, len(items))
	off := make([][]int64, len(items))
	blocks := 0
	for k, it := range items {
		red[k] = it.b
		red[k].ID = int64(k)
		mem[k], off[k] = it.mem, it.off
		if len(it.mem) > 1 {
			blocks++
		}
	}
	expand := blockExpand(len(bufs), mem, off)
	return red, expand, blocks
}

// boundaryCands returns each boundary's proposed rectangle, shortest
// first (then by step).
func boundaryCands(items []boundItem) []boundCand {
	ends := map[int64][]int{}
	starts := map[int64][]int{}
	for k, it := range items {
		ends[it.b.End] = append(ends[it.b.End], k)
		starts[it.b.Start] = append(starts[it.b.Start], k)
	}
	var cands []boundCand
	for t, enders := range ends {
		starters := starts[t]
		if len(starters) == 0 {
			continue
		}
		c := boundCand{t: t, from: t, to: t}
		for _, k := range enders {
			c.h += items[k].b.Size
			c.from = min(c.from, items[k].b.Start)
		}
		for _, k := range starters {
			c.to = max(c.to, items[k].b.End)
		}
		c.given = slices.Concat(enders, starters)
		cands = append(cands, c)
	}
	slices.SortFunc(cands, func(a, b boundCand) int {
		return cmp.Or(cmp.Compare(a.to-a.from, b.to-b.from), cmp.Compare(a.t, b.t))
	})
	return cands
}

// boundaryRound merges the rectangles of one round, each item into one
// block at most. It returns the items after it (new blocks first) and
// how many blocks it made.
func boundaryRound(ctx context.Context, items []boundItem) ([]boundItem, int) {
	bs := make([]Buffer, len(items))
	for k, it := range items {
		bs[k] = it.b
	}
	byStart := identity(len(items))
	slices.SortFunc(byStart, func(x, y int) int { return cmp.Compare(bs[x].Start, bs[y].Start) })
	used := make([]bool, len(items))
	given := make([]bool, len(items))
	var next []boundItem
	for _, c := range boundaryCands(items) {
		if ctx.Err() != nil {
			break
		}
		if slices.ContainsFunc(c.given, func(k int) bool { return used[k] }) {
			continue
		}
		w := slices.Clone(c.given)
		for _, k := range c.given {
			given[k] = true
		}
		q, _ := slices.BinarySearchFunc(byStart, c.from, func(k int, t int64) int { return cmp.Compare(bs[k].Start, t) })
		for ; q < len(byStart) && bs[byStart[q]].Start < c.to; q++ {
			if k := byStart[q]; !used[k] && !given[k] && bs[k].End <= c.to {
				w = append(w, k)
			}
		}
		for _, k := range c.given {
			given[k] = false
		}
		r := flowRect(ctx, bs, w, c.from, c.to, c.h, len(c.given), boundRectNodes)
		bl, ok := tileRectangle(ctx, bs, r, c.h, false)
		if !ok {
			continue
		}
		blk := boundItem{b: Buffer{Start: c.from, End: c.to, Size: c.h}}
		for q, k := range bl.members {
			used[k] = true
			for j, m := range items[k].mem {
				blk.mem = append(blk.mem, m)
				blk.off = append(blk.off, bl.off[q]+items[k].off[j])
			}
		}
		next = append(next, blk)
	}
	merged := len(next)
	for k, it := range items {
		if !used[k] {
			next = append(next, it)
		}
	}
	return next, merged
}
