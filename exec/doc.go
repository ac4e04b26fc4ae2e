// Package exec runs planned graphs: the driver between the plan and a
// device.
//
// A graph, a schedule, a memory plan and barriers compile into a Program:
// plain data listing the device buffers (buffer 0 is the planned arena, one
// more per external input, weight or constant), one Dispatch per node that
// is not a pure view with a Binding per operand (buffer, byte offset of the
// first element, bounding byte window, dtype, shape, byte strides), and the
// positions of the barriers. Between two barriers the dispatches form a
// group that a Backend may run in any order or all at once; memranges
// proves that no two dispatches of a group touch the same bytes with a
// write. Three modes choose the barriers: Serial (after every dispatch),
// Inferred (memranges' minimal barriers for the schedule) and Reordered
// (memranges' reorder to the fewest barriers, then its barriers). Reference
// gives every value a fresh buffer of its own and runs serially: the run
// every other run must equal bit for bit, since the kernels are the same.
//
// A Backend (exec/cpu, exec/metal, exec/cuda) allocates buffers, prepares
// kernels and encodes dispatches and barriers; see [Backend] for how the
// verbs map onto the CPU, Metal and CUDA. An encoder that orders work point
// to point (EdgeEncoder: CUDA graph edges) receives Program.Edges before the
// first dispatch.
//
// Calls in order (Compile does the first three in one call):
//
//	order, _ := g.Schedule()
//	plan, _ := planner.PlanGraph(ctx, g, order, planner.Options{}) // any Objective
//	prog, _ := exec.CompilePlan(g, plan.Order, plan, exec.Inferred) // Assemble + Synchronize
//	x, _ := exec.Load(cpu.New(cpu.Options{}), prog)   // alloc, prepare, upload weights
//	res, _ := x.Run(ctx, inputs, exec.RunOptions{Profiler: p})
//	_ = res.Outputs                                   // dense bytes per output value
//	x.Close()
//
// A plan of the concurrency or balanced objective is grouped
// (planner.Plan.Groups): its lifespans hold only for orders that run its
// groups in turn, such as plan.Order; CompilePlan refuses others.
//
// Assemble builds a program from plain data (a Layout: buffers and a
// location per value; barrier positions) for callers with their own plan;
// Reference builds the every-value-its-own-buffer program. Program.Verify
// is the independent checker: it re-derives from the bindings and the graph
// every RAW, WAR and WAW hazard (an O(n^2) oracle sharing no code with
// memranges) and requires each to be ordered by a barrier (and by Edges
// when set), and every read to see its own root's last write
// (verify_hazards.go). Load refuses any binding outside its buffer, with
// overflow-checked arithmetic, before a kernel could touch it; InputBytes
// and Program.BufferBytes let a caller check a memory cap before
// allocating (cpu.Options.MaxBytes enforces one). Tests may set
// RunOptions.UnsafeDropBarriersForTesting to show that a missing barrier is
// caught; nothing else should.
package exec
