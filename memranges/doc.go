// Package memranges decides where a concurrent GPU encoder needs a memory
// barrier, and nowhere else.
//
// A plan (package planner) gives every value a byte window: in the arena, or
// in an external buffer of its own. Each scheduled node that is not a pure
// view becomes a Dispatch that reads its inputs' windows and writes its
// outputs' windows, exactly: a view touches its own window, a strided view
// its bounding window. Two dispatches conflict iff they touch a common byte
// of one buffer and at least one writes (RAW, WAR or WAW; read-read never
// conflicts; ranges that only touch, like [0,64) and [64,128), do not
// overlap). In a fixed order, the greedy rule "extend the group until the
// next dispatch conflicts, then barrier" places the fewest barriers (an
// interval-stabbing argument, in barriers.go); a Tracker answers each
// "conflicts with the group?" query in O(log n) with coalescing interval
// sets per buffer and access kind, kept behind unsorted logs and a page
// filter so that most queries cost O(1) and most groups sort nothing. Reorder then finds an order with the
// fewest barriers over all orders that keep conflicting pairs in order:
// sorting by ASAP level in the conflict DAG needs exactly critical path - 1
// barriers (Mirsky's theorem), which no order can beat. Memory reuse by the
// planner shows up as WAR and WAW conflicts between unrelated nodes, so the
// conflict DAG, not the graph's data edges, bounds the reorder. For
// point-to-point backends, Edges gives the transitive reduction of the
// conflict DAG. Verify, VerifyEdges and VerifyOrder re-check every result
// pairwise, O(n^2), sharing no code with the fast paths.
//
// A ggml-compatible Mode reproduces llama.cpp's Metal test
// (new.p0 < old.p1 && new.p1 >= old.p0, a false conflict when a new range
// ends where a recorded one starts) and, with BuildOptions.WholeRoot, its
// widening of views to the whole root, so reports can show what exact
// ranges save. Exact never needs more barriers than GGML: its conflict
// relation is a subset, and greedy is optimal for both.
//
// The data chain (planner.DataChain, the longest chain of data
// dependencies) is the shortest critical path any plan can give; a plan of
// the concurrency objective reaches it, since its sharing conflicts only
// run from an earlier group to a later one. Analyze reports both and the
// difference, the barriers memory sharing costs; GGMLWindowOrder simulates
// ggml-metal's own reorder pass (greedy, look-ahead 64, whole-root ranges)
// for comparison. BuildFrontier measures the plans of planner.FrontierPlans
// and keeps the points where arena falls as barriers rise.
//
// The calls, in order:
//
//	st, err := memranges.FromPlan(g, order, plan, memranges.BuildOptions{})
//	perm, _, err := memranges.Reorder(st.Dispatches, memranges.ReorderOptions{}) // optional
//	ds, err := memranges.Permute(st.Dispatches, perm)
//	bs := memranges.PlaceBarriers(memranges.Exact, ds) // each with its cause
//	err = memranges.Verify(ds, bs)
//	es := memranges.Edges(ds) // for CUDA graphs or Metal fences
//	err = memranges.VerifyEdges(ds, es)
//	causes := memranges.EdgeCauses(ds, es) // the hazard behind each edge
//
// Analyze does all of this for a plan and returns the report that
// cmd/planreport prints with -barriers; BuildFrontier and CheckFrontier
// give `planreport frontier`.
package memranges
