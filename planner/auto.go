package planner

// The "auto" strategy, the default: the optimum where it is cheap to find,
// the portfolio's placement everywhere else, in time that grows with the
// instance and a result that does not depend on the machine.
//
// It runs in stages and stops at the first that reaches the lower bound LB
// (then the plan is optimal):
//
//  1. Quick: first-fit by size and first-fit in peak order (peak.go), side
//     by side. Both cost a fraction of a best-fit pass; on the XLA traces
//     Y_1 and G_1 the peak order alone reaches LB.
//  2. Portfolio: every member of the portfolio (portfolio.go) but
//     first-fit (stage 1 placed it), and best-fit in peak order, with the
//     quick stage's arena as the bound that stops losers early. Above
//     autoPortfolioMax buffers, where one best-fit pass costs seconds and
//     its index about 200 bytes a buffer, auto runs first-fit by size
//     alone, in two halves of time on two goroutines, each in pieces of
//     time (split.go), and returns it (on the synthetic ladder: 1.0056 x
//     LB at 1,000,000 buffers, the same arena as one pass).
//  3. Search: the exact search (search.go) from the best placement so far,
//     on instances of at most srchExactMax free buffers, under a work cap
//     (SearchConfig.Work) of autoWorkPerBuffer branches per buffer, at
//     least autoWorkMin and at most autoWorkMax, and a time cap of
//     autoTimeCap (Options.TimeBudget when set). The work cap, not the
//     clock, ends the run, so the plan is the same on a loaded machine;
//     the time cap only guards against a machine many times slower than
//     ours. Above srchExactMax buffers the stage runs the improvement's
//     peak order and peak fill instead (peak.go, peakfill.go; bounded by
//     node and branch limits, not the clock, the peak fill to sets of at
//     most peakFillCapped short buffers and one order each): real/S_1
//     reaches LB in about half a second. Stage 2 then runs its best-fit
//     in peak order to the end, free of the bound, and this stage takes
//     that placement instead of making it again. Perfect instances
//     (perfect.go) get the guillotine cuts first (guillotine.go), with
//     the band search under autoBandNodes nodes per buffer of a piece
//     and the portfolio for a piece without a band. At LB their
//     placement ends the stage (packable p1000: LB in about a second;
//     without the cuts auto stopped at 1.060 x LB); otherwise the stage
//     runs as it would without them and takes the cuts' placement at the
//     end if it is smaller (p5000: 1.256 instead of 1.293), so it is
//     never worse than without them.
//
// The rule in one line: above 200,000 buffers first-fit by size alone
// (split in time); otherwise the quick stage, then the portfolio; up to
// 3,000 free buffers an exact search of 4,000 branches per buffer,
// between half a million and 2 million, after the guillotine cuts on a
// perfect instance (on the challenging DSA suite,
// 150-450 buffers: 0.02-2.4 s at load 4 on the project's two-core
// machine, docs/BENCHMARKS.md).
//
// Worked example: densenet121 (191 buffers) gets 1.056 x LB from the
// portfolio; the search's first attempt at capacity LB succeeds after a few
// hundred branches, and the plan is LB, reported as "auto/search/exact".
// Ties between stages and members go to the earlier one, as in the
// portfolio.

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// AutoSplitAbove is the number of buffers above which auto only places
// first-fit by size in pieces of time (split.go): no portfolio, no
// search, and about 250 bytes a buffer live at the end.
const AutoSplitAbove = autoPortfolioMax

const (
	// autoPortfolioMax is the largest instance the portfolio stage runs on.
	autoPortfolioMax = 200_000
	// autoWorkPerBuffer, autoWorkMin and autoWorkMax set the search
	// stage's work cap (SearchConfig.Work, in branches): per buffer, and
	// its floor and ceiling (the floor lets small instances have a few
	// rounds of attempts with every order).
	autoWorkPerBuffer = 4_000
	autoWorkMin       = 500_000
	autoWorkMax       = 2_000_000
	// autoTimeCap bounds the search stage's wall time.
	autoTimeCap = 10 * time.Second
	// autoBandNodes is the band search's nodes per buffer of a piece in
	// the cuts of a perfect instance (guillotine.go; the search strategy
	// gives it guilBandNodes): on the packable instances p1000 and p2000
	// a quarter of the search's limit finds the same bands (and half of
	// that not all of p1000's), and p5000's piece without a band costs a
	// quarter as much.
	autoBandNodes = 500
)

// autoWork is the search stage's work cap for n buffers.
func autoWork(n int) int64 {
	return min(max(autoWorkPerBuffer*int64(n), autoWorkMin), autoWorkMax)
}

// autoPlacer is the "auto" strategy; Options.TimeBudget, when set,
// replaces autoTimeCap and Options.Progress receives a line at the end of
// stages 1 and 2 and the search's lines.
type autoPlacer struct{ opts Options }

func init() {
	RegisterPlacer("auto", func(o Options) Placer { return autoPlacer{o} })
}

// Name returns "auto".
func (autoPlacer) Name() string { return "auto" }

// Place returns the best placement of the stages.
func (p autoPlacer) Place(ctx context.Context, bufs []Buffer) ([]int64, error) {
	off, _, err := p.placeNamed(ctx, bufs, -1)
	return off, err
}

// autoCand is one stage member's result.
type autoCand struct {
	off    []int64
	method string
	err    error
}

