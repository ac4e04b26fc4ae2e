// Package planner turns a graph and its schedule into one arena: an offset
// for every buffer, as small as the schedule allows, and a proof that it is
// valid.
//
// Liveness gives every root value (a value that is not a view) a buffer with
// a half-open lifespan [Start, End) in schedule steps, from the facts the IR
// carries: flags (inputs, weights and constants are external; outputs live
// to the end; pinned values live throughout and share with nothing), views
// (a read of a view is a read of its root), explicit keep-alive uses, and
// the op table's in-place index (an output takes its input's buffer when the
// input dies at that node and the sizes match). The planner contains no op
// names. Placement then solves the offline dynamic storage allocation
// problem heuristically: best-fit, under several orders (size, lifespan,
// size x lifespan, start) and first-fit by size, each placing buffers one at
// a time into the smallest free gap among the buffers that overlap in time,
// found through a segment tree over time that stores merged byte ranges
// (timeindex.go). The portfolio keeps the smallest arena. LowerBound (the
// peak of the live bytes) says how far from optimal a plan can be; Verify
// checks a plan independently of both steps: it re-derives every value's
// window (root, view offsets and strides) and every root's lifespan (in
// steps or groups) and the in-place pairs the op table allows from the
// graph alone (verifyderive.go), compares each slot with them, and sweeps
// time with the live windows in a balanced tree by offset (sweep.go) so
// that no two windows live at a common step share a byte unless the graph
// lets them alias; all of it in O(n log n) with overflow-checked
// arithmetic.
//
// The default strategy, "auto" (auto.go), runs first-fit by size and
// first-fit in peak order, then the portfolio with best-fit in peak order,
// then the exact search under a work cap scaled to the instance, and
// stops at the first stage that reaches the lower bound; the cap is
// counted in branches, each weighed by the instance's size per branch
// (srchWorkWeight), not in seconds, so the plan does not depend on the
// machine. Above 200,000 buffers (AutoSplitAbove) it runs first-fit by
// size alone, the two halves of time on two goroutines once the buffers
// crossing the middle cut are placed, each half in pieces of time with a
// small index each (split.go, pieces.go).
//
// The "search" strategy (Search) goes further, anytime, within a time
// budget. An instance that falls into independent parts in time (no buffer
// live across some step boundary) is searched part by part, each with a
// share of the budget (searchparts.go). An instance whose live total
// equals the lower bound at every step (a perfect packing) is first cut
// apart (guillotine.go: across time where nothing is live over a step
// boundary, across bytes into bands of constant live total that
// guilband.go finds boundary by boundary; pieces without a cut go to the
// search, each with its share of nine tenths of the time left, of which
// the tiling search below gets at most a quarter; a piece of 1,000
// buffers or more is first searched, for half its time, with pairs that
// could be neighbours merged, pairmerge.go: two of one lifespan stacked,
// two of one size where one ends as the other starts, the pairs with the
// fewest rivals first; then re-merged, remerge.go: merged items split
// back over a random stretch of time and merged again, differently,
// kept when fewer are left; and the piece itself starts from that
// placement, or, on a piece of more than 3,000 buffers, refinement does,
// refine.go: round by round, the merged items next to a hole or above LB
// split one level where they sit, and top repair on the finer instance).
// Such a piece does not start the renewal route below, and the routes'
// own pieces are not merged.
// Where pieces are left
// and tall bands show by their renewals (renew.go: a band's height is a
// subset sum of the sizes ending and of those starting at its cuts in
// time), the rectangles found between those steps become blocks, and the
// search with the blocks runs beside the pieces' search, on a goroutine
// of its own, until the deadline; the better placement stands. Under
// budgets of 30 s or more, where guilband.go finds no band or rectangle,
// the flow band search tries (flowband.go: a band is a circulation over
// the step boundaries; a search over the larger buffers keeps one
// feasible, circulation.go, and the unit-sized ones follow it); and a
// second route runs beside the first, on the instance with the boundary
// blocks as well (boundmerge.go: each step boundary proposes the rectangle
// that would hold the buffers ending and starting there, smallest first,
// blocks of blocks in later rounds). A route that reaches LB ends the
// cuts and the other route. Where the
// cuts end above LB (the route's own included), the top of their
// placement is searched again (toprepair.go: the buffers near the arena's
// top freed, the rest fixed). Then a tiling search (perfect.go: the
// lowest segment of the skyline must be filled by a buffer starting at its
// left end; wall checks, conflict-directed backjumping, then the same with
// each lifespan's buffers merged). Otherwise, or when that stalls, it
// starts from the portfolio's placement and asks an exact
// search over canonical placements (each buffer resting on the floor or on
// a buffer live at the same time; floors, dominance and time decomposition
// prune it; exact.go) whether a smaller capacity fits, first the lower
// bound, then by bisection; on 100 to 20,000 free buffers squeaky-wheel
// optimisation (squeaky.go: repeated first-fit passes in a priority order,
// the buffers that end above the lower bound raised after each pass) gets
// a share of the time left after a first cheap step (half on perfect
// instances and above 3,000 buffers, an eighth on the others, where the
// exact search needs the time). Instances too large to search whole (real
// traces of tens of thousands of buffers) are improved instead: best-fit
// in peak order (peak.go: the buffers of the fullest step first, as one
// stack, longest-lived at the bottom), then the short buffers around the
// fullest step are placed by the exact search with the rest of the stack
// fixed and everything else best-fit around them (peakfill.go), then the
// buffers that reach highest are re-packed exactly with the rest fixed,
// and the best greedy order is perturbed around the peak (improve.go).
// It always returns the best valid placement found, and stops early on
// ctx.
//
// Lifespans are measured in groups (groups.go, Plan.Groups): the
// dispatches between two barriers of a concurrent encoder. Serial plans
// have one node per group. Options.Objective picks the grouping
// (objective.go): "memory" plans the serial order (the least arena);
// "concurrency" a grouping of minimum depth, the data chain (DataChain),
// chosen among ASAP, ALAP and slack shifts for the least grouped peak, so
// that sharing bytes adds no barrier; "balanced" the fewest groups within
// BalancedFactor of the memory arena. FrontierPlans (frontier.go) gives
// the plans between the two: groupings list-scheduled under a sweep of
// byte limits (listsched.go), each placed like any other.
//
// The calls, in order:
//
//	p, err := planner.PlanGraph(ctx, g, nil, planner.Options{})   // nil: g.Schedule()
//	p, err = planner.PlanGraph(ctx, g, nil, planner.Options{Objective: "concurrency"}) // p.Groups set
//	p, err = planner.PlanGrouped(ctx, g, order, groups, planner.Options{})           // your own grouping
//	err = p.Verify(g)                                            // every violation, joined
//	fmt.Println(p.ArenaBytes, p.LowerBoundBytes, p.Slots[v].Offset)
//
// For a DSA instance (CSV id,lower,upper,size):
//
//	bufs, err := planner.ReadCSV(r)   // streaming; limits: DefaultCSVLimits, or ReadCSVLimits(r, lim)
//	p, err := planner.PlanBuffers(ctx, bufs, planner.Options{})      // "auto"
//	err = planner.WriteCSV(w, p.Buffers, p.Offsets)
//
// To search for a smaller arena within a budget:
//
//	p, err := planner.PlanBuffers(ctx, bufs, planner.Options{Strategy: "search", TimeBudget: 10 * time.Second})
//	res, err := planner.Search(ctx, bufs, planner.SearchConfig{Budget: 10 * time.Second}) // res.Arena, res.LB, res.Optimal, res.Method
//
// Strategies are registered by name (RegisterPlacer, PlacerByName,
// PlacerNames); "search" is registered by search_placer.go.
package planner
