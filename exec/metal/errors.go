package metal

import "errors"

// Sentinel errors of the Metal backend; wrapped with %w.
var (
	// ErrUnsupported reports an op, dtype, rank or attribute this backend
	// has no kernel for. Errors wrapping it also wrap exec.ErrUnsupported
	// when the exec package defines it.
	ErrUnsupported = errors.New("metal: unsupported")
	// ErrTooLarge reports a tensor whose element offsets do not fit the
	// kernels' 32-bit index arithmetic.
	ErrTooLarge = errors.New("metal: tensor too large for 32-bit indexing")
	// ErrLayout reports a binding whose byte offset or strides are not a
	// multiple of its element size.
	ErrLayout = errors.New("metal: misaligned binding")
	// ErrNoDevice reports that no Metal device is available (any host but
	// darwin with cgo, or a Mac without a GPU).
	ErrNoDevice = errors.New("metal: no Metal device")
	// ErrCommandBuffer reports a command buffer that completed with an
	// error; the message names the command buffer's label.
	ErrCommandBuffer = errors.New("metal: command buffer failed")
	// ErrKernel reports an unknown kernel or a kernel that failed to compile.
	ErrKernel = errors.New("metal: kernel")
	// ErrRange reports a Memory read or write outside its buffer.
	ErrRange = errors.New("metal: buffer access out of range")
	// ErrBadHandle reports a Kernel or Memory that this backend did not make.
	ErrBadHandle = errors.New("metal: foreign handle")
	// ErrEncoderState reports an encoder call out of order: a dispatch
	// after Commit, a second Commit, or Wait before Commit.
	ErrEncoderState = errors.New("metal: encoder call out of order")
)