// placeNamed also returns what found the placement ("peak/firstfit",
// "portfolio/size", "search/exact", ...). lb is LowerBound(bufs), or
// negative to have it computed.
func (p autoPlacer) placeNamed(ctx context.Context, bufs []Buffer, lb int64) ([]int64, string, error) {
	if err := validateBuffers(bufs); err != nil {
		return nil, "", err
	}
	begin := time.Now()
	if lb < 0 {
		lb = LowerBound(bufs)
	}
	for _, b := range bufs {
		if b.Fixed {
			lb = max(lb, b.Offset+b.Size)
		}
	}
	// Stage 1. Above autoPortfolioMax only first-fit runs: the peak
	// order and a second placement would cost another time index (about
	// 200 bytes a buffer) and seconds.
	quick := make([]autoCand, 2)
	ff := singleOrders[3] // firstfit
	var wg sync.WaitGroup
	wg.Go(func() {
		if len(bufs) > autoPortfolioMax {
			off, err := placeSplit(ctx, bufs, ff.order(bufs), ff.policy)
			quick[0] = autoCand{off, "split/firstfit", err}
			return
		}
		off, err := ff.Place(ctx, bufs)
		quick[0] = autoCand{off, "portfolio/firstfit", err}
	})
	var peak []int
	if len(bufs) <= autoPortfolioMax {
		wg.Go(func() {
			peak = peakOrder(bufs)
			off, err := placeInOrder(ctx, bufs, peak, firstFit, nil)
			quick[1] = autoCand{off, "peak/firstfit", err}
		})
	}
	wg.Wait()
	if len(bufs) > autoPortfolioMax {
		quick = quick[:1] // after the goroutines: they index quick
	}
	best, err := autoBest(bufs, quick)
	if err != nil {
		return nil, "", err
	}
	arena := ArenaSize(bufs, best.off)
	lineLB := lb
	if len(bufs) > autoPortfolioMax {
		// The caller may compute LB beside the placement (Plan does),
		// and lb is then a placeholder.
		lineLB = -1
	}
	p.stageLine(1, best.method, arena, lineLB, begin)
	if arena <= lb || len(bufs) > autoPortfolioMax {
		return best.off, best.method, nil
	}
	// Stage 2: the bound lets every member stop once it is above the
	// quick stage's arena; those return errAbandoned and lose. The
	// portfolio's first-fit member is left out: stage 1 placed it, and
	// its arena, at least the bound, could not win here.
	pf := Portfolio().(*portfolio)
	pf.members = slices.DeleteFunc(pf.members, func(m Placer) bool { return m == Placer(ff) })
	pf.members = append(pf.members, &orderPlacer{name: "peak", policy: bestFit,
		given: peak, launch: 1})
	// Above srchExactMax buffers stage 3 starts from best-fit in peak
	// order: that member runs to its end here, for stage 3 to take.
	keep := -1
	if len(bufs) > srchExactMax {
		keep = len(pf.members) - 1
	}
	off, k, peakOff, err := pf.placeKeep(ctx, bufs, arena, keep)
	if err == nil && ArenaSize(bufs, off) < arena {
		best = autoCand{off: off, method: "portfolio/" + pf.members[k].Name()}
		if k == len(pf.members)-1 {
			best.method = "peak/bestfit"
		}
		arena = ArenaSize(bufs, off)
	}
	p.stageLine(2, best.method, arena, lb, begin)
	if ctx.Err() != nil {
		return best.off, best.method, nil
	}
	if arena <= lb {
		return best.off, best.method, nil
	}
	// Stage 3.
	limit := autoTimeCap
	if p.opts.TimeBudget > 0 {
		limit = p.opts.TimeBudget
	}
	res, err := Search(ctx, bufs, SearchConfig{Budget: limit, Progress: p.opts.Progress, Initial: best.off,
		InitialMethod: best.method, Work: autoWork(len(bufs)),
		peakOff: peakOff, peakOrd: peak})
	if err != nil {
		return best.off, best.method, nil
	}
	return res.Offsets, res.Method, nil
}

// stageLine writes the progress line of a stage that ended (to
// Options.Progress, if set): the best placement so far, what made it,
// its gap to LB (none when lb is negative, unknown) and the time since
// auto began, in the search's format.
func (p autoPlacer) stageLine(stage int, method string, arena, lb int64, begin time.Time) {
	switch {
	case p.opts.Progress == nil:
	case lb < 0:
		fmt.Fprintf(p.opts.Progress, "auto: stage %d: best %d (%s)  %.1fs\n",
			stage, arena, method, time.Since(begin).Seconds())
	default:
		fmt.Fprintf(p.opts.Progress, "auto: stage %d: best %d (%s)  LB %d  gap %.4f%%  %.1fs\n",
			stage, arena, method, lb, gapPercent(arena, lb), time.Since(begin).Seconds())
	}
}

// autoBest returns the candidate with the smallest arena, ties to the
// earlier one; an error only when every candidate failed.
func autoBest(bufs []Buffer, cands []autoCand) (autoCand, error) {
	best, bestArena := -1, int64(0)
	var errs []error
	for k, c := range cands {
		if c.err != nil {
			errs = append(errs, c.err)
			continue
		}
		if a := ArenaSize(bufs, c.off); best < 0 || a < bestArena {
			best, bestArena = k, a
		}
	}
	if best < 0 {
		return autoCand{}, joinErrors(errs)
	}
	return cands[best], nil
}
