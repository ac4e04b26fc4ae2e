// Package irtest is a tiny fixture language for tests: one line per value or
// node, so a table test can state its graph in a string, in the spirit of the
// Fun/Bloc/Valu DSL of the Go compiler's ssa tests.
//
//	x = input f32[4,8]
//	w = weight f32[8,8]
//	h = MatMul x w
//	y = Relu h
//	output y
//
// Lines, one statement each ('#' starts a comment, blank lines are skipped):
//
//	graph NAME                       name the graph (default "test")
//	x = input f32[4,8]               graph input
//	w = weight f32[8,8]              weight known by shape
//	w = weight f32[2] data=[1,2.5]   weight with data (numbers in the dtype)
//	c = constant i64[2] data=0x0100  constant, raw little-endian bytes in hex
//	h = MatMul x w                   core op; output type inferred
//	a, b = Split x axis=1 split=[4,4]   several outputs
//	v = view x +64 f32[2,8]          explicit contiguous view of x
//	s = view x +0 f32[4,4] strides=[32,4]   strided view (byte strides)
//	o = opaque MyOp(f32[2,2]) x w    op outside the core set, types given
//	p, q = opaque Two(f32[2], i64[]) x
//	output y z                       mark outputs
//	pin y "host reads it"            pin with a reason
//	keep y h                         y's producer keeps h alive
//	order y h                        explicit schedule: producers of y, h, ...
//
// Attribute values: 1 (int), 0.5 or 1e-5 or inf (float), [0,2,1] (ints),
// [0.5,1.0] (floats: any element with '.', 'e' or inf/nan), "text" or a bare
// word (string), for example to=f32, approximate=tanh.
package irtest
