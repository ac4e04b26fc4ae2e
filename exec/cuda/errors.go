package cuda

import (
	"errors"
	"strconv"
)

// Sentinel errors of the CUDA backend; wrapped with %w.
var (
	// ErrNoDriver reports that the CUDA driver (libcuda.so.1) or NVRTC
	// could not be loaded, or that the machine has no CUDA device.
	ErrNoDriver = errors.New("cuda: no CUDA driver")
	// ErrDriver reports a driver call that failed; the message names the
	// call and the CUresult (see [DriverError]).
	ErrDriver = errors.New("cuda: driver call failed")
	// ErrCompile reports kernel sources NVRTC rejected; the message holds
	// the compiler's log.
	ErrCompile = errors.New("cuda: kernel compile failed")
	// ErrKernel reports a kernel name the compiled module lacks.
	ErrKernel = errors.New("cuda: unknown kernel")
	// ErrRange reports a Memory read or write outside its buffer.
	ErrRange = errors.New("cuda: buffer access out of range")
	// ErrBadHandle reports a Kernel or Memory that this backend did not make.
	ErrBadHandle = errors.New("cuda: foreign handle")
	// ErrEncoderState reports an encoder call out of order: a dispatch
	// after Commit, a second Commit, or Wait before Commit.
	ErrEncoderState = errors.New("cuda: encoder call out of order")
	// ErrEdges reports program edges that name a dispatch the run did not
	// encode, or that do not point forward.
	ErrEdges = errors.New("cuda: bad edges")
)

// DriverError is a failed driver or NVRTC call: its name and result code.
// It wraps ErrDriver.
type DriverError struct {
	Call   string // e.g. "cuMemAlloc_v2"
	Code   int    // the CUresult or nvrtcResult
	Symbol string // e.g. "CUDA_ERROR_OUT_OF_MEMORY", when the driver names it
}

func (e *DriverError) Error() string {
	if e.Symbol != "" {
		return "cuda: " + e.Call + ": " + e.Symbol
	}
	return "cuda: " + e.Call + ": error " + strconv.Itoa(e.Code)
}

// Unwrap makes errors.Is(err, ErrDriver) hold.
func (e *DriverError) Unwrap() error { return ErrDriver }
