// Package randgraph draws random graphs for property tests: small graphs of
// square f32 tensors that exercise what the planner, the barriers and every
// backend must get right (in-place candidates, fan-out and joins, strided
// and view values, multi-output nodes, whole-tensor readers, non-f32 dtypes
// in the arena).
//
// It is shared by exec's end-to-end property test (every backend against the
// CPU reference) and exec/cuda's GPU property test, so both run the same
// generator. Use it with pgregory.net/rapid:
//
//	rapid.Check(t, func(rt *rapid.T) {
//		g := randgraph.Graph(rt)
//		in, _ := exec.RandomInputs(g, seed)
//		...
//	})
package randgraph
