package planner

// The "search" strategy: minimise the arena with the exact search of
// exact.go, anytime.
//
// Start from the best placement of the greedy portfolio (arena G) and the
// lower bound LB. Ask the exact search for capacity LB first: on the
// challenging DSA instances the optimum usually is LB, and a feasible answer
// ends the run with a proof. Otherwise bisect between LB and the best arena
// so far: a found placement lowers the best arena to its real peak, a
// completed search without a placement proves the capacity infeasible and
// raises the lower end for good, an aborted one (node limit) raises it for
// this round only. Each round tries every static order (twice: with and
// without re-ranking the parts that decomposition splits off) with a node
// limit that doubles from round to round, so an order that suits the
// instance finishes early and a hard instance still gets deep searches
// later. The orders run side by side on GOMAXPROCS goroutines; the
// lowest-numbered order that succeeds wins, so the result does not depend
// on timing. In the first half of the budget the bisection takes only a few
// shallow steps per round, leaving the time to the attempts at LB.
//
// On 100 to 20,000 free buffers (not under a work cap) squeaky-wheel
// optimisation (squeaky.go) gets a share of the time left after a first,
// cheap step (the exact search under auto's work cap, or above
// srchExactMax buffers the improvement's first steps): half on perfect
// instances and above srchExactMax, where the exact search stalls or
// cannot run and repeated first-fit passes with the offenders raised get
// closer; an eighth elsewhere, where the exact search needs the time and
// the passes' best arena only bounds its bisection (squeakyShare).
//
// Not under a work cap, an instance that falls into independent parts in
// time (no buffer live across some step boundary) is searched part by part
// (searchparts.go).
//
// Instances whose live total is LB at every step (perfect packings, like
// the packable family) first get the tiling search of perfect.go under a
// node limit; it ends the run when it places them in LB.
//
// Instances too large for the exact search as a whole (more than
// srchExactMax free buffers) go to improve.go: the peak order (peak.go),
// the peak fill (peakfill.go), band re-packing with the same exact search
// while the rest stays fixed (before the squeaky-wheel passes where those
// run), then an order local search.
//
// The run stops at 95% of its budget (Options.TimeBudget; 10 s when zero)
// or when ctx is done, and always returns the best valid placement found;
// it prints a progress line to Options.Progress once a second after the
// first second. While the cuts run, those lines say how many buffers are
// placed at LB so far ("search: cuts: 84 of 5000 buffers placed at LB,
// looking for bands  2.1s" on packable p5000). A piece that the cuts leave
// without a band prints the usual lines, named ("search: cuts: a piece
// without a band (4916 buffers): best ..."). The portfolio run that seeds
// it shares the deadline: when
// the budget is shorter than the portfolio's run, the seed is the best
// member that finished in time, or, when none did, the buffers stacked one
// above another (valid, but no better than the unshared total).
//
// Example: challenging/K (454 buffers) starts at 1.2773 x LB from the
// portfolio; an attempt at capacity LB succeeds after a few thousand nodes
// and the run returns arena = LB (proven optimal) with method
// "search/exact".

