// Package launch plans the GPU launches of one exec.Dispatch: which kernel,
// with which argument struct, over which (buffer, byte offset) operands, on
// how many threads. It is everything a GPU backend decides that does not
// depend on the GPU API, so exec/metal and exec/cuda share it and it is
// tested on any machine.
//
// A dispatch becomes one or more launches (Concat and Split: one copy
// launch per piece). Each launch names a kernel of the backends' kernel
// sources (exec/metal/kernels/*.metal, exec/cuda/kernels/*.cu: the same
// names, the same argument structs), carries its argument struct both as a
// Go value (Args) and as the little-endian bytes a backend hands the GPU
// (Params: Metal's setBytes, a CUDA kernel's by-value struct parameter),
// and binds every tensor operand straight from its exec.Binding, so the
// arena is bound at the plan's offsets. Every operand is described by a
// Tensor (shape and element strides over the launch's logical index space,
// stride 0 broadcasts), so views, transposes and broadcasting cost no
// copies.
//
// Calls in order (a backend's Prepare):
//
//	ls, err := launch.Plan(d)  // holds d to its op's shape rule first (exec.Dispatch.CheckTypes)
//	for _, l := range ls {     // encode: kernel l.Kernel, args l.Params, operands l.Buffers, l.Threads threads
//	}
//
// Errors wrap ErrUnsupported (and exec.ErrUnsupported), ErrTooLarge or
// ErrLayout. ParamTypes lists the argument structs under their kernel-side
// names, for the backends' layout tests.
package launch
