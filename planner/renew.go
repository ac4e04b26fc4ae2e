package planner

// Renewal blocks: the search's second route on a perfect instance
// (isPerfect) that the guillotine cuts leave above LB.
//
// Where a band of a perfect instance is cut in time, its height is a
// subset sum of the sizes that end at that step and of those that start
// there: the band renews. For a tall band that is rare anywhere else
// (TestPackableP5000Crux), so the heights that renew at noticeably more
// steps than the heights around them are taken for tall bands, and their
// renewal steps for the band's cuts. Between two such steps the band
// search (guilband.go) looks for a rectangle: buffers of the segment
// whose live total is that height at every step. A rectangle that the
// cuts tile at that height becomes one block, and the search places the
// smaller instance, on a goroutine of its own beside the cuts' pieces;
// each block's buffers go where the block goes.
//
// A block need not be part of any placement at LB (a rectangle can mix
// bands that only match by sizes), so the route can end above the cuts:
// the search keeps the better of the two. On packable p5000 the blocks
// leave the piece without a band much easier to place
// (docs/BENCHMARKS.md, issue 18).
//
// Example (TestRenewalWorkedExample): a [0,2) 4 B, b [2,4) 4 B, c [0,1)
// 2 B, d [0,1) 2 B, e [1,4) 4 B; live total 8 at every step. 4 B renews
// at step 1 (c and d end, e starts) and at step 2 (a ends, b starts); 2 B
// and 6 B renew nowhere. Two steps are not three more than the heights
// around it renew at (none), so no height is taken and the instance
// stays as it is: on so few steps the signal says nothing.

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"time"
)

// renewMinScore, renewMaxSteps and renewMaxHeights select the heights: at
// least renewMinScore more renewal steps than the median of the 64
// heights around (32 units either side), at most renewMaxSteps steps, and
// the renewMaxHeights largest of those. renewRectNodes bounds the band
// search of one segment; renewMaxUnits the live total in units of the
// sizes' gcd, renewMaxWork the steps times those units (the count's
// cost).
const (
	renewMinScore   = 3
	renewMaxSteps   = 24
	renewMaxHeights = 12
	renewRectNodes  = 200_000
	renewMaxUnits   = 1 << 16
	renewMaxWork    = 200_000_000
)

// renewalHeights returns the heights of a perfect instance (live total c)
// taken for tall bands, largest first, with the steps where each renews.
func renewalHeights(bufs []Buffer, c int64) ([]int64, [][]int64) {
	var unit int64
	for _, b := range bufs {
		unit = gcd64(unit, b.Size)
	}
	if unit <= 0 || c/unit > renewMaxUnits {
		return nil, nil
	}
	ends := map[int64][]int64{}
	starts := map[int64][]int64{}
	for _, b := range bufs {
		ends[b.End] = append(ends[b.End], b.Size/unit)
		starts[b.Start] = append(starts[b.Start], b.Size/unit)
	}
	var times []int64
	for t := range ends {
		if _, ok := starts[t]; ok {
			times = append(times, t)
		}
	}
	top := int(c / unit)
	if int64(len(times))*int64(top) > renewMaxWork {
		return nil, nil
	}
	slices.Sort(times)
	both := make([]*big.Int, len(times))
	count := make([]int, top+1)
	for k, t := range times {
		both[k] = new(big.Int).And(subsetSums(ends[t]), subsetSums(starts[t]))
		for h := 1; h < top; h++ {
			if both[k].Bit(h) == 1 {
				count[h]++
			}
		}
	}
	var heights []int64
	var steps [][]int64
	around := make([]int, 0, 64)
	for h := top - 1; h >= 1 && len(heights) < renewMaxHeights; h-- {
		if count[h] < 2 || count[h] > renewMaxSteps {
			continue
		}
		around = around[:0]
		for x := max(h-32, 1); x <= min(h+32, top-1); x++ {
			if x != h {
				around = append(around, count[x])
			}
		}
		slices.Sort(around)
		if count[h]-around[len(around)/2] < renewMinScore {
			continue
		}
		var at []int64
		for k, t := range times {
			if both[k].Bit(h) == 1 {
				at = append(at, t)
			}
		}
		heights = append(heights, int64(h)*unit)
		steps = append(steps, at)
	}
	return heights, steps
}

// subsetSums returns the sums of subsets of sizes as a bit set: bit x is
// set when some of them add up to x.
func subsetSums(sizes []int64) *big.Int {
	r := big.NewInt(1)
	for _, s := range sizes {
		r.Or(r, new(big.Int).Lsh(r, uint(s)))
	}
	return r
}

