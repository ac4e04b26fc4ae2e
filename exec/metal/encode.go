package metal

// The backend proper, platform-neutral: exec.Backend and exec.Encoder over
// two small interfaces, device and commands, that metal_darwin.go
// implements with darwinkit and the tests implement with a recording fake.
//
// One run is one command buffer with one compute encoder, concurrent by
// default. For each dispatch the encoder replays the dispatch's launches:
//
//	setComputePipelineState   (pipeline compiled at Prepare, cached by name)
//	setBytes  args  index 0
//	setBuffer buf+offset index 1..k  (straight from the exec.Binding)
//	dispatchThreadgroups ceil(threads/tpg) x tpg
//
// and a Barrier from the program becomes memoryBarrierWithScope:
// MTLBarrierScopeBuffers. In serial mode (Options.Serial, for GPUs that
// mis-execute concurrent dispatch) the encoder is created serial, which
// orders every dispatch after the one before, and no barrier is encoded.

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/launch"
	"github.com/memplan/memplan/profile"
)

// DefaultThreadsPerGroup is the threadgroup width used when Options leave
// it zero and the pipeline allows it.
const DefaultThreadsPerGroup = 256

// Options configure the Metal backend.
type Options struct {
	// Serial encodes with a serial compute encoder and no barriers: every
	// dispatch runs after the previous one. Some discrete AMD GPUs
	// mis-execute concurrent dispatch (llama.cpp issues #19563, #25866).
	Serial bool
	// ThreadsPerGroup is the threadgroup width (0: DefaultThreadsPerGroup),
	// lowered to a pipeline's maximum where that is smaller.
	ThreadsPerGroup int
	// Label prefixes command buffer labels ("memplan" when empty); run n's
	// command buffer is labelled "<Label>#n" and errors name it.
	Label string
	// Profiler receives each command buffer's GPU span (always) and each
	// dispatch's span (when the device samples counters at dispatch
	// boundaries). Nil records nothing.
	Profiler *profile.Profiler
	// Warnf receives one-time warnings, such as per-dispatch timing being
	// unavailable. Nil drops them.
	Warnf func(format string, args ...any)
}

// device is a Metal device as the backend uses it.
type device interface {
	// alloc makes one zeroed buffer per spec (shared storage, untracked
	// hazards: the program's barriers are the only synchronisation).
	alloc(specs []exec.BufferSpec) (exec.Memory, error)
	// pipeline returns the maximum threadgroup width of kernel's pipeline,
	// compiling it from the embedded sources on first use.
	pipeline(kernel string) (maxThreads int, err error)
	// newCommands opens a command buffer labelled label over mem with one
	// compute encoder, serial or concurrent.
	newCommands(mem exec.Memory, label string, serial bool) (commands, error)
	// dispatchTiming reports whether counters can be sampled at dispatch
	// boundaries.
	dispatchTiming() bool
	// close releases the device's pipelines, library, queue and device.
	close() error
}

// commands is one command buffer with its compute encoder.
type commands interface {
	setPipeline(kernel string) error
	setBytes(data []byte, index int) error
	setBuffer(buf int, offsetBytes int64, index int) error
	dispatch(groups, threadsPerGroup int) error
	barrier() error
	// mark samples the GPU clock before (end=false) or after (end=true) the
	// launches of dispatch index; a no-op where the device cannot.
	mark(index int, end bool) error
	commit() error
	// wait blocks until the command buffer completes; it returns the GPU
	// span of the command buffer and the per-dispatch spans (nil when not
	// sampled), in nanoseconds of the host clock.
	wait(ctx context.Context) (cb exec.Span, dispatches []exec.Span, err error)
}

// Backend is the Metal exec.Backend.
type Backend struct {
	dev  device
	opts Options

	mu     sync.Mutex
	runs   int
	warned bool
}

var _ exec.Backend = (*Backend)(nil)

func newBackend(dev device, opts Options) *Backend {
	if opts.ThreadsPerGroup <= 0 {
		opts.ThreadsPerGroup = DefaultThreadsPerGroup
	}
	if opts.Label == "" {
		opts.Label = "memplan"
	}
	return &Backend{dev: dev, opts: opts}
}

// Close releases the device and everything compiled on it. Memory from
// Alloc must be released first; the Backend is unusable afterwards.
func (b *Backend) Close() error { return b.dev.close() }

// Name returns "metal".
func (b *Backend) Name() string { return "metal" }

// Alloc allocates one shared, untracked MTLBuffer per spec.
func (b *Backend) Alloc(specs []exec.BufferSpec) (exec.Memory, error) {
	return b.dev.alloc(specs)
}

// prepared is the Kernel Prepare returns: the dispatch's launches with the
// threadgroup width each pipeline allows.
type prepared struct {
	index    int
	launches []launch.Launch
	tpg      []int
}

