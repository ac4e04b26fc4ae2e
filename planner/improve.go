package planner

// Improvement of large placements: peak order, peak fill, band re-packing
// and order local search.
//
// Real traces have tens of thousands of buffers; the exact search cannot
// take them whole, but the arena is set by the few buffers that reach
// highest. Four methods share the budget, in turn:
//
//   - Peak order (peak.go): best-fit in an order that stacks the buffers of
//     the fullest step first, longest-lived at the bottom, then those of the
//     next fullest step, and so on. It replaces the portfolio's placement
//     when it is smaller, and its order becomes the one the local search
//     perturbs.
//   - Peak fill (peakfill.go): the short buffers around the fullest step
//     and the peak order's offenders are taken out of the stack and placed
//     by the exact search with the stack fixed, then everything else
//     best-fit in peak order around them.
//   - Band re-packing (windows): take the k buffers whose tops are highest
//     (k = 128, 512, 2048), fix every other buffer where it is, and ask the
//     exact search of exact.go to re-place the k under a lower capacity T
//     (half the gap to LB, an eighth, then one byte). The fixed buffers are
//     obstacles: a free buffer may drop into any hole among them. A success
//     moves only the k buffers, all now below T, so the arena falls to at
//     most max(T, the highest fixed top). It gets at most 40% of the budget.
//   - Order local search: the best placement came from one order (the peak
//     order or the winning portfolio member's). A few of the buffers that
//     reach above LB (the highest favoured) move to a random earlier place
//     in that order; the order is re-placed with the same fit policy,
//     abandoned as soon as it exceeds the best arena, and kept when it ties
//     or beats it (ties let the search drift across plateaus). The
//     generator has a fixed seed, so a run with the same iterations gives
//     the same placement.
//
// Worked example: S_1 (28,526 buffers) starts at 1.0158 x LB from the size
// order. The peak order gives 1.0026: only two buffers reach above LB, 6
// and 8 MB live for 4-6 steps next to the peak step, where the live total
// is 99.85% of LB and the holes left by the stack are too small for them.
// The peak fill places them and the 23 other short buffers around the peak
// exactly and reaches LB (before it, the local search, moving them earlier
// in the order, stalled at 1.00055 after 9.5 s). On Y_1 the peak order
// alone reaches LB.

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"time"
)

// improve lowers m.best with the peak order and the peak fill, then by
// windowed exact re-packing (improveStart, unless run already did it),
// then by local search over the placement order, until the deadline.
func (m *srchMin) improve(free []int) {
	if !m.imp.started {
		m.improveStart(free, 2.0/5)
	}
	if m.arena <= m.lb {
		return
	}
	m.localSearch(m.imp.order, m.imp.policy)
}

// improveState is what the improvement's first steps leave to its local
// search.
type improveState struct {
	started bool
	order   []int
	policy  fitPolicy
}

// improveStart runs the improvement's first steps: the peak order, the
// peak fill, and band re-packing under frac of the time left.
func (m *srchMin) improveStart(free []int, frac float64) {
	m.imp.started = true
	// The order the local search perturbs: the winning portfolio member's,
	// or the peak order (peak.go) when it beats the portfolio.
	op := singleOrders[0]
	for _, o := range singleOrders {
		if "portfolio/"+o.name == m.method {
			op = o
		}
	}
	m.imp.order, m.imp.policy = op.order(m.bufs), op.policy
	peakOff, peakOrd := m.peak()
	if peakOff != nil && m.method == "search/peak" {
		m.imp.order, m.imp.policy = peakOrd, bestFit
	}
	if peakOff != nil {
		m.peakFill(peakOff, peakOrd)
	}
	// The local search perturbs the peak order (or the portfolio member's
	// order) even when the peak fill won: its placement comes from no
	// single order.
	if m.arena <= m.lb {
		return
	}
	// Band re-packing gets at most frac of what is left: first from the
	// peak placement (its excess is a few buffers next to the peak step,
	// which a band can move; on pangu_2.6B it reaches LB from 1.022 x LB
	// while the portfolio's 1.0076 has thousands of tiny buffers on top),
	// then from the best placement if that is another one.
	end := m.deadline
	m.deadline = time.Now().Add(time.Duration(float64(time.Until(end)) * frac))
	if peakOff != nil {
		m.windows(free, peakOff)
	}
	if m.method != "search/peak" && m.method != "search/window" {
		m.windows(free, m.best)
	}
	m.deadline = end
}

// peak places the buffers best-fit in peak order, keeps the placement if it
// beats the best, and returns it with the order (nil when stopped).
func (m *srchMin) peak() ([]int64, []int) {
	if m.stop() {
		return nil, nil
	}
	if m.peakOff != nil {
		m.accept(m.peakOff, "search/peak")
		return m.peakOff, m.peakOrd
	}
	order := peakOrder(m.bufs)
	ctx, cancel := context.WithDeadline(m.ctx, m.deadline)
	defer cancel()
	off, err := placeInOrder(ctx, m.bufs, order, bestFit, nil)
	if err != nil {
		return nil, nil
	}
	m.accept(off, "search/peak")
	return off, order
}

