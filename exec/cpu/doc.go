// Package cpu is the CPU backend of exec: plain Go kernels for the whole ir
// core op set and a bounded goroutine pool that runs each group of
// dispatches between two barriers concurrently.
//
// Memory is one 64-byte aligned []byte per program buffer (the arena and
// each external value); a kernel sees its operands as strided windows of
// those bytes (tensor.go), loads them into float64 or int64, computes, and
// stores through the output's strides, so views, broadcasting and in-place
// dispatches need no special cases. Floating-point kernels are f32 and f64;
// integer forms (i64, i32, i8, u8, bool) exist for the elementwise
// arithmetic, comparisons, Where, Gather, Cast and all data movement.
// A dispatch alone in its group splits its work (MatMul and Conv rows,
// elementwise chunks) over every worker; each output element is computed by
// one thread in a fixed order, so results are identical whatever the split,
// the mode, or the group layout: a serial run and a concurrent run give the
// same bits.
//
// Calls in order:
//
//	be := cpu.New(cpu.Options{})              // Workers: GOMAXPROCS
//	x, _ := exec.Load(be, prog)               // Alloc + Prepare
//	res, _ := x.Run(ctx, inputs, exec.RunOptions{})
package cpu