// Prepare plans the dispatch's launches and compiles their pipelines.
func (b *Backend) Prepare(d *exec.Dispatch) (exec.Kernel, error) {
	ls, err := launch.Plan(d)
	if err != nil {
		return nil, err
	}
	k := &prepared{index: d.Index, launches: ls, tpg: make([]int, len(ls))}
	for i, l := range ls {
		maxT, err := b.dev.pipeline(l.Kernel)
		if err != nil {
			return nil, fmt.Errorf("metal: dispatch %d (%s %q): %w", d.Index, d.Op, d.Name, err)
		}
		k.tpg[i] = threadsPerGroup(b.opts.ThreadsPerGroup, maxT)
	}
	return k, nil
}

// threadsPerGroup is the width asked for, lowered to the pipeline's limit.
func threadsPerGroup(want, maxT int) int {
	if maxT > 0 && maxT < want {
		return maxT
	}
	return want
}

// grid returns the threadgroup count for threads threads of width tpg.
func grid(threads int64, tpg int) int {
	return int((threads + int64(tpg) - 1) / int64(tpg))
}

// NewEncoder opens one command buffer for a run.
func (b *Backend) NewEncoder(mem exec.Memory) (exec.Encoder, error) {
	b.mu.Lock()
	b.runs++
	label := b.opts.Label + "#" + strconv.Itoa(b.runs)
	warn := !b.warned && b.opts.Profiler != nil && !b.dev.dispatchTiming()
	b.warned = b.warned || warn
	b.mu.Unlock()
	if warn && b.opts.Warnf != nil {
		b.opts.Warnf("metal: this GPU cannot sample counters at dispatch boundaries; profiling per command buffer only")
	}
	cmds, err := b.dev.newCommands(mem, label, b.opts.Serial)
	if err != nil {
		return nil, err
	}
	return &encoder{b: b, cmds: cmds, label: label}, nil
}

// encoder is the exec.Encoder of one run.
type encoder struct {
	b         *Backend
	cmds      commands
	label     string
	committed bool
	n         int // 1 + the highest dispatch index encoded
}

// Dispatch encodes the launches of one prepared dispatch.
func (e *encoder) Dispatch(k exec.Kernel, d *exec.Dispatch) error {
	p, ok := k.(*prepared)
	if !ok {
		return fmt.Errorf("%w: kernel %T", ErrBadHandle, k)
	}
	if e.committed {
		return fmt.Errorf("%w: %s: dispatch %d after commit", ErrEncoderState, e.label, d.Index)
	}
	if err := e.cmds.mark(d.Index, false); err != nil {
		return err
	}
	e.n = max(e.n, d.Index+1)
	for i, l := range p.launches {
		if l.Threads == 0 {
			continue
		}
		if err := e.cmds.setPipeline(l.Kernel); err != nil {
			return err
		}
		if err := e.cmds.setBytes(l.Params, 0); err != nil {
			return err
		}
		for _, bd := range l.Buffers {
			if err := e.cmds.setBuffer(bd.Buffer, bd.OffsetBytes, bd.Index); err != nil {
				return err
			}
		}
		if err := e.cmds.dispatch(grid(l.Threads, p.tpg[i]), p.tpg[i]); err != nil {
			return err
		}
	}
	return e.cmds.mark(d.Index, true)
}

// Barrier encodes memoryBarrierWithScope:MTLBarrierScopeBuffers, or nothing
// on a serial encoder.
func (e *encoder) Barrier() error {
	if e.b.opts.Serial {
		return nil
	}
	return e.cmds.barrier()
}

// Commit ends encoding and commits the command buffer.
func (e *encoder) Commit() error {
	if e.committed {
		return fmt.Errorf("%w: %s: committed twice", ErrEncoderState, e.label)
	}
	e.committed = true
	return e.cmds.commit()
}

// Wait waits for the command buffer, records its GPU span (and the
// dispatch spans, when sampled) into the profiler and returns the timings.
func (e *encoder) Wait(ctx context.Context) (*exec.Timings, error) {
	if !e.committed {
		return nil, fmt.Errorf("%w: %s: wait before commit", ErrEncoderState, e.label)
	}
	cb, ds, err := e.cmds.wait(ctx)
	if err != nil {
		return nil, err
	}
	prof := e.b.opts.Profiler
	prof.RecordGroup("metal command buffer", cb.StartNs, cb.EndNs)
	if ds == nil {
		return nil, nil
	}
	t := &exec.Timings{Dispatches: make([]exec.Span, max(e.n, len(ds)))}
	for i, s := range ds {
		if s == (exec.Span{}) {
			continue
		}
		t.Dispatches[i] = exec.Span{StartNs: s.StartNs - cb.StartNs, EndNs: s.EndNs - cb.StartNs}
	}
	return t, nil
}