// windows re-packs bands of the placement start (which it does not modify)
// until the deadline or no band fits lower: the k buffers that reach
// highest are re-placed under a lower capacity, every other buffer fixed,
// for targets from half the gap to LB down to one byte below the arena,
// and for each target growing k (128, 512, 2048). Each step that beats
// m.best replaces it.
//
// Target first: an ambitious target fails fast where it cannot be met, and
// a larger band meets it where a smaller one cannot; the less ambitious
// targets are slow to fail. On pangu_2.6B the first step is 2,048 buffers
// at half the gap (0.5 s), which with k first came only after two slow
// failures of 512 buffers at the lesser targets (0.9 s each).
func (m *srchMin) windows(free []int, start []int64) {
	bufs := m.bufs
	cur := slices.Clone(start)
	arena := ArenaSize(bufs, cur)
	// One attempt gets at most a quarter of the time left: with tens of
	// thousands of fixed obstacles a node is slow, and a single failing
	// attempt at k = 2048 could otherwise take the whole phase (on S_1,
	// before the peak fill placed it at LB first). A tenth cut pangu_2.6B's
	// 0.5 s first step short under a 10 s budget.
	slice := time.Until(m.deadline) / 4
	for !m.stop() && arena > m.lb {
		improved := false
		// The k highest, for each k (the order is cur's, fixed until a
		// step succeeds).
		byTop := slices.Clone(free)
		slices.SortFunc(byTop, func(a, b int) int {
			if c := cmpI64(cur[b]+bufs[b].Size, cur[a]+bufs[a].Size); c != 0 {
				return c
			}
			return a - b
		})
		gap := arena - m.lb
	targets:
		for _, t := range []int64{arena - gap/2, arena - gap/8, arena - 1} {
			if t >= arena {
				continue // a gap under 8 bytes: gap/8 is 0
			}
			for _, k := range []int{128, 512, 2048} {
				if m.stop() {
					break targets
				}
				cand := slices.Clone(byTop[:min(k, len(byTop))])
				slices.Sort(cand)
				if m.repackSet(cur, cand, t, time.Now().Add(slice)) {
					arena = ArenaSize(bufs, cur)
					improved = true
					break targets
				}
				if len(cand) == len(free) {
					break
				}
			}
		}
		if !improved {
			break
		}
		if VerifyPlacement(bufs, cur) == nil && arena < m.arena {
			m.best, m.arena, m.method = slices.Clone(cur), arena, "search/window"
		}
	}
}

// repackSet re-places the buffers cand (sorted) under capacity target with
// every other buffer fixed, giving up at until; on success it updates cur.
func (m *srchMin) repackSet(cur []int64, cand []int, target int64, until time.Time) bool {
	bufs := m.bufs
	lo, hi := bufs[cand[0]].Start, bufs[cand[0]].End
	for _, i := range cand {
		lo, hi = min(lo, bufs[i].Start), max(hi, bufs[i].End)
	}
	var fixed []int
	var fixedOff []int64
	for i, b := range bufs {
		if b.Start < hi && lo < b.End && !inSorted(cand, i) {
			fixed, fixedOff = append(fixed, i), append(fixedOff, cur[i])
		}
	}
	in := newSrchInst(bufs, cand, fixed, fixedOff)
	r := newSrchRun(in)
	r.stop = func() bool { return m.stop() || time.Now().After(until) }
	for k, rank := range srchOrders(in) {
		r.rekey = srchOrderKeys[k]
		st := r.solve(target, rank, int64(20*len(cand)))
		m.nodes += r.nodes
		if st == srchFound {
			for j, i := range cand {
				cur[i] = r.sol[j]
			}
			return true
		}
		if st == srchInfeasible || r.stopped {
			return false
		}
	}
	return false
}

func inSorted(s []int, x int) bool {
	_, ok := slices.BinarySearch(s, x)
	return ok
}

// srchSeed seeds the local search: runs are deterministic for a given
// number of iterations.
const srchSeed = 0x5eed

// localSearch perturbs order, the order that placed m.best under policy: a
// few of the buffers that reach above the lower bound move to a random
// earlier place in the order, the order is re-placed (abandoned as soon as
// it exceeds the best arena), and an order that ties or beats the best is
// kept.
func (m *srchMin) localSearch(order []int, policy fitPolicy) {
	bufs := m.bufs
	pos := make([]int, len(bufs))
	rng := rand.New(rand.NewPCG(srchSeed, uint64(len(bufs))))
	best := m.best
	arena := m.arena
	var bound atomic.Int64
	ctx := context.WithoutCancel(m.ctx)
	for !m.stop() && arena > m.lb {
		for k, i := range order {
			pos[i] = k
		}
		// The buffers poking above the lower bound, highest first.
		var peak []int
		for i, b := range bufs {
			if !b.Fixed && best[i]+b.Size > m.lb {
				peak = append(peak, i)
			}
		}
		slices.SortFunc(peak, func(a, b int) int {
			if c := cmpI64(best[b]+bufs[b].Size, best[a]+bufs[a].Size); c != 0 {
				return c
			}
			return a - b
		})
		if len(peak) == 0 {
			return // only fixed buffers reach above LB
		}
		cand := slices.Clone(order)
		moves := 1 + rng.IntN(4)
		for range moves {
			// Favour the highest buffers.
			i := peak[min(rng.IntN(len(peak)), rng.IntN(len(peak)))]
			from := slices.Index(cand, i)
			to := rng.IntN(from + 1)
			copy(cand[to+1:from+1], cand[to:from])
			cand[to] = i
		}
		bound.Store(arena)
		off, err := placeInOrder(ctx, bufs, cand, policy, &bound)
		if err != nil {
			continue
		}
		if a := ArenaSize(bufs, off); a <= arena {
			order, best = cand, off
			if a < arena {
				arena = a
				m.best, m.arena, m.method = off, a, "search/local"
			}
		}
	}
}