import (
	"context"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// srchExactMax is the largest number of free buffers searched as a whole.
const srchExactMax = 3000

// srchBranchesPerNode is the branch limit per node of an attempt's node
// limit under a work cap (SearchConfig.Work). On the challenging suite a
// node tries 2 to 33 branches.
const srchBranchesPerNode = 8

// srchWorkWeight is what one branch counts against a work cap
// (SearchConfig.Work) on instance in: 1, or the instance's size per branch
// in units of srchWorkCostRef. A node scans its part's buffers, and a
// branch its buffer's overlaps and its part's sections, so the size per
// branch is n + the mean number of overlaps + the number of sections:
// 285 to 761 on the challenging suite (weight 1: counted as before),
// 3,123 and 4,279 on 2,000 and 3,000 random rows (planreport gen -kind
// rows -seed 2; weights 3 and 4), whose nodes cost 8 to 15 times J's
// (22 us; 186 and 335 us on this machine). Unweighted, auto's work cap let
// those run 11.5 and 21.7 s, and its 10 s clock cap ended them instead: a
// plan that depended on the machine. Weighted, and with each attempt's
// steps bounded too (srchStepsPerBranch), they end by work in about 3 s
// (scripts/auto_rows.sh, docs/BENCHMARKS.md; TestSrchWorkWeight,
// TestSrchStepLimit).
func srchWorkWeight(in *srchInst) int64 {
	ov := 0
	for _, o := range in.ov {
		ov += len(o)
	}
	return max(1, int64(in.n+ov/max(in.n, 1)+in.nsec)/srchWorkCostRef)
}

// srchWorkCostRef is the size per branch that srchWorkWeight counts as
// one branch.
const srchWorkCostRef = 1024

// srchStepsPerBranch bounds, under a work cap, an attempt's steps
// (srchRun.steps) per branch of its branch limit. On the challenging
// suite a branch takes 161 to 1,077 steps on average (J the most), so the
// branch limit ends their attempts first, as before; on 2,000 and 3,000
// random rows it takes 4,047 to 9,612, and the steps end them.
const srchStepsPerBranch = 2048

// srchDefaultBudget is the time budget when none is given.
const srchDefaultBudget = 10 * time.Second

// SearchResult describes how a search run ended.
type SearchResult struct {
	Offsets []int64 // index-aligned with the buffers
	Arena   int64
	LB      int64
	Method  string // what found the returned placement
	Optimal bool   // Arena is proven minimal
	Nodes   int64  // exact-search nodes visited
	// Parts is the number of independent parts in time searched apart
	// (searchparts.go); 0 when the instance was searched whole.
	Parts int
}

// SearchConfig holds the knobs of Search.
type SearchConfig struct {
	// Budget is the wall time; 0 means 10 s. From 30 s on, perfect
	// packings (live total at the lower bound at every step) also get
	// the flow band search (flowband.go) and the boundary blocks' route
	// (boundmerge.go), which pay only with that much time.
	Budget   time.Duration
	Progress io.Writer // progress lines; nil for none
	// Initial is a valid starting placement (index-aligned with the
	// buffers), usually the portfolio's; nil computes one.
	Initial []int64
	// InitialMethod names what produced Initial.
	InitialMethod string
	// Work caps the exact search in nominal branches: under a cap every
	// attempt may try at most srchBranchesPerNode branches per node of its
	// node limit, it counts that many once per order it runs with, whether
	// it uses them or not, and no attempt starts that would pass the cap.
	// 0 means no cap.
	// Unlike Budget it does not depend on the machine's speed or load:
	// under a cap that ends the run before Budget does, the result is the
	// same on every machine. Above the exact search's size, under a cap,
	// only the improvement's first two steps run (improve.go): best-fit
	// in peak order and the peak fill, bounded by their own limits.
	Work int64

	noCuts bool // guillotine.go's fallback: no cuts again
	// noMerge: pieceSearch does not merge pairs (pairmerge.go); the
	// merged piece's own search and the renewal routes' set it.
	noMerge bool
	// noRenew: no renewal blocks (renew.go); the route's own search and
	// BenchmarkPackableRenewal's "before" set it.
	noRenew bool
	// swoAll: squeaky-wheel passes take all the time after the exact
	// search's first step, not a share (squeakyShare); the merged piece of
	// a piece above srchExactMax sets it (pieceSearch).
	swoAll bool
	// streams: squeaky-wheel streams (squeaky.go) when not 0; each merge
	// chain's search sets 1 (pieceSearch).
	streams int
	end     time.Time // the end of the whole Search's budget (Search sets it)
	// flowBands: the cuts and the renewal blocks try the flow band search
	// (flowband.go) where the band search finds nothing, and the boundary
	// blocks' route runs (renewal); Search sets it for budgets of
	// flowMinBudget or more, without a work cap, and hands it to the
	// parts in time.
	flowBands bool
	// peakOff is best-fit's placement of bufs in the peak order peakOrd
	// (peak.go), when the caller made it already (auto's stage 2):
	// srchMin.peak takes it instead of placing again.
	peakOff []int64
	peakOrd []int
}

// Search minimises the arena of bufs within the budget and returns the best
// valid placement it found. Cancelling ctx ends it early with the best
// placement so far.
//
// The more work the budget holds, the better the placement tends to be,
// and on small instances the garbage collector takes part of it: a caller
// that searches for seconds may raise the collector's target while it
// does (runtime/debug.SetGCPercent), as planreport does for small inputs
// (cmd/planreport/searchgc.go; docs/BENCHMARKS.md, issue 18).
func Search(ctx context.Context, bufs []Buffer, cfg SearchConfig) (*SearchResult, error) {
	if err := validateBuffers(bufs); err != nil {
		return nil, err
	}
	budget := cfg.Budget
	if budget <= 0 {
		budget = srchDefaultBudget
	}
	// Parts and pieces get shares of the budget; what may run past its
	// share (perfectPack's node limits) stops at the end of the whole.
	cfg.end = time.Now().Add(budget - budget/20)
	cfg.flowBands = cfg.Work == 0 && budget >= flowMinBudget
	if parts := timeParts(bufs); parts != nil && cfg.Work == 0 {
		res, err := searchParts(ctx, bufs, parts, cfg, budget)
		if err != nil {
			return nil, err
		}
		if err := VerifyPlacement(bufs, res.Offsets); err != nil {
			return nil, fmt.Errorf("planner: search produced an invalid placement (%d parts): %w", len(parts), err)
		}
		return res, nil
	}
	return search(ctx, bufs, cfg, budget, 0)
}

// searchLB is the lower bound the search aims at: LowerBound, or the top
// of a fixed buffer when higher.
func searchLB(bufs []Buffer) int64 {
	lb := LowerBound(bufs)
	for _, b := range bufs {
		if b.Fixed {
			lb = max(lb, b.Offset+b.Size)
		}
	}
	return lb
}

// search is Search on one part; the run ends as soon as the arena is at
// most floor (the whole instance's lower bound, for a part) or the part's
// own lower bound, whichever is larger.
func search(ctx context.Context, bufs []Buffer, cfg SearchConfig, budget time.Duration, floor int64) (*SearchResult, error) {
	progress := cfg.Progress
	if progress != nil {
		// The renewal route (renew.go) writes from a goroutine of its own.
		progress = &syncWriter{w: progress}
	}
	m := &srchMin{ctx: ctx, bufs: bufs, begin: time.Now(), progress: progress, workCap: cfg.Work, noCuts: cfg.noCuts, noRenew: cfg.noRenew, noMerge: cfg.noMerge, swoAll: cfg.swoAll, streams: cfg.streams, end: cfg.end, flowBands: cfg.flowBands}
	if len(cfg.peakOff) == len(bufs) && len(cfg.peakOrd) == len(bufs) {
		m.peakOff, m.peakOrd = cfg.peakOff, cfg.peakOrd
	}
	// Keep 5% of the budget for the final checks.
	m.deadline = m.begin.Add(budget - budget/20)
	m.lb = max(searchLB(bufs), floor)
	m.best, m.method = cfg.Initial, cfg.InitialMethod
	if m.best == nil || VerifyPlacement(bufs, m.best) != nil {
		// The seed honours the deadline too: a budget shorter than the
		// portfolio's run gets the members that finished, or the stack.
		seedCtx, cancel := context.WithDeadline(ctx, m.deadline)
		m.best, m.method = srchInitial(seedCtx, bufs)
		cancel()
	}
	m.arena = ArenaSize(bufs, m.best)
	m.run()
	res := &SearchResult{Offsets: m.best, Arena: m.arena, LB: m.lb,
		Method: m.method, Optimal: m.arena <= m.proven, Nodes: m.nodes}
	if err := VerifyPlacement(bufs, res.Offsets); err != nil {
		return nil, fmt.Errorf("planner: search produced an invalid placement (%s): %w", res.Method, err)
	}
	return res, nil
}

// srchMin is one minimisation run.
type srchMin struct {
	ctx       context.Context
	bufs      []Buffer
	begin     time.Time
	deadline  time.Time
	progress  io.Writer
	lastLine  time.Time
	lb        int64
	proven    int64 // every capacity below this is infeasible
	best      []int64
	arena     int64
	method    string
	nodes     int64
	work      int64        // nominal nodes of the attempts started (SearchConfig.Work)
	workCap   int64        // 0: none
	done      bool         // the deadline passed, ctx is done or the work cap is reached
	swoBest   atomic.Int64 // best arena of the squeaky-wheel streams so far (0: none); progress only
	imp       improveState // improve.go's first steps, once run
	noCuts    bool         // no guillotine cuts (SearchConfig.noCuts)
	noRenew   bool         // no renewal blocks (SearchConfig.noRenew)
	noMerge   bool         // no pair merges (SearchConfig.noMerge)
	swoAll    bool         // squeaky passes take all the time left (SearchConfig.swoAll)
	streams   int          // squeaky streams when not 0 (SearchConfig.streams)
	flowBands bool         // the flow band search too (SearchConfig.flowBands)
	renew     *srchRenew   // the renewal blocks, once the cuts asked (renewal)
	// cutsCtx is the context of cuts (cutsContext); a renewal route that
	// reaches LB calls cutsCancel, and the cuts end early.
	cutsCtx    context.Context
	cutsCancel context.CancelFunc
	peakOff    []int64 // SearchConfig.peakOff, when it places bufs
	peakOrd    []int
	end        time.Time // SearchConfig.end
	mu         sync.Mutex
}

// stop reports whether the run must end, and prints progress.
func (m *srchMin) stop() bool {
	now := time.Now()
	if m.progress != nil && now.Sub(m.begin) >= time.Second && m.mu.TryLock() {
		defer m.mu.Unlock()
		if now.Sub(m.lastLine) < time.Second {
			return m.ctx.Err() != nil || now.After(m.deadline)
		}
		m.lastLine = now
		best := m.arena
		if a := m.swoBest.Load(); a > 0 {
			best = min(best, a) // squeaky.go's streams, still running
		}
		fmt.Fprintf(m.progress, "search: best %d  LB %d  gap %.4f%%  %.1fs\n",
			best, m.lb, gapPercent(best, m.lb), now.Sub(m.begin).Seconds())
	}
	return m.ctx.Err() != nil || now.After(m.deadline)
}

// gapPercent is how far arena is above lb, in percent of lb (progress
// lines).
func gapPercent(arena, lb int64) float64 {
	return 100 * float64(arena-lb) / float64(max(lb, 1))
}

// accept takes offsets if they beat the best placement.
func (m *srchMin) accept(off []int64, method string) bool {
	a := ArenaSize(m.bufs, off)
	if a >= m.arena || VerifyPlacement(m.bufs, off) != nil {
		return false
	}
	m.best, m.arena, m.method = off, a, method
	return true
}

func (m *srchMin) run() {
	m.proven = m.lb
	var free, fixed []int
	var fixedOff []int64
	for i, b := range m.bufs {
		if b.Fixed {
			fixed, fixedOff = append(fixed, i), append(fixedOff, b.Offset)
		} else {
			free = append(free, i)
		}
	}
	if len(free) == 0 || m.arena <= m.lb {
		return
	}
	perfect := len(fixed) == 0 && isPerfect(m.bufs, m.lb)
	if perfect {
		// Every step at LB: cuts (guillotine.go) first, then (search
		// strategy) the renewal blocks' route (renew.go) and top repair
		// (toprepair.go), then the tiling search (perfect.go). Under a
		// work cap (auto) the cuts' placement is taken at once only at
		// LB; otherwise it waits for the end of the run, which goes on
		// from the placement it had: the exact search's bisection under
		// a cap can end higher from a lower start (packable p1000 of
		// seeds 3 and 4, docs/BENCHMARKS.md), and this way auto is
		// never worse than without the cuts.
		switch {
		case m.noCuts:
		case m.workCap == 0:
			atLB := m.renewed(m.cuts())
			// The routes have ended (renewed waits for them), so nothing
			// reads these any more; later stages run under m.ctx, not
			// under the cuts' context, which cuts has cancelled.
			m.cutsCtx, m.cutsCancel = nil, nil
			if atLB {
				return
			}
			m.topRepair(free)
			if m.arena <= m.lb {
				return
			}
		default:
			off := m.cutPlacement()
			if ArenaSize(m.bufs, off) <= m.lb && m.accept(off, "search/cuts") {
				m.proven = m.arena
				return
			}
			defer m.accept(off, "search/cuts")
		}
		// perfectEnd says how long it may take.
		ctx, cancel := context.WithDeadline(m.ctx, perfectEnd(time.Now(), m.deadline, m.end, m.noCuts))
		off, nodes := perfectPack(ctx, m.bufs, m.lb)
		cancel()
		m.nodes += nodes
		if off != nil && m.accept(off, "search/perfect") {
			m.proven = m.arena
			return
		}
	}
	if share := squeakyShare(len(free), perfect); m.workCap == 0 && share > 0 {
		// First the exact search under auto's work cap, which proves LB
		// at once on instances where an order suits (challenging C, F,
		// I, K); then squeaky-wheel passes (squeaky.go) get their share
		// of the time left; the exact search or the improvement gets the
		// rest.
		if len(free) <= srchExactMax {
			m.workCap = autoWork(len(free))
			m.exact(free, fixed, fixedOff)
			m.workCap, m.work, m.done = 0, 0, false
			if m.arena <= m.proven || m.stop() {
				return
			}
		} else {
			// The improvement's first steps (peak order, peak fill, band
			// re-packing under 40% of the time) reach LB on real traces
			// (pangu_2.6B, S_1) in a second or two; squeaky-wheel passes
			// must not delay them.
			m.improveStart(free, 2.0/5)
			if m.arena <= m.lb || m.stop() {
				return
			}
		}
		end := m.deadline
		if m.swoAll {
			share = 1
		}
		m.deadline = time.Now().Add(time.Until(end) / time.Duration(share))
		m.squeaky(swoPasses)
		m.deadline = end
		if m.arena <= m.lb {
			return
		}
	}
	if len(free) > srchExactMax {
		if m.workCap > 0 {
			// Under a work cap (auto) only the improvement's first two
			// steps, which their node limits bound: the peak order and
			// the peak fill.
			if off, order := m.peak(); off != nil && m.arena > m.lb {
				m.peakFill(off, order)
			}
			return
		}
		m.improve(free)
		return
	}
	m.exact(free, fixed, fixedOff)
}

// exact minimises by bisection over capacities with the exact search.
func (m *srchMin) exact(free, fixed []int, fixedOff []int64) {
	in := newSrchInst(m.bufs, free, fixed, fixedOff)
	// Each static order runs twice: once re-ranking the parts that
	// dynamic decomposition splits off (by their remaining totals), once
	// keeping the static ranks; neither variant wins on every instance.
	static := srchOrders(in)
	orders := make([][]int32, 0, 2*len(static))
	for _, o := range static {
		orders = append(orders, o, o)
	}
	// One run per order, run side by side (at most GOMAXPROCS at a time).
	runs := make([]*srchRun, len(orders))
	var found atomic.Int32
	for k := range runs {
		runs[k] = newSrchRun(in)
		if k%2 == 0 {
			runs[k].rekey = srchOrderKeys[k/2]
		}
		runs[k].stop = func() bool { return m.stop() || found.Load() < int32(k) }
	}
	workers := max(1, min(len(orders), runtime.GOMAXPROCS(0)))
	weight := srchWorkWeight(in)
	// try asks for capacity c with every order. The lowest-numbered order
	// that finds a placement wins, so the result does not depend on timing;
	// a find cancels only the higher-numbered orders.
	try := func(c int64, limit int64) srchStatus {
		charge := srchBranchesPerNode * limit * int64(len(orders)) * weight
		if m.stop() || (m.workCap > 0 && m.work+charge > m.workCap) {
			m.done = true
			return srchAborted
		}
		if m.workCap > 0 {
			m.work += charge
			for _, r := range runs {
				r.limitBranches(srchBranchesPerNode * limit)
			}
		}
		found.Store(math.MaxInt32)
		sts := make([]srchStatus, len(orders))
		sem := make(chan struct{}, workers)
		var wg sync.WaitGroup
		for k := range orders {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				if found.Load() < int32(k) {
					sts[k] = srchAborted
					return
				}
				sts[k] = runs[k].solve(c, orders[k], limit)
				if sts[k] != srchAborted {
					for cur := found.Load(); int32(k) < cur && !found.CompareAndSwap(cur, int32(k)); cur = found.Load() {
					}
				}
			}()
		}
		wg.Wait()
		m.nodes = 0
		for _, r := range runs {
			m.nodes += r.NodesAll
		}
		for k, st := range sts {
			switch st {
			case srchFound:
				off := make([]int64, len(m.bufs))
				for i, b := range m.bufs {
					off[i] = b.Offset
				}
				for j, i := range free {
					off[i] = runs[k].sol[j]
				}
				m.accept(off, "search/exact")
				return st
			case srchInfeasible:
				m.proven = max(m.proven, c+1)
				return st
			}
		}
		if m.stop() {
			m.done = true
		}
		return srchAborted
	}
	// Early rounds bisect a few steps with a small node limit, so most of
	// the first half of the budget goes to capacity LB; later rounds bisect
	// fully, with a moderate limit (a tight capacity that needs a deep
	// search is left to the attempts at LB).
	// Under a work cap the first half is counted in work, so that the
	// result does not depend on timing.
	half := m.begin.Add(m.deadline.Sub(m.begin) / 2)
	firstHalf := func() bool {
		if m.workCap > 0 {
			return m.work < m.workCap/2
		}
		return time.Now().Before(half)
	}
	for limit := int64(max(2*in.n, 1000)); !m.done && m.arena > m.proven; limit *= 2 {
		if try(m.proven, limit) == srchFound || m.done {
			continue
		}
		bl, steps := min(limit, int64(16*in.n)), math.MaxInt
		if firstHalf() {
			bl, steps = min(limit, int64(4*in.n)), 4
		}
		lo, hi := m.proven+1, m.arena-1
		for ; lo <= hi && !m.done && steps > 0; steps-- {
			mid := lo + (hi-lo)/2
			switch try(mid, bl) {
			case srchFound:
				hi = m.arena - 1
			default:
				lo = max(mid+1, m.proven)
			}
		}
	}
}

