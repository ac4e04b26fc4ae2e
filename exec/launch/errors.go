package launch

import "errors"

// Sentinel errors of launch planning; wrapped with %w.
var (
	// ErrUnsupported reports an op, dtype, rank or attribute no GPU kernel
	// handles. Plan's errors wrapping it also wrap exec.ErrUnsupported.
	ErrUnsupported = errors.New("launch: unsupported")
	// ErrTooLarge reports a tensor whose element offsets do not fit the
	// kernels' 32-bit index arithmetic.
	ErrTooLarge = errors.New("launch: tensor too large for 32-bit indexing")
	// ErrLayout reports a binding whose byte offset or strides are not a
	// multiple of its element size.
	ErrLayout = errors.New("launch: misaligned binding")
)
