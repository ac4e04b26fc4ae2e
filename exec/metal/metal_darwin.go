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
	"context"
	"fmt"
	"runtime"
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

// mtlCommands is one command buffer with one compute encoder, both
// retained for the run and released after wait.
type mtlCommands struct {
	d     *mtlDevice
	mem   *mtlMemory
	label string
	cb    metal.CommandBufferObject
	enc   metal.ComputeCommandEncoderObject

	samples   metal.CounterSampleBufferObject
	sampled   int // 1 + the highest sample index written
	cpu0      metal.Timestamp
	gpu0      metal.Timestamp
	noBarrier bool
}

func (d *mtlDevice) newCommands(mem exec.Memory, label string, serial bool) (commands, error) {
	m, ok := mem.(*mtlMemory)
	if !ok {
		return nil, fmt.Errorf("%w: memory %T", ErrBadHandle, mem)
	}
	c := &mtlCommands{d: d, mem: m, label: label}
	dt := metal.DispatchTypeConcurrent
	if serial {
		dt = metal.DispatchTypeSerial
	}
	objc.WithAutoreleasePool(func() {
		c.cb = d.queue.CommandBuffer()
		if c.cb.Ptr() == nil {
			return
		}
		c.cb.Retain()
		c.cb.SetLabel(label)
		c.enc = c.cb.ComputeCommandEncoderWithDispatchType(dt)
		if c.enc.Ptr() != nil {
			c.enc.Retain()
		}
		if c.enc.Ptr() == nil {
			return
		}
		// objc.Call returns the zero value for a selector the object lacks:
		// a concurrent encoder without memoryBarrierWithScope: would drop
		// every barrier silently.
		if !serial && !c.enc.HasMemoryBarrierWithScope() {
			c.noBarrier = true
		}
		if d.sampling && c.enc.HasSampleCountersInBufferAtSampleIndexWithBarrier() {
			desc := metal.NewCounterSampleBufferDescriptor()
			defer desc.Release()
			desc.SetCounterSetObject(d.counterSet)
			desc.SetSampleCount(maxSamples)
			desc.SetStorageMode(metal.StorageModeShared)
			var nserr unsafe.Pointer
			c.samples = d.dev.NewCounterSampleBufferWithDescriptorError(desc, unsafe.Pointer(&nserr))
			d.dev.SampleTimestampsGpuTimestamp(&c.cpu0, &c.gpu0)
		}
	})
	if c.cb.Ptr() == nil || c.enc.Ptr() == nil {
		c.release()
		return nil, fmt.Errorf("%w: %s: could not create a command buffer and compute encoder", ErrCommandBuffer, label)
	}
	if c.noBarrier {
		c.release()
		return nil, fmt.Errorf("%w: %s: the concurrent compute encoder has no memoryBarrierWithScope:; use Options.Serial", ErrNoDevice, label)
	}
	return c, nil
}

func (c *mtlCommands) release() {
	if c.samples.Ptr() != nil {
		c.samples.Release()
	}
	if c.enc.Ptr() != nil {
		c.enc.Release()
	}
	if c.cb.Ptr() != nil {
		c.cb.Release()
	}
}

func (c *mtlCommands) setPipeline(kernel string) error {
	c.d.mu.Lock()
	p, ok := c.d.pipes[kernel]
	c.d.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w: %s: pipeline %q was not prepared", ErrKernel, c.label, kernel)
	}
	objc.Call[objc.Void](c.enc, selSetPipeline, p)
	return nil
}

func (c *mtlCommands) setBytes(data []byte, index int) error {
	if len(data) == 0 {
		return nil
	}
	var pin runtime.Pinner
	pin.Pin(&data[0])
	defer pin.Unpin()
	c.enc.SetBytesLengthAtIndex(unsafe.Pointer(&data[0]), uint(len(data)), uint(index))
	return nil
}

func (c *mtlCommands) setBuffer(buf int, offsetBytes int64, index int) error {
	if buf < 0 || buf >= len(c.mem.bufs) || offsetBytes < 0 || offsetBytes > c.mem.sizes[buf] {
		return fmt.Errorf("%w: %s: buffer %d offset %d", ErrRange, c.label, buf, offsetBytes)
	}
	objc.Call[objc.Void](c.enc, selSetBuffer, c.mem.bufs[buf], uint(offsetBytes), uint(index))
	return nil
}

func (c *mtlCommands) dispatch(groups, threadsPerGroup int) error {
	c.enc.DispatchThreadgroupsThreadsPerThreadgroup(
		metal.Size{Width: uint64(groups), Height: 1, Depth: 1},
		metal.Size{Width: uint64(threadsPerGroup), Height: 1, Depth: 1})
	return nil
}

func (c *mtlCommands) barrier() error {
	c.enc.MemoryBarrierWithScope(metal.BarrierScopeBuffers)
	return nil
}

// mark samples the timestamp counter around a dispatch. The sample is
// taken with a barrier, so timed runs serialise the dispatches they time:
// per-dispatch numbers are for finding slow kernels, not concurrency.
func (c *mtlCommands) mark(index int, end bool) error {
	if c.samples.Ptr() == nil {
		return nil
	}
	i := 2 * index
	if end {
		i++
	}
	if i >= maxSamples {
		return nil
	}
	objc.Call[objc.Void](c.enc, selSample, c.samples, uint(i), true)
	c.sampled = max(c.sampled, i+1)
	return nil
}

func (c *mtlCommands) commit() error {
	objc.WithAutoreleasePool(func() {
		metal.CommandEncoderObject{Object: c.enc.Object}.EndEncoding()
		c.cb.Commit()
	})
	return nil
}

func (c *mtlCommands) wait(ctx context.Context) (exec.Span, []exec.Span, error) {
	done := make(chan struct{})
	go func() {
		c.cb.WaitUntilCompleted()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		// The command buffer keeps running; it is released when it is done.
		go func() {
			<-done
			c.release()
		}()
		return exec.Span{}, nil, fmt.Errorf("metal: %s: %w", c.label, ctx.Err())
	}
	defer c.release()
	var (
		cb    exec.Span
		spans []exec.Span
		err   error
	)
	// Error, its description and the resolved samples are autoreleased.
	objc.WithAutoreleasePool(func() {
		if st := c.cb.Status(); st != metal.CommandBufferStatusCompleted {
			msg := fmt.Sprintf("status %d", st)
			if e := c.cb.Error(); e.Ptr() != nil {
				msg = e.LocalizedDescription()
			}
			err = fmt.Errorf("%w: %w: command buffer %q: %s", exec.ErrBackend, ErrCommandBuffer, c.label, msg)
			return
		}
		cb = exec.Span{StartNs: int64(float64(c.cb.GPUStartTime()) * 1e9), EndNs: int64(float64(c.cb.GPUEndTime()) * 1e9)}
		if c.samples.Ptr() == nil || c.sampled == 0 {
			return
		}
		var cpu1, gpu1 metal.Timestamp
		c.d.dev.SampleTimestampsGpuTimestamp(&cpu1, &gpu1)
		data := c.samples.ResolveCounterRange(foundation.Range{Location: 0, Length: uint64(c.sampled)})
		spans = dispatchSpans(data, c.sampled, cb.StartNs, uint64(c.cpu0), uint64(c.gpu0), uint64(cpu1), uint64(gpu1))
	})
	return cb, spans, err
}
