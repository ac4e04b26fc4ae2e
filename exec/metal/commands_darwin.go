//go:build darwin && cgo

package metal

// One run's command buffer and compute encoder, forwarding the encoder's
// decisions (encode.go) to Metal.

import (
	"context"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/memplan/memplan/exec"
	"github.com/progrium/darwinkit/macos/foundation"
	"github.com/progrium/darwinkit/macos/metal"
	"github.com/progrium/darwinkit/objc"
)

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