// srchInitial returns the portfolio's placement and the name of the member
// that found it.
func srchInitial(ctx context.Context, bufs []Buffer) ([]int64, string) {
	p := Portfolio().(*portfolio)
	off, k, err := p.placeBest(ctx, bufs)
	if err != nil {
		// Cancelled before any member finished: stack the buffers, the
		// only placement available at once.
		off = make([]int64, len(bufs))
		var base int64
		for i, b := range bufs {
			if b.Fixed {
				off[i] = b.Offset
				base = max(base, b.Offset+b.Size)
			}
		}
		for i, b := range bufs {
			if !b.Fixed {
				base = alignUp(base, alignOf(&bufs[i]))
				off[i], base = base, base+b.Size
			}
		}
		return off, "stack"
	}
	return off, "portfolio/" + p.members[k].Name()
}

// perfectEnd returns when the tiling search (perfectPack) must stop, at
// now, in a search whose own deadline is deadline and whose whole
// Search ends at end. Its node limits aim at a second or so, more than a
// small part or piece has of its own, so the whole Search's end bounds
// it; but a piece the cuts left without a band (noCuts, the fallback)
// gets at most a quarter of its own time: the cuts' tiling search has
// already tried the small pieces, and on a large one the tiling search
// spends its limits and fails (packable p5000's 4,916 buffers: about 3 s
// of the 4.5 s the fallback had in 10 s; docs/BENCHMARKS.md, issue 18).
func perfectEnd(now, deadline, end time.Time, noCuts bool) time.Time {
	if noCuts {
		return now.Add(deadline.Sub(now) / 4)
	}
	return end
}

