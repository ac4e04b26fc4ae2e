package cpu

import "errors"

// ErrKernel is a failure inside a kernel on this run's data (a Gather index
// out of range, an integer division by zero) or attributes it cannot use.
// Other failures wrap the exec sentinels (exec.ErrUnsupported for an op or
// dtype the backend lacks, exec.ErrProgram for malformed bindings,
// exec.ErrBackend for memory misuse).
var ErrKernel = errors.New("kernel failure")
