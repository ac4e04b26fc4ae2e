package exec

import "errors"

// Sentinel errors. Every error the package returns wraps one of them (or an
// error of the stage that failed: ir, planner, memranges).
var (
	// ErrMode is an unknown concurrency mode.
	ErrMode = errors.New("unknown mode")
	// ErrProgram is a program that does not match its graph or buffers: a
	// binding outside its buffer, a barrier out of range, an opaque node.
	ErrProgram = errors.New("invalid program")
	// ErrHazard is a read or write of bytes another dispatch writes (or
	// reads, for a write) that no barrier or edge orders, or two values
	// sharing bytes whose accesses interleave in the program's order.
	ErrHazard = errors.New("unordered memory hazard")
	// ErrUnsupported is an op or dtype a backend cannot run.
	ErrUnsupported = errors.New("unsupported op")
	// ErrInput is a missing or wrongly sized input tensor.
	ErrInput = errors.New("invalid input")
	// ErrBackend is a failure inside a backend (a kernel error, a device error).
	ErrBackend = errors.New("backend failure")
	// ErrClosed is a use of an executable after Close.
	ErrClosed = errors.New("executable closed")
)