// cuts places a perfect instance by guillotine cuts (node limits bound
// them, and half the time left); each piece without a cut gets the
// search, without cuts, under its share of nine tenths of the time left
// then (the renewal route, where it starts, runs beside it: renewal). It
// takes the placement if it is the best so far, and reports whether the
// arena is LB.
func (m *srchMin) cuts() bool {
	m.cutsCtx, m.cutsCancel = context.WithCancel(m.ctx)
	defer m.cutsCancel()
	if off := m.cutPlacement(); m.accept(off, "search/cuts") && m.arena <= m.lb {
		m.proven = m.arena
		return true
	}
	return false
}

// cutPlacement is the cuts' placement (cuts). Under a work cap (auto) the
// node limits alone bound the cuts (the deadline is only the guard it
// always is), the band search gets autoBandNodes nodes per buffer of a
// piece, and a piece without a band gets the portfolio, so the placement
// does not depend on the machine.
func (m *srchMin) cutPlacement() []int64 {
	end := time.Now().Add(time.Until(m.deadline) / 2)
	if m.workCap > 0 {
		end = m.deadline
	}
	ctx, cancel := context.WithDeadline(m.cutsContext(), end)
	defer cancel()
	var st *guilStatus
	if m.progress != nil {
		st = &guilStatus{}
		defer m.cutsProgress(st, time.Second)()
	}
	fallback := m.pieceSearch
	o := guilOpts{status: st, flow: m.flowBands}
	if m.workCap > 0 {
		o.perBand = autoBandNodes
		fallback = func(sub []Buffer, _ float64) []int64 { return portfolioOffsets(sub) }
	}
	off, nodes, missed := guillotinePlaceShared(ctx, m.bufs, m.lb, fallback, o)
	m.nodes += nodes
	if m.progress != nil {
		fmt.Fprintf(m.progress, "search: cuts: arena %d, LB %d, %d pieces without a cut\n", ArenaSize(m.bufs, off), m.lb, missed)
	}
	return off
}