// rectangleOf looks for buffers among bufs[w] whose live total is h at
// every step of [from, to), by the band search: two sentinel buffers of h
// just before and after the segment make its ends count, and the buffers
// too large for the rest of the instance (live total c) are decided in.
// It returns their positions in bufs, or nil.
func rectangleOf(ctx context.Context, bufs []Buffer, w []int, from, to, h, c int64) []int {
	n := len(w)
	sub := make([]Buffer, 0, n+2)
	for k, i := range w {
		b := bufs[i]
		b.ID = int64(k)
		sub = append(sub, b)
	}
	sub = append(sub, Buffer{ID: int64(n), Start: from - 1, End: from, Size: h},
		Buffer{ID: int64(n + 1), Start: to, End: to + 1, Size: h})
	g := &guilSearch{ctx: ctx, bufs: sub}
	b := newGuilBand(g, identity(len(sub)), 1<<62, renewRectNodes)
	for k := range sub {
		if (k >= n || sub[k].Size > c-h) && b.dec[k] == 0 && slices.Contains(b.at[b.sb[k]], k) {
			b.decideClass(k, 1)
		}
	}
	if ok, _ := b.dfs(); !ok {
		return nil
	}
	var out []int
	for _, k := range b.found {
		if k < n {
			out = append(out, w[k])
		}
	}
	return out
}

// renewBlock is a rectangle merged into one buffer: its members
// (positions in the instance) and their offsets within it.
type renewBlock struct {
	members  []int
	off      []int64
	from, to int64
	h        int64
}

// renewalMerge returns bufs (perfect, live total c) with the rectangles
// found under renewalHeights' heights as blocks (after the buffers left
// alone, in order), a function that turns a placement of those into one
// of bufs, and the blocks. With no block it returns bufs itself.
func renewalMerge(ctx context.Context, bufs []Buffer, c int64, flow bool) ([]Buffer, func([]int64) []int64, []renewBlock) {
	if len(bufs) == 0 {
		return bufs, slices.Clone[[]int64], nil
	}
	var blocks []renewBlock
	used := make([]bool, len(bufs))
	first, last := bufs[0].Start, bufs[0].End
	for _, b := range bufs {
		first, last = min(first, b.Start), max(last, b.End)
	}
	heights, steps := renewalHeights(bufs, c)
	for k, h := range heights {
		pts := slices.Compact(slices.Concat([]int64{first}, steps[k], []int64{last}))
		for j := 0; j+1 < len(pts) && ctx.Err() == nil; j++ {
			var w []int
			for i, b := range bufs {
				if !used[i] && b.Start >= pts[j] && b.End <= pts[j+1] {
					w = append(w, i)
				}
			}
			bl, ok := tileRectangle(ctx, bufs, rectangleOf(ctx, bufs, w, pts[j], pts[j+1], h, c), h, flow)
			if !ok && flow {
				bl, ok = tileRectangle(ctx, bufs, flowRect(ctx, bufs, w, pts[j], pts[j+1], h, 0, 0), h, flow)
			}
			if ok {
				bl.from, bl.to = pts[j], pts[j+1]
				for _, i := range bl.members {
					used[i] = true
				}
				blocks = append(blocks, bl)
			}
		}
	}
	if len(blocks) == 0 {
		return bufs, slices.Clone[[]int64], nil
	}
	var red []Buffer
	var mem [][]int // per buffer of red: its buffers in bufs, and their offsets in it
	var off [][]int64
	for i, b := range bufs {
		if !used[i] {
			b.ID = int64(len(red))
			red = append(red, b)
			mem, off = append(mem, []int{i}), append(off, []int64{0})
		}
	}
	for _, bl := range blocks {
		red = append(red, Buffer{ID: int64(len(red)), Start: bl.from, End: bl.to, Size: bl.h})
		mem, off = append(mem, bl.members), append(off, bl.off)
	}
	expand := blockExpand(len(bufs), mem, off)
	return red, expand, blocks
}

// blockExpand returns the function that turns a placement of a reduced
// instance into one of its n buffers: the reduced instance's buffer k
// holds the buffers mem[k], at off[k] within it.
func blockExpand(n int, mem [][]int, off [][]int64) func([]int64) []int64 {
	return func(ro []int64) []int64 {
		out := make([]int64, n)
		for k, ms := range mem {
			for q, m := range ms {
				out[m] = ro[k] + off[k][q]
			}
		}
		return out
	}
}

// tileRectangle places the rectangle r (positions in bufs, live total h)
// by the cuts at h, or reports false (fewer than two buffers, not
// perfect at h, or a piece without a cut).
func tileRectangle(ctx context.Context, bufs []Buffer, r []int, h int64, flow bool) (renewBlock, bool) {
	if len(r) < 2 {
		return renewBlock{}, false
	}
	sub := make([]Buffer, len(r))
	for q, i := range r {
		sub[q] = bufs[i]
		sub[q].ID = int64(q)
	}
	if !isPerfect(sub, h) {
		return renewBlock{}, false
	}
	tiled := true
	off, _, _ := guillotinePlaceShared(ctx, sub, h, func(x []Buffer, _ float64) []int64 { tiled = false; return stackOffsets(x) }, guilOpts{flow: flow})
	if !tiled || ctx.Err() != nil {
		return renewBlock{}, false
	}
	return renewBlock{members: r, off: off, h: h}, true
}

