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
// checks a plan independently of both steps.
//
// The calls, in order:
//
//	p, err := planner.PlanGraph(ctx, g, nil, planner.Options{})   // nil: g.Schedule()
//	err = p.Verify(g)                                            // every violation, joined
//	fmt.Println(p.ArenaBytes, p.LowerBoundBytes, p.Slots[v].Offset)
//
// For a DSA instance (CSV id,lower,upper,size):
//
//	bufs, err := planner.ReadCSV(r)
//	p, err := planner.PlanBuffers(ctx, bufs, planner.Options{Strategy: "portfolio"})
//	err = planner.WriteCSV(w, p.Buffers, p.Offsets)
//
// Strategies are registered by name (RegisterPlacer, PlacerByName,
// PlacerNames); other files add their own, such as an exact search.
package planner