// pieceSearch is the cuts' fallback under the search strategy: a piece
// without a cut gets the search, without cuts, under its share of nine
// tenths of the time left (guilShares). On packable p5000 the 4,916
// buffers beside its first band are the only such piece, and half the
// time left gave them too little (docs/BENCHMARKS.md, issue 18).
//
// A piece of pairMergeMin buffers or more is merged first (remerge.go):
// half its time goes to the merged piece (mergedSearch: pieceChains
// chains side by side), remergeShare percent of that to re-merging, the
// rest to searching the merged piece as the piece would be (no cuts, no
// renewal route). The rest of the time goes, on a piece of srchExactMax
// buffers or fewer, to the piece's own search starting from that
// placement (its exact search lowers some, packable p2000 of seed 2
// among them); on a larger piece, whose own search is the improvement of
// improve.go and did not lower the merged placement of packable p5000,
// to refinement (refine.go) for refineShare of it and re-coarsening
// (recoarsen.go) for the rest (mergeChain.refined); there the merged
// piece's squeaky-wheel passes, which place it, take all of its search's
// time after the exact search's first step (SearchConfig.swoAll), not
// half of it: of eight packable instances of 5,000 buffers with such a
// piece, that lowered three, left four as they were and one 0.0001 x LB
// higher (docs/BENCHMARKS.md, issue 18). Such a piece does not start the
// renewal route (renewal): on two cores the route's search starved the
// merged piece's, and the route lost more on packable p5000 and other
// large instances than it gained (docs/BENCHMARKS.md, issue 18). Any
// other piece starts it, the first one to come.
func (m *srchMin) pieceSearch(sub []Buffer, share float64) []int64 {
	merge := !m.noMerge && len(sub) >= pairMergeMin
	if !merge {
		m.renewal()
	}
	budget := time.Duration(float64(time.Until(m.deadline)) * share * 9 / 10)
	cfg := SearchConfig{noCuts: true, end: m.end}
	part := fmt.Sprintf("cuts: a piece without a band (%d buffers): ", len(sub))
	if m.progress != nil {
		cfg.Progress = &partProgress{w: m.progress, part: part}
	}
	start := time.Now()
	if merge {
		half := max(budget/2, time.Millisecond)
		refine := len(sub) > srchExactMax
		chains := pieceChains
		if m.routeRunning() {
			chains = 1
		}
		if c, ok := m.mergedSearch(sub, half, start, refine, part, chains, 1); ok {
			if refine {
				var w io.Writer
				if m.progress != nil {
					w = &partProgress{w: m.progress, part: part}
				}
				return c.refined(m.cutsContext(), sub, start.Add(budget), refineShare, recoarsenWays, w)
			}
			cfg.Initial, cfg.InitialMethod = c.p.expand(c.roots, c.res.Offsets), "merged"
		}
	}
	res, err := search(m.cutsContext(), sub, cfg, max(budget-time.Since(start), time.Millisecond), 0)
	if err != nil { // cannot happen: search verifies what it returns
		return stackOffsets(sub)
	}
	return res.Offsets
}

