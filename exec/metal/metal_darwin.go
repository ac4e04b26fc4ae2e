//go:build darwin && cgo

package metal

// The darwin half: the device, command and memory interfaces of encode.go
// implemented with darwinkit. Nothing here decides what to encode; every
// call forwards a decision made in plan.go or encode.go.
//
// darwinkit v0.5.0 passes concrete Metal object parameters through
// objc.WrapAsProtocol, which panics for a struct type, so those selectors
// (setComputePipelineState:, setBuffer:offset:atIndex:,
// newComputePipelineStateWithFunction:error:,
// sampleCountersInBuffer:atSampleIndex:withBarrier:) are sent with
// objc.Call directly.

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/memplan/memplan/exec"
	"github.com/progrium/darwinkit/macos/foundation"
	"github.com/progrium/darwinkit/macos/metal"
	"github.com/progrium/darwinkit/objc"
)

// maxSamples bounds the counter sample buffer of one command buffer: two
// samples per dispatch, so dispatches with index below maxSamples/2 are
// timed.
const maxSamples = 4096

var (
	selSetPipeline = objc.Sel("setComputePipelineState:")
	selSetBuffer   = objc.Sel("setBuffer:offset:atIndex:")
	selNewPipeline = objc.Sel("newComputePipelineStateWithFunction:error:")
	selSample      = objc.Sel("sampleCountersInBuffer:atSampleIndex:withBarrier:")
)

// New opens the system default Metal device and returns a backend on it.
func New(opts Options) (*Backend, error) {
	ptr := defaultDevicePtr()
	if ptr == nil {
		return nil, ErrNoDevice
	}
	d := &mtlDevice{dev: metal.DeviceObject{Object: objc.ObjectFrom(ptr)}, pipes: map[string]metal.ComputePipelineStateObject{}}
	objc.WithAutoreleasePool(func() {
		d.queue = d.dev.NewCommandQueue()
		d.sampling = d.dev.HasSupportsCounterSampling() && d.dev.SupportsCounterSampling(metal.CounterSamplingPointAtDispatchBoundary) &&
			d.dev.Object.RespondsToSelector(objc.Sel("counterSets"))
		if d.sampling {
			d.sampling = false
			for _, cs := range d.dev.CounterSets() {
				if cs.Name() == string(metal.CommonCounterSetTimestamp) {
					d.counterSet = cs
					d.counterSet.Retain()
					d.sampling = true
				}
			}
		}
	})
	if d.queue.Ptr() == nil {
		d.dev.Release()
		return nil, fmt.Errorf("%w: newCommandQueue returned nil", ErrNoDevice)
	}
	return newBackend(d, opts), nil
}

// mtlDevice is a Metal device with its queue, library and pipelines.
type mtlDevice struct {
	dev        metal.DeviceObject
	queue      metal.CommandQueueObject
	sampling   bool
	counterSet metal.CounterSetObject

	mu    sync.Mutex
	lib   metal.LibraryObject
	pipes map[string]metal.ComputePipelineStateObject
}

func (d *mtlDevice) dispatchTiming() bool { return d.sampling }

func (d *mtlDevice) close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for k, p := range d.pipes {
		p.Release()
		delete(d.pipes, k)
	}
	for _, o := range []objc.Object{d.lib.Object, d.counterSet.Object, d.queue.Object, d.dev.Object} {
		if o.Ptr() != nil {
			o.Release()
		}
	}
	d.lib, d.counterSet, d.queue, d.dev = metal.LibraryObject{}, metal.CounterSetObject{}, metal.CommandQueueObject{}, metal.DeviceObject{}
	return nil
}

// nsError reads the NSError an ...error: out parameter left behind.
func nsError(p unsafe.Pointer) string {
	if p == nil {
		return "unknown error"
	}
	return foundation.ErrorFrom(p).LocalizedDescription()
}

// pipeline compiles the library on first use, then kernel's pipeline.
func (d *mtlDevice) pipeline(kernel string) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if p, ok := d.pipes[kernel]; ok {
		return int(p.MaxTotalThreadsPerThreadgroup()), nil
	}
	var err error
	objc.WithAutoreleasePool(func() {
		if d.lib.Ptr() == nil {
			src, serr := Source()
			if serr != nil {
				err = serr
				return
			}
			opts := metal.NewCompileOptions()
			defer opts.Release()
			var nserr unsafe.Pointer
			d.lib = d.dev.NewLibraryWithSourceOptionsError(src, opts, unsafe.Pointer(&nserr))
			if d.lib.Ptr() == nil {
				err = fmt.Errorf("%w: compiling the kernel library: %s", ErrKernel, nsError(nserr))
				return
			}
		}
		fn := d.lib.NewFunctionWithName(kernel)
		if fn.Ptr() == nil {
			err = fmt.Errorf("%w: no function %q in the kernel library", ErrKernel, kernel)
			return
		}
		defer fn.Release()
		var nserr unsafe.Pointer
		p := objc.Call[metal.ComputePipelineStateObject](d.dev, selNewPipeline, fn, unsafe.Pointer(&nserr))
		if p.Ptr() == nil {
			err = fmt.Errorf("%w: pipeline %q: %s", ErrKernel, kernel, nsError(nserr))
			return
		}
		d.pipes[kernel] = p
	})
	if err != nil {
		return 0, err
	}
	return int(d.pipes[kernel].MaxTotalThreadsPerThreadgroup()), nil
}

// mtlMemory is one MTLBuffer per program buffer, in shared storage.
type mtlMemory struct {
	bufs  []metal.BufferObject
	sizes []int64
}

func (d *mtlDevice) alloc(specs []exec.BufferSpec) (exec.Memory, error) {
	sizes, err := specSizes(specs)
	if err != nil {
		return nil, err
	}
	m := &mtlMemory{sizes: sizes}
	for i, n := range sizes {
		// Metal rejects empty buffers; give those a few bytes nobody reads.
		length := uint(max(n, 16))
		b := d.dev.NewBufferWithLengthOptions(length, metal.ResourceStorageModeShared|metal.ResourceHazardTrackingModeUntracked)
		if b.Ptr() == nil {
			_ = m.Release()
			return nil, fmt.Errorf("%w: buffer %d of %d bytes: newBufferWithLength returned nil", ErrNoDevice, i, n)
		}
		m.bufs = append(m.bufs, b)
		// Shared buffers are not guaranteed zeroed.
		clear(unsafe.Slice((*byte)(b.Contents()), length))
	}
	return m, nil
}

func (m *mtlMemory) bytes(buf int) []byte {
	return unsafe.Slice((*byte)(m.bufs[buf].Contents()), m.sizes[buf])
}

// Write copies src into buffer buf at off.
func (m *mtlMemory) Write(buf int, off int64, src []byte) error {
	if err := checkRange(m.sizes, buf, off, int64(len(src))); err != nil {
		return err
	}
	copy(m.bytes(buf)[off:], src)
	return nil
}

// Read copies buffer buf at off into dst.
func (m *mtlMemory) Read(buf int, off int64, dst []byte) error {
	if err := checkRange(m.sizes, buf, off, int64(len(dst))); err != nil {
		return err
	}
	copy(dst, m.bytes(buf)[off:])
	return nil
}

// Release releases every MTLBuffer.
func (m *mtlMemory) Release() error {
	for _, b := range m.bufs {
		b.Release()
	}
	m.bufs, m.sizes = nil, nil
	return nil
}
