// Package metal is the Metal backend of exec: it runs a planned program on
// an Apple GPU with one arena MTLBuffer, every value bound as a slice of it
// with setBuffer:offset:atIndex: at the plan's offset, one concurrent
// compute encoder per run, and memoryBarrierWithScope:MTLBarrierScopeBuffers
// exactly where memranges put the program's barriers.
//
// The package is split so that Linux can test it. Everything that decides
// what to encode is platform-neutral: launch.Plan (package exec/launch,
// shared with exec/cuda) turns a dispatch into launches (kernel,
// argument struct, bindings, thread count), and the Backend and its encoder
// (encode.go) replay them, with barriers, onto a small command interface.
// The darwin files (metal_darwin.go, commands_darwin.go, device_darwin.go;
// `//go:build darwin && cgo`) implement that interface
// with darwinkit and only forward: the device from MTLCreateSystemDefaultDevice,
// a command queue, shared untracked buffers, pipelines compiled at first use
// from the embedded MSL sources (kernels/*.metal), commit and wait with
// errors naming the command buffer's label, GPUStartTime/GPUEndTime per
// command buffer into the profiler, and per-dispatch counter samples where
// the GPU samples at dispatch boundaries (a one-time warning otherwise).
//
// Kernels are small and uniform: one thread per output element (or per
// row, for softmax, norms and reductions), every operand described by a
// Tensor of shape and element strides over the launch's logical index
// space, so broadcasting, transposes, slices and views at offsets cost no
// copies. Each kernel's CPU twin in exec/cpu is the reference for its
// parameters; the tests run Go twins of the MSL kernels on host memory
// through the real driver and compare every graph with the CPU backend.
//
// The calls, in order, are exec's:
//
//	be, err := metal.New(metal.Options{})      // ErrNoDevice off darwin
//	x, err := exec.Load(be, prog)               // Alloc, Prepare per dispatch
//	res, err := x.Run(ctx, inputs, exec.RunOptions{})
//
// On Linux, `go test ./exec/metal` checks the encoding against a recording
// fake; `go run ./internal/tools/darwincheck ./exec/metal` type-checks the
// darwin files. Run on a Mac with `go test ./exec/metal` to run every
// testdata graph and zoo model on the GPU against the CPU backend, in
// serial and concurrent modes.
package metal
