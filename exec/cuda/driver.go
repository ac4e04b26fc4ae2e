package cuda

// The driver seam: everything the backend asks of CUDA, as a small
// interface. driver_linux.go implements it over libcuda.so.1 and
// libnvrtc.so through purego (no cgo); the tests implement it with a fake
// that keeps device memory in host slices and records every launch and
// graph node, so memory, parameter packing, graph building and timing are
// tested on any machine.

import (
	"encoding/binary"
	"unsafe"
)

// devPtr is a device address (CUdeviceptr).
type devPtr uint64

// handle is an opaque driver object: a CUfunction, CUstream, CUevent,
// CUgraph, CUgraphExec or CUgraphNode.
type handle uintptr

// kernelLaunch is one kernel launch as the driver receives it: the
// function, a one-dimensional grid of Blocks blocks of Threads threads, the
// argument struct's bytes (parameter 0, by value) and one device pointer
// per further parameter.
type kernelLaunch struct {
	fn      handle
	blocks  int
	threads int
	params  []byte
	ptrs    []devPtr
}

// driver is the CUDA driver API as the backend uses it: one device, its
// primary context, and one module compiled from the embedded kernels.
// Every call may fail with a *DriverError.
type driver interface {
	// deviceName names the device ("NVIDIA H100 80GB HBM3").
	deviceName() string
	// memAlloc allocates bytes (> 0) of device memory (cuMemAlloc).
	memAlloc(bytes int64) (devPtr, error)
	memFree(p devPtr) error
	// memZero sets bytes bytes at p to zero.
	memZero(p devPtr, bytes int64) error
	copyHtoD(dst devPtr, src []byte) error
	copyDtoH(dst []byte, src devPtr) error
	// memInfo returns the device's free and total memory (cuMemGetInfo).
	memInfo() (free, total int64, err error)
	// function looks a kernel up in the module.
	function(name string) (handle, error)
	streamCreate() (handle, error)
	streamSync(s handle) error
	streamDestroy(s handle) error
	launch(s handle, l *kernelLaunch) error
	eventCreate() (handle, error)
	eventRecord(e, s handle) error
	// eventQuery reports whether the work before e has finished.
	eventQuery(e handle) (bool, error)
	eventSync(e handle) error
	// eventElapsedMs is the time between two recorded, finished events.
	eventElapsedMs(start, end handle) (float32, error)
	eventDestroy(e handle) error
	graphCreate() (handle, error)
	// graphAddKernel adds a kernel node that runs after every node of deps.
	graphAddKernel(g handle, deps []handle, l *kernelLaunch) (handle, error)
	// graphAddEmpty adds a node that does nothing but join deps.
	graphAddEmpty(g handle, deps []handle) (handle, error)
	graphInstantiate(g handle) (handle, error)
	graphLaunch(x, s handle) error
	graphExecDestroy(x handle) error
	graphDestroy(g handle) error
	// close unloads the module and releases the primary context.
	close() error
}

// packArgs lays out a launch's kernel parameters: the argument struct, then
// each device pointer, in one block (8-byte aligned), and the array of
// pointers to each of them that the driver reads. Both stay alive through
// runtime.KeepAlive at the caller.
func packArgs(l *kernelLaunch) (block []byte, ptrs []uintptr) {
	n := (len(l.params) + 7) &^ 7
	block = make([]byte, n+8*len(l.ptrs)+8)
	copy(block, l.params)
	base := uintptr(unsafe.Pointer(&block[0]))
	ptrs = make([]uintptr, 0, 1+len(l.ptrs))
	ptrs = append(ptrs, base)
	for i, p := range l.ptrs {
		off := n + 8*i
		binary.LittleEndian.PutUint64(block[off:], uint64(p))
		ptrs = append(ptrs, base+uintptr(off))
	}
	return block, ptrs
}