// srchRenew is the renewal routes: searches of the instance with its
// renewal blocks (renewalMerge's results), and with its boundary blocks
// as well (boundaryMerge's), running beside the cuts' pieces.
type srchRenew struct {
	cancel context.CancelFunc // ends the routes early
	routes []*srchRoute
}

// srchRoute is one renewal route's search.
type srchRoute struct {
	name   string
	expand func([]int64) []int64 // a placement of its instance to one of the instance
	done   chan struct{}         // closed when it has ended
	res    *SearchResult         // its result, once done (nil on error or with no blocks)
}

// boundShare: the boundary blocks take at most 1/boundShare of the time
// the route has.
const boundShare = 4

// renewal finds the renewal blocks, once, when the cuts first leave a
// piece without a band that is too small to merge (pieceSearch; the
// search strategy only: not under a work cap, nor in a route's own
// search), by the deadline. Then the routes start,
// each on a goroutine of its own, until the deadline: where there are
// renewal blocks, the search on the instance with them; and with the flow
// searches on (flowBands), the boundary blocks (boundmerge.go) of that
// instance, within a quarter of the time left, then, where there are
// some, the search on the smaller instance. Neither route's search makes
// renewal blocks of its own. The cuts' pieces keep all their time, no
// route waits for another, and a route that reaches LB ends the others
// and the cuts (docs/BENCHMARKS.md, issue 18).
func (m *srchMin) renewal() {
	if m.renew != nil || m.noRenew || m.workCap > 0 {
		return
	}
	ctx, cancel := context.WithDeadline(m.ctx, m.deadline)
	red, expand, blocks := renewalMerge(ctx, m.bufs, m.lb, m.flowBands)
	cancel()
	r := &srchRenew{}
	m.renew = r
	if m.stop() {
		return
	}
	merged := 0
	for _, b := range blocks {
		merged += len(b.members)
	}
	var rctx context.Context
	rctx, r.cancel = context.WithCancel(m.ctx)
	start := func(name, part string, run func(*srchRoute, SearchConfig)) {
		rt := &srchRoute{name: name, expand: expand, done: make(chan struct{})}
		r.routes = append(r.routes, rt)
		// No pair merges in a route's pieces: on packable p5000 the
		// route's result then depends on the merge seed, far worse with
		// most (docs/BENCHMARKS.md, issue 18).
		cfg := SearchConfig{noRenew: true, noMerge: true, end: m.end, flowBands: m.flowBands}
		if m.progress != nil {
			cfg.Progress = &partProgress{w: m.progress, part: part}
		}
		go func() {
			defer close(rt.done)
			run(rt, cfg)
		}()
	}
	search1 := func(rt *srchRoute, inst []Buffer, cfg SearchConfig) {
		if res, err := search(rctx, inst, cfg, max(time.Until(m.deadline), time.Millisecond), 0); err == nil { // search verifies what it returns
			rt.res = res
			if res.Arena <= m.lb { // the cuts and the other routes can do no better
				r.cancel()
				if m.cutsCancel != nil {
					m.cutsCancel()
				}
			}
		}
	}
	if len(blocks) > 0 {
		start("search/renewal", fmt.Sprintf("renewal blocks (%d buffers in %d): ", merged, len(blocks)), func(rt *srchRoute, cfg SearchConfig) {
			search1(rt, red, cfg)
		})
	}
	if !m.flowBands {
		return
	}
	start("search/boundaries", "boundary blocks: ", func(rt *srchRoute, cfg SearchConfig) {
		bctx, bcancel := context.WithDeadline(rctx, time.Now().Add(time.Until(m.deadline)/boundShare))
		red2, expand2, bounds := boundaryMerge(bctx, red)
		bcancel()
		if bounds == 0 {
			return
		}
		rt.expand = func(o []int64) []int64 { return expand(expand2(o)) }
		if cfg.Progress != nil {
			cfg.Progress = &partProgress{w: m.progress, part: fmt.Sprintf("boundary blocks (%d buffers left of %d): ", len(red2), len(m.bufs))}
		}
		search1(rt, red2, cfg)
	})
}

// renewed waits for the routes' searches (ending them first when the
// cuts reached LB: atLB), takes their placements where they are the best
// so far, and reports whether the arena is LB.
func (m *srchMin) renewed(atLB bool) bool {
	r := m.renew
	if r == nil || r.cancel == nil { // no route started
		return atLB
	}
	if atLB {
		r.cancel()
	}
	for _, rt := range r.routes {
		<-rt.done
	}
	r.cancel()
	if atLB {
		return true
	}
	for _, rt := range r.routes {
		if rt.res == nil {
			continue
		}
		m.nodes += rt.res.Nodes
		if m.accept(rt.expand(rt.res.Offsets), rt.name) && m.arena <= m.lb {
			m.proven = m.arena
		}
	}
	return m.arena <= m.lb
}
