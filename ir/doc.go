// Package ir is memplan's graph: the first stage of the pipeline and the
// only facts the later stages see.
//
// A Graph holds Values (tensors) and Nodes (operations), each with a dense
// integer ID equal to its index, so side tables are plain slices. A value
// has a dtype and a static shape, flags (input, output, weight, constant,
// pinned with a reason), optional raw little-endian data, and optionally a
// View: a byte window (offset, shape, byte strides) of another value, so
// that chains of views resolve to one root that owns the storage. A node has
// an op, ordered inputs and outputs, typed attributes, keep-alive values
// (explicit real uses that extend liveness) and may be Opaque (outside the
// core op set). The op property table (OpInfo, via LookupOp) says for each
// core op its kind, which input its output may share in place, whether it
// can be a pure view and where, and its shape rule; the planner asks the
// table, never an op name. A graph's schedule is g.Order when set, else a
// deterministic topological order (Kahn's algorithm, ties to the smallest
// node ID), where a node depends on the producers of its inputs and
// keep-alive values through their view chains. Validate is an independent
// checker of every invariant (IDs, references, producers, cycles, view
// bounds over every addressable byte, overflow-checked sizes, shape rules,
// flags, the schedule) that reports every violation as a typed NodeError or
// ValueError. Graphs are stored in a versioned JSON format (docs/FORMAT.md).
//
// The calls, in order:
//
//	b := ir.NewBuilder("mlp")                  // or ir.Parse(data) for a file
//	x := b.Input("x", ir.F32, 32, 784)
//	w := b.Weight("w", ir.F32, 784, 128)
//	h := b.Op("Relu", nil, b.Op("MatMul", nil, x, w))
//	b.Output(h)
//	g, err := b.Build()                         // builder errors + g.Validate()
//	order, err := g.Schedule()                  // g.Order, checked, or TopoOrder
//	err = ir.Print(os.Stdout, g)                // canonical JSON
//
// Tests write graphs in the one-line-per-node fixture language of
// internal/irtest.
package ir