// pieceChains is how many merge chains pieceSearch runs side by side,
// each re-merging with its own seed and searching its reduced instance
// with one squeaky-wheel stream (two chains, two streams: the cores the
// search had, and re-merging, which ran on one, now takes both). The
// result hangs on the merge more than on the stream: on packable p5000's
// piece without a band, over 24 pairs of merge seeds, the better of two
// chains ended 216.5 units of 64 B over LB on average after refinement,
// one chain with two streams 235.1 (BenchmarkMergeChains,
// docs/BENCHMARKS.md, issue 18).
const pieceChains = 2

// mergeChain is a reduced instance of a piece (a merger's items roots)
// and its search's result.
type mergeChain struct {
	p     *pairMerger
	roots []int
	res   *SearchResult
}

// mergedSearch is pieceSearch's merged piece: n chains side by side,
// chain k (from 0) re-merging sub with merge seed seed+k (remerge.go) for
// remergeShare percent of half, then searching its reduced instance with
// swoStreams/n squeaky-wheel streams until half has passed since start
// (swoAll when refine). It returns the chain whose placement is smallest
// (ties to the lower seed); ok is false when no search returned one.
//
// pieceSearch runs pieceChains chains, and one while a renewal route's
// search runs beside (an earlier piece started it): the cores are shared
// with the route there, and two chains starved each other's squeaky-wheel
// passes (packable p5000 of seed 7 ended 1.126 x LB instead of 1.024,
// docs/BENCHMARKS.md).
func (m *srchMin) mergedSearch(sub []Buffer, half time.Duration, start time.Time, refine bool, part string, n int, seed uint64) (mergeChain, bool) {
	rctx, cancel := context.WithTimeout(m.cutsContext(), half*remergeShare/100)
	defer cancel()
	chains := make([]mergeChain, n)
	var wg sync.WaitGroup
	for k := range chains {
		wg.Go(func() {
			p, live, iters := remergeTree(rctx, sub, seed+uint64(k), remergeIters*len(sub))
			roots := p.sortedRoots(live)
			red := p.buffers(roots)
			mcfg := SearchConfig{noMerge: true, noRenew: true, noCuts: true, swoAll: refine, streams: swoStreams / n, end: m.end}
			if m.progress != nil {
				mcfg.Progress = &partProgress{w: m.progress, part: part + fmt.Sprintf("chain %d of %d, merged to %d (%d re-merges): ", k+1, n, len(red), iters)}
			}
			if res, err := search(m.cutsContext(), red, mcfg, max(half-time.Since(start), time.Millisecond), 0); err == nil {
				chains[k] = mergeChain{p: p, roots: roots, res: res}
			}
		})
	}
	wg.Wait()
	best := -1
	for k, c := range chains {
		if c.res != nil && (best < 0 || c.res.Arena < chains[best].res.Arena) {
			best = k
		}
	}
	if best < 0 {
		return mergeChain{}, false
	}
	return chains[best], true
}

