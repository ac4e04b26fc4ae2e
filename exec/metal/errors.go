package metal

import (
	"errors"

	"github.com/memplan/memplan/exec/launch"
)

// Sentinel errors of the Metal backend; wrapped with %w.
var (
	// ErrUnsupported reports an op, dtype, rank or attribute this backend
	// has no kernel for: launch planning's sentinel (exec/launch), shared
	// with exec/cuda. Errors wrapping it also wrap exec.ErrUnsupported.
	ErrUnsupported = launch.ErrUnsupported
	// ErrTooLarge reports a tensor whose element offsets do not fit the
	// kernels' 32-bit index arithmetic (exec/launch's sentinel).
	ErrTooLarge = launch.ErrTooLarge
	// ErrLayout reports a binding whose byte offset or strides are not a
	// multiple of its element size (exec/launch's sentinel).
	ErrLayout = launch.ErrLayout
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
