package planner

// Guillotine cuts: the search's first step on perfect instances
// (isPerfect), before the tiling search of perfect.go.
//
// It cuts the instance apart and places the pieces alone: across time
// where no buffer is live over a step boundary, and across bytes into
// bands, subsets whose live total is the same at every step (guilband.go
// finds them). Each cut is sound on any perfect instance: each side is
// perfect again, and placements of the two, one above the other or one
// after the other, fill the arena. Where the instance was itself cut that
// way (the packable instances are) a few cuts leave pieces of a handful of
// buffers. A piece is placed by, in order:
//
//   - cuts in time: its independent parts, each alone, side by side;
//   - the buffers live over its whole span: stacked at its bottom;
//   - the tiling search (small pieces, under a node limit);
//   - a band: the band at the bottom, the rest above it, each alone;
//   - otherwise the fallback (the search of search.go, without cuts),
//     which may need more than the piece's live total: everything above
//     it moves up by as much.
//
// No cut is taken back: a band that was a coincidence of sizes, not part
// of any placement at LB, costs a fallback further down, not a search
// over the bands.
//
// Example: a [0,2) 4 B; b [0,1) 4 B; c [1,2) 4 B; arena 8. No step
// boundary is free (a is live over step 1) and a spans the whole: a is
// stacked at 0. The rest, b and c, are cut at step 1: b at 4, c at 4.

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"sync/atomic"
)

// guilTileMax is the most buffers of a piece that the tiling search
// tries, under guilTileNodes nodes per buffer; a band search gets
// guilBandNodes nodes per buffer of the piece, at least guilBandMin.
const (
	guilTileMax   = 256
	guilTileNodes = 1000
	guilBandNodes = 2000
	guilBandMin   = 10_000
)

// guilSearch is one run of the cuts.
type guilSearch struct {
	ctx      context.Context
	bufs     []Buffer
	off      []int64
	nodes    int64
	abort    bool
	fallback func(sub []Buffer) []int64
	missed   int  // pieces the fallback placed
	bySize   bool // pivots by size (else by the buffers at their boundaries)
	memo     map[uint64]guilMemo
	exact    atomic.Int64 // buffers placed at the piece's live total so far (progress)
	perBand  int64        // band search nodes per buffer of a piece (0: guilBandNodes)
	flow     bool         // where the band search finds none, the flow band search (flowband.go)
}

// guilOpts are guillotinePlaceShared's options: a status to follow the
// runs (nil for none), the band search's nodes per buffer of a piece
// (0: guilBandNodes), and whether the flow band search follows it.
type guilOpts struct {
	status  *guilStatus
	perBand int64
	flow    bool // the flow band search after the band search (flowband.go)
}

// guilStatus is what a run of the cuts has done so far, for the search's
// progress lines, read while the run goes on: the buffers placed exactly
// (stacked over a piece's whole span or tiled; the larger count of the
// two pivot orders while both run) and whether a piece's fallback is
// running (it prints lines of its own).
type guilStatus struct {
	mu       sync.Mutex
	tries    []*guilSearch
	fallback atomic.Bool
}

// exact returns the most buffers any run has placed exactly so far.
func (st *guilStatus) exact() int64 {
	st.mu.Lock()
	defer st.mu.Unlock()
	var n int64
	for _, g := range st.tries {
		n = max(n, g.exact.Load())
	}
	return n
}

