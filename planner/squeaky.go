package planner

// Squeaky-wheel optimisation for mid-size instances (search.go).
//
// The exact search stalls on mid-size instances (hundreds to thousands of
// buffers) whose optimum is far below every greedy order: it proves little
// and finds nothing below the portfolio. Squeaky-wheel optimisation
// searches the space of greedy orders instead, with a cheap repeated
// placement as the evaluation (squeakyShare says on which instances the
// search strategy runs it, and for how long):
//
//  1. Give every buffer a priority: its rank in size order (largest
//     highest).
//  2. Place the buffers first-fit in priority order (placeInOrder through
//     the time index) and keep the placement if it is the smallest so far.
//  3. Every buffer whose top ends above the lower bound is a squeaky wheel:
//     its priority grows by swoAlpha x n x (its excess over LB / the
//     arena's excess), times a random factor in [1, 1+swoNoise). Re-sort
//     and go to 2.
//
// The offenders rise in the order pass after pass until they are placed
// before the buffers that pushed them up; the noise keeps passes from
// cycling. swoStreams independent streams (their own generators, seeded
// with srchSeed and the stream number) run side by side, each for a fixed
// number of passes; the smallest arena wins, ties to the lower stream. With
// the pass count fixed the result does not depend on the machine; the time
// budget only ends the passes early.
//
// Measured on the packable instances (planner/testdata/packable), each pass
// costs 0.1 ms (250 buffers) to 7 ms (5,000 buffers); the figures are in
// docs/BENCHMARKS.md.

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
	"sync"
)

const (
	swoAlpha   = 0.05 // priority step, in units of n, for the highest offender
	swoNoise   = 0.5  // relative noise of each step
	swoStreams = 2    // independent streams, run side by side
	// swoMinFree and swoMaxFree bound the free buffers of the instances
	// the search strategy runs it on.
	swoMinFree = 100
	swoMaxFree = 20_000
	// swoPasses is the number of passes of each stream in a search run.
	swoPasses = 20_000
)

// squeakyShare returns the share of the time left, as a divisor (0:
// none), that the search strategy gives squeaky-wheel passes on an
// instance of free buffers (perfect: every step at LB, as the pieces the
// guillotine cuts leave are): half on perfect ones from swoMinFree up,
// where the exact search proves little, and above srchExactMax, where it
// cannot take the instance whole; an eighth below that, where the exact
// search keeps the rest. Half there left challenging A, B, E and H above
// LB, which the exact search proves within a 10 s budget; none at all
// left it without an upper bound better than the portfolio's for its
// bisection, and challenging D sometimes above MiniMalloc's arena
// (docs/BENCHMARKS.md, issue 18).
func squeakyShare(free int, perfect bool) int {
	switch {
	case free < swoMinFree || free > swoMaxFree:
		return 0
	case perfect || free > srchExactMax:
		return 2
	default:
		return 8
	}
}

// swoResult is the best placement of one stream.
type swoResult struct {
	off   []int64
	arena int64
}

// squeaky runs up to passes passes of squeaky-wheel optimisation in each of
// m.streams streams (swoStreams when 0; passes end early when m.stop()
// ends them) and keeps the best placement when it beats m.best.
func (m *srchMin) squeaky(passes int) {
	if m.arena <= m.lb {
		return
	}
	res := make([]swoResult, cmp.Or(m.streams, swoStreams))
	var wg sync.WaitGroup
	for s := range res {
		wg.Go(func() { res[s] = m.swoStream(uint64(s), passes) })
	}
	wg.Wait()
	for _, r := range res {
		if r.off != nil && r.arena < m.arena {
			m.accept(r.off, "search/squeaky")
		}
	}
}

// swoStream is one stream of squeaky-wheel passes.
func (m *srchMin) swoStream(stream uint64, passes int) swoResult {
	bufs := m.bufs
	n := len(bufs)
	order := (&orderPlacer{less: bySize}).order(bufs)
	prio := make([]float64, n)
	for r, i := range order {
		prio[i] = float64(n - r)
	}
	rng := rand.New(rand.NewPCG(srchSeed, stream))
	best := swoResult{arena: m.arena}
	ctx := context.WithoutCancel(m.ctx)
	if err := validateBuffers(bufs); err != nil {
		return best
	}
	// One index and one offsets slice for all the passes (reset each
	// time); a pass that beats the best so far is copied out.
	ix := newTimeIndex(bufs)
	off := make([]int64, n)
	for p := 0; p < passes && !m.stop(); p++ {
		if p > 0 {
			ix.reset()
		}
		if _, err := placeWith(ctx, ix, off, bufs, order, firstFit, nil); err != nil {
			break
		}
		a := ArenaSize(bufs, off)
		if a < best.arena {
			best = swoResult{off: slices.Clone(off), arena: a}
			for cur := m.swoBest.Load(); (cur == 0 || a < cur) && !m.swoBest.CompareAndSwap(cur, a); cur = m.swoBest.Load() {
			}
		}
		if a <= m.lb {
			break
		}
		excess := float64(a - m.lb)
		for i := range bufs {
			if top := off[i] + bufs[i].Size; !bufs[i].Fixed && top > m.lb {
				prio[i] += float64(n) * swoAlpha * (1 + swoNoise*rng.Float64()) * float64(top-m.lb) / excess
			}
		}
		slices.SortFunc(order, func(x, y int) int {
			if c := cmp.Compare(prio[y], prio[x]); c != 0 {
				return c
			}
			return x - y
		})
	}
	return best
}
