// Package cuda is the CUDA backend of exec: it runs a planned program on an
// NVIDIA GPU with one device allocation for the arena and one per external
// buffer, every operand bound as that buffer's base address plus the plan's
// byte offset, and the program's synchronisation replayed from a CUDA graph
// instantiated once per program.
//
// No cgo: the driver API (libcuda.so.1) and NVRTC (libnvrtc.so.13) are
// loaded at run time through purego (driver_linux.go), found in
// Options.LibDirs first and then by the dynamic loader. Every driver call
// locks its goroutine to an OS thread and makes the device's primary
// context current first, since a CUDA context is current per thread and Go
// moves goroutines. Everything above the driver goes through a small
// interface (driver.go), so memory, parameter packing, graph building and
// timing are tested on any machine against a recording fake; the GPU tests
// skip with a one-line reason where libcuda.so.1 cannot be loaded.
//
// Kernels are CUDA C (kernels/*.cu, one file per op family, the same
// families and names as exec/metal's MSL), compiled by NVRTC once per
// process for the device's compute capability, with the argument structs
// generated from exec/launch's Go types (launch.CDecls) so the two cannot
// drift. What to launch is decided by exec/launch, shared with the Metal
// backend: launch.Plan turns a dispatch into launches (kernel, argument
// bytes, operands), after exec.Dispatch.CheckTypes holds it to its op's
// shape rule. Each kernel takes its argument struct by value and then one
// pointer per operand; one thread per output element (consecutive threads
// on consecutive elements, so contiguous operands are coalesced), except
// the matrix products and the row kernels (one warp per softmax/norm/
// reduction row). Conv (as an implicit GEMM: the input patch is gathered
// on the fly, no im2col buffer) and the larger MatMul/Gemm run gemm.cu's
// register-tiled kernels: 128x128, 64x64 or 32x32 output tiles, 8x8 or 4x4
// sums per thread, K in double-buffered shared-memory stages split among
// the block's thread groups and summed in a fixed order; geometry.go picks
// the tile from the launch's shape alone, so every mode runs the same
// kernel and gets the same bits. Small products keep matmul_f32 (16 x 16
// tiles); depthwise and narrow grouped convolutions the direct kernels.
//
// Synchronisation (Options.Sync):
//
//   - Barriers: the graph's nodes are the launches; each barrier group's
//     nodes depend on the previous group's join node, so a serial program
//     is a chain and the inferred and reordered programs keep exactly the
//     barriers memranges placed.
//   - Edges: the graph's dependencies are Program.Edges (the transitive
//     reduction of the conflict DAG, handed over through exec.EdgeEncoder);
//     barriers are ignored.
//   - Stream: no graph; the launches go to one stream in program order,
//     with an event between dispatches for per-dispatch timings.
//
// Timings: events around each graph launch give Timings.Device (the GPU
// time of the whole run); in stream mode also Timings.Dispatches and
// Timings.Groups, which exec hands to the profiler.
//
// The calls, in order, are exec's:
//
//	be, err := cuda.New(cuda.Options{})       // ErrNoDriver without a driver
//	x, err := exec.Load(be, prog)              // Alloc (cuMemAlloc per buffer), Prepare per dispatch
//	res, err := x.Run(ctx, inputs, exec.RunOptions{}) // graph built and instantiated at the first run
//	x.Close(); be.Close()
package cuda