// watch adds a run to those exact reads.
func (st *guilStatus) watch(g *guilSearch) {
	if st == nil {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.tries = append(st.tries, g)
}

// guilMemo is what the tiling and band searches found for one piece, kept
// for the run that repeats the chosen pivot order with the real fallback:
// the pieces come again, in the same order, and their searches need not.
type guilMemo struct {
	set   []int   // the piece (to tell hash collisions apart)
	tiled []int64 // the tiling search's offsets, or nil
	band  []int   // the band found, or nil
	bandH int64
}

// memoKey hashes a piece (FNV-1a over its positions).
func memoKey(set []int) uint64 {
	h := uint64(14695981039346656037)
	for _, i := range set {
		h = (h ^ uint64(i)) * 1099511628211
	}
	return h
}

// guillotinePlace places bufs (a perfect instance of live total lb) by
// cuts; pieces without a cut go to fallback, which must return valid
// offsets for them. It returns the offsets, the nodes visited and the
// number of pieces the fallback placed (0: the arena is lb).
//
// The bands depend on the order pivots are tried in: each order runs with
// the portfolio for the pieces without a cut, and the one that leaves the
// fewest buffers without a cut (then the smaller arena) runs again with
// fallback for them; that run takes the tiling and band searches' results
// from the first (guilMemo), so only the fallback's work is new. The two
// orders run side by side, each on its own goroutine (their searches are
// bounded by nodes, so the result does not depend on which ends first);
// when the size order places everything, the other one is stopped.
func guillotinePlace(ctx context.Context, bufs []Buffer, lb int64, fallback func([]Buffer) []int64) ([]int64, int64, int) {
	return guillotinePlaceShared(ctx, bufs, lb, func(sub []Buffer, _ float64) []int64 { return fallback(sub) }, guilOpts{})
}

// guillotinePlaceShared is guillotinePlace with each piece's share of
// the fallback's work passed to it: the piece's buffers over those of the
// pieces without a cut still to come (guilShares), so that the fallback
// can take that share of the time left (the search gives it all of its
// time but a tenth that way).
func guillotinePlaceShared(ctx context.Context, bufs []Buffer, lb int64, fallback func(sub []Buffer, share float64) []int64, o guilOpts) ([]int64, int64, int) {
	st, perBand, flow := o.status, o.perBand, o.flow
	type try struct {
		g     *guilSearch
		left  int // buffers in pieces without a cut
		arena int64
	}
	orders := []bool{true, false} // pivots by size, then by boundary buffers
	tries := make([]try, len(orders))
	octx, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	for k, bySize := range orders {
		t := &tries[k]
		c := ctx
		if k > 0 {
			c = octx
		}
		t.g = &guilSearch{ctx: c, bufs: bufs, off: make([]int64, len(bufs)), bySize: bySize, memo: map[uint64]guilMemo{}, perBand: perBand, flow: flow,
			fallback: func(sub []Buffer) []int64 { t.left += len(sub); return portfolioOffsets(sub) }}
		st.watch(t.g)
		wg.Go(func() {
			t.g.cut(identity(len(bufs)), 0, lb)
			t.arena = ArenaSize(bufs, t.g.off)
			if k == 0 && t.g.missed == 0 {
				stop()
			}
		})
	}
	wg.Wait()
	var nodes int64
	best := -1
	for k := range tries {
		t := &tries[k]
		nodes += t.g.nodes
		if t.g.missed == 0 {
			return t.g.off, nodes, 0
		}
		if best < 0 || t.left < tries[best].left || (t.left == tries[best].left && t.arena < tries[best].arena) {
			best = k
		}
	}
	share := guilShares(tries[best].left)
	g := &guilSearch{ctx: ctx, bufs: bufs, off: make([]int64, len(bufs)), bySize: orders[best], memo: tries[best].g.memo, perBand: perBand, flow: flow,
		fallback: func(sub []Buffer) []int64 {
			if st != nil {
				st.fallback.Store(true)
				defer st.fallback.Store(false)
			}
			return fallback(sub, share(len(sub)))
		}}
	st.watch(g)
	g.cut(identity(len(bufs)), 0, lb)
	return g.off, nodes + g.nodes, g.missed
}

// portfolioOffsets places a piece with the portfolio (the cuts' quick
// fallback).
func portfolioOffsets(sub []Buffer) []int64 {
	off, err := Portfolio().Place(context.Background(), sub)
	if err != nil { // cannot happen: the buffers were validated
		return stackOffsets(sub)
	}
	return off
}

// guilShares returns the shares of the pieces without a cut, called in
// turn with each piece's buffers: the piece over the buffers of pending
// pieces (first all of them), at most 1. The pieces are those of the run
// that chose the pivot order; the run with the fallback repeats them,
// unless a search that ran out of time there makes more, and those get
// all that is left.
func guilShares(pending int) func(n int) float64 {
	return func(n int) float64 {
		share := float64(n) / float64(max(pending, n, 1))
		pending -= n
		return share
	}
}

// identity returns 0, 1, ..., n-1.
func identity(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// tick counts a node; false once ctx ends the run.
func (g *guilSearch) tick() bool {
	g.nodes++
	if g.nodes%perfectCheckEvery == 0 && g.ctx.Err() != nil {
		g.abort = true
	}
	return !g.abort
}

// cut places set (live total c at every step of its span) from base and
// returns the height it used (c where no fallback was needed).
func (g *guilSearch) cut(set []int, base, c int64) int64 {
	if len(set) == 0 {
		return 0
	}
	bufs := g.bufs
	slices.SortFunc(set, func(x, y int) int {
		if d := cmp.Compare(bufs[x].Start, bufs[y].Start); d != 0 {
			return d
		}
		return x - y
	})
	// Cuts in time.
	var reach, height int64
	from := 0
	for k, i := range set {
		if k > 0 && bufs[i].Start >= reach {
			height = max(height, g.cut(slices.Clone(set[from:k]), base, c))
			from = k
		}
		reach = max(reach, bufs[i].End)
	}
	if from > 0 {
		return max(height, g.cut(slices.Clone(set[from:]), base, c))
	}
	// Buffers over the whole span go to the bottom.
	first := bufs[set[0]].Start
	var rest []int
	for _, i := range set {
		if bufs[i].Start == first && bufs[i].End == reach {
			g.off[i] = base + height
			height += bufs[i].Size
			g.exact.Add(1)
		} else {
			rest = append(rest, i)
		}
	}
	if len(rest) < len(set) {
		return height + g.cut(rest, base+height, c-height)
	}
	mm := g.search(set, c)
	if mm.tiled != nil {
		for k, i := range set {
			g.off[i] = base + mm.tiled[k]
		}
		g.exact.Add(int64(len(set)))
		return c
	}
	if mm.band != nil {
		in := make(map[int]bool, len(mm.band))
		for _, i := range mm.band {
			in[i] = true
		}
		rest = rest[:0]
		for _, i := range set {
			if !in[i] {
				rest = append(rest, i)
			}
		}
		h := g.cut(slices.Clone(mm.band), base, mm.bandH)
		return h + g.cut(rest, base+h, c-mm.bandH)
	}
	g.missed++
	sub := g.sub(set)
	off := g.fallback(sub)
	for k, i := range set {
		g.off[i] = base + off[k]
	}
	return ArenaSize(sub, off)
}

// search runs the tiling search (small pieces) and then the band search
// on a piece without a cut in time, or takes what an earlier run of the
// same order found (g.memo); an entry is kept only where no search was
// cut short by ctx.
func (g *guilSearch) search(set []int, c int64) guilMemo {
	key := memoKey(set)
	if m, ok := g.memo[key]; ok && slices.Equal(m.set, set) {
		return m
	}
	m := guilMemo{set: slices.Clone(set)}
	if len(set) <= guilTileMax && !g.abort {
		ts := newPerfectSearch(g.ctx, g.sub(set), c, guilTileNodes*int64(len(set)))
		off, nodes := ts.run()
		g.nodes += nodes
		if off != nil {
			m.tiled = off
			g.keep(key, m)
			return m
		}
	}
	if g.abort || g.ctx.Err() != nil {
		return m
	}
	per := g.perBand
	if per <= 0 {
		per = guilBandNodes
	}
	b := newGuilBand(g, set, c, g.nodes+max(per*int64(len(set)), guilBandMin))
	if b.run() {
		m.band, m.bandH = b.found, b.foundH
	} else if g.flow && !g.abort && g.ctx.Err() == nil {
		band, h, nodes := flowBand(g.ctx, g.sub(set), c)
		g.nodes += nodes
		for k := range band {
			band[k] = set[band[k]]
		}
		m.band, m.bandH = band, h
	}
	if !g.abort && g.ctx.Err() == nil {
		g.keep(key, m)
	}
	return m
}

// sub returns the buffers of set as an instance of their own (IDs are
// positions in set).
func (g *guilSearch) sub(set []int) []Buffer {
	sub := make([]Buffer, len(set))
	for k, i := range set {
		sub[k] = g.bufs[i]
		sub[k].ID = int64(k)
	}
	return sub
}

// keep records m under key when the run has a memo.
func (g *guilSearch) keep(key uint64, m guilMemo) {
	if g.memo != nil {
		g.memo[key] = m
	}
}