// refineShare is the share of the time after the merged piece's search
// that refinement gets (refine.go), re-coarsening (recoarsen.go) the
// rest: refinement gains little after its first rounds. Over 12 seed
// pairs on packable p5000's piece, shares of 1/6, 1/4, 1/3, 1/2 and 2/3
// ended 190.5, 203.4, 201.7, 210.8 and 215.7 units of 64 B over LB on
// average, within each other's noise below a half (BenchmarkRefineShare,
// docs/BENCHMARKS.md); a third leaves refinement's first round time to
// bring a merged piece far above LB down (packable p5000 of seed 14).
const refineShare = 1.0 / 3

// refined is the placement of sub (the piece c was merged from) that
// refinement makes of c's until share of the time to end has passed,
// and re-coarsening (ways coarse instances a cycle) from there until end
// (progress lines to w).
func (c mergeChain) refined(ctx context.Context, sub []Buffer, end time.Time, share float64, ways int, w io.Writer) []int64 {
	mid := time.Now().Add(time.Duration(float64(time.Until(end)) * share))
	off := refineMerged(ctx, c.p, c.roots, c.res.Offsets, c.res.LB, mid, w)
	return recoarsen(ctx, sub, off, c.res.LB, end, ways, w)
}

// routeRunning reports whether a renewal route's search (renew.go) is
// still running.
func (m *srchMin) routeRunning() bool {
	if m.renew == nil {
		return false
	}
	for _, rt := range m.renew.routes {
		select {
		case <-rt.done:
		default:
			return true
		}
	}
	return false
}

// cutsContext is the cuts' context: m.ctx, or under cuts the one a
// renewal route ends when it reaches LB.
func (m *srchMin) cutsContext() context.Context {
	if m.cutsCtx != nil {
		return m.cutsCtx
	}
	return m.ctx
}

// cutsProgress prints a line every period (a second) while the cuts look
// for bands (a piece's fallback prints its own): how many buffers are
// placed at LB so far. It returns the function that stops it.
func (m *srchMin) cutsProgress(st *guilStatus, every time.Duration) func() {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-tick.C:
				m.mu.Lock()
				if !st.fallback.Load() {
					fmt.Fprintf(m.progress, "search: cuts: %d of %d buffers placed at LB, looking for bands  %.1fs\n",
						st.exact(), len(m.bufs), now.Sub(m.begin).Seconds())
				}
				m.mu.Unlock()
			}
		}
	})
	return func() { close(done); wg.Wait() }
}

// syncWriter serialises the writes of the search's goroutines.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

// stackOffsets puts bufs one above the other.
func stackOffsets(bufs []Buffer) []int64 {
	off := make([]int64, len(bufs))
	var at int64
	for i, b := range bufs {
		off[i] = at
		at += b.Size
	}
	return off
}
