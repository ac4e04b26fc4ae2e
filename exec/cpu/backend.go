package cpu

// The CPU backend: groups run on a bounded goroutine pool.
//
// The encoder records dispatches into the open group; Barrier closes it.
// Commit starts one goroutine that runs the groups in order: a group of n
// dispatches gets min(Workers, n) goroutines that take dispatches from a
// shared counter, and the next group starts only when every goroutine of
// this one has returned (the barrier). A dispatch alone in its group
// splits its work (MatMul and Conv rows, operand loads, elementwise chunks)
// over all Workers; in a group of several, each dispatch runs on its lane
// alone. Each output element is computed by exactly one chunk in a fixed
// order, so results do not depend on the split.
//
// Why not split inside groups too: on the 2-core machine, letting every
// dispatch of a group fork Workers chunks (the Go scheduler multiplexing
// them) measured slower than one thread per dispatch on wide_diamond in
// reordered mode (median 22 ms against 16 ms, docs/BENCHMARKS.md): the
// forks and joins cost more than the idle tail they save. The price is a
// group like [big MatMul, small Relu], where one core idles once the Relu
// is done; reordering makes such groups rare.
//
//	group 0: [#0 #1 #2]  --3 dispatches, 2 workers--> w0: #0 #2   w1: #1
//	barrier              wait for w0 and w1
//	group 1: [#3]        --alone--> #3 split in 2 chunks

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/memplan/memplan/exec"
)

// GroupOrder says how the dispatches of one group run.
type GroupOrder uint8

// Group orders. Every order is a legal execution of a group between
// barriers; tests use the sequential ones to make a missing barrier show
// deterministically, without a data race.
const (
	// Concurrent runs a group's dispatches on the worker pool (default).
	Concurrent GroupOrder = iota
	// InOrder runs them one after another in program order.
	InOrder
	// Reversed runs them one after another, last first.
	Reversed
)

// Options configure the CPU backend.
type Options struct {
	// Workers bounds the lanes (goroutines) that run one group's
	// dispatches and the chunks one dispatch splits into; 0 means
	// GOMAXPROCS.
	Workers int
	// Order is how a group's dispatches run (Concurrent by default).
	Order GroupOrder
	// BeforeDispatchForTesting, when non-nil, is called by the worker right
	// before each kernel starts (tests use it to delay a producer).
	BeforeDispatchForTesting func(d *exec.Dispatch)
	// MaxBytes, when positive, bounds the bytes one Alloc may take over all
	// its buffers: a larger program is refused before anything is
	// allocated.
	MaxBytes int64
}

// Backend is the CPU backend. It implements exec.Backend.
type Backend struct {
	opts Options
}

// New returns a CPU backend.
func New(opts Options) *Backend {
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	return &Backend{opts: opts}
}

// Name returns "cpu".
func (b *Backend) Name() string { return "cpu" }

// Workers returns the size of the worker pool.
func (b *Backend) Workers() int { return b.opts.Workers }

// alignBytes is the alignment of every buffer's first byte.
const alignBytes = 64

// memory is the set of buffers of one program.
type memory struct {
	bufs [][]byte
}

// Alloc allocates one zeroed, 64-byte aligned []byte per spec.
func (b *Backend) Alloc(specs []exec.BufferSpec) (exec.Memory, error) {
	total := int64(0)
	for i, s := range specs {
		if s.Bytes < 0 || s.Bytes > maxAlloc {
			return nil, fmt.Errorf("cpu: buffer %d: %d bytes: %w", i, s.Bytes, exec.ErrBackend)
		}
		total += s.Bytes // at most len(specs) * 16 GiB: no overflow
		if b.opts.MaxBytes > 0 && total > b.opts.MaxBytes {
			return nil, fmt.Errorf("cpu: the program's buffers need more than the %d-byte cap (buffer %d alone: %d bytes): %w", b.opts.MaxBytes, i, s.Bytes, exec.ErrBackend)
		}
	}
	m := &memory{bufs: make([][]byte, len(specs))}
	for i, s := range specs {
		if s.Bytes < 0 || s.Bytes > maxAlloc {
			return nil, fmt.Errorf("cpu: buffer %d: %d bytes: %w", i, s.Bytes, exec.ErrBackend)
		}
		raw := make([]byte, s.Bytes+alignBytes)
		skip := (alignBytes - int(uintptr(unsafe.Pointer(unsafe.SliceData(raw)))%alignBytes)) % alignBytes
		m.bufs[i] = raw[skip : skip+int(s.Bytes) : skip+int(s.Bytes)]
	}
	return m, nil
}

// maxAlloc bounds one buffer (16 GiB): a larger request is an error, not a crash.
const maxAlloc = 16 << 30

func (m *memory) check(buf int, off int64, n int) ([]byte, error) {
	if m.bufs == nil {
		return nil, exec.ErrClosed
	}
	if buf < 0 || buf >= len(m.bufs) || off < 0 || off+int64(n) > int64(len(m.bufs[buf])) {
		return nil, fmt.Errorf("cpu: access buffer %d [%d, %d) out of range: %w", buf, off, off+int64(n), exec.ErrBackend)
	}
	return m.bufs[buf][off : off+int64(n)], nil
}

func (m *memory) Write(buf int, off int64, src []byte) error {
	dst, err := m.check(buf, off, len(src))
	if err != nil {
		return err
	}
	copy(dst, src)
	return nil
}

func (m *memory) Read(buf int, off int64, dst []byte) error {
	src, err := m.check(buf, off, len(dst))
	if err != nil {
		return err
	}
	copy(dst, src)
	return nil
}

func (m *memory) Release() error {
	m.bufs = nil
	return nil
}

// kernel is a prepared dispatch: the op's function.
type kernel struct {
	fn kernelFunc
}

// Prepare finds the kernel for d's op and checks its dtypes and arity.
func (b *Backend) Prepare(d *exec.Dispatch) (exec.Kernel, error) {
	if err := d.CheckTypes(); err != nil {
		return nil, err
	}
	fn, err := lookup(d)
	if err != nil {
		return nil, err
	}
	return &kernel{fn: fn}, nil
}

type cmd struct {
	k *kernel
	d *exec.Dispatch
}

type encoder struct {
	be      *Backend
	mem     *memory
	groups  [][]cmd
	cur     []cmd
	ndisp   int
	done    chan struct{}
	err     error
	timings exec.Timings
	t0      time.Time
	stop    atomic.Bool // set when Wait's context ends: no further group starts
}

// NewEncoder opens a command list over mem (from this backend's Alloc).
func (b *Backend) NewEncoder(mem exec.Memory) (exec.Encoder, error) {
	m, ok := mem.(*memory)
	if !ok || m.bufs == nil {
		return nil, fmt.Errorf("cpu: memory not allocated by the cpu backend: %w", exec.ErrBackend)
	}
	return &encoder{be: b, mem: m}, nil
}

func (e *encoder) Dispatch(k exec.Kernel, d *exec.Dispatch) error {
	kk, ok := k.(*kernel)
	if !ok || e.done != nil {
		return fmt.Errorf("cpu: dispatch %d %q: foreign kernel or encoder already committed: %w", d.Index, d.Name, exec.ErrBackend)
	}
	e.cur = append(e.cur, cmd{kk, d})
	e.ndisp = max(e.ndisp, d.Index+1)
	return nil
}

func (e *encoder) Barrier() error {
	if len(e.cur) > 0 {
		e.groups = append(e.groups, e.cur)
		e.cur = nil
	}
	return nil
}

func (e *encoder) Commit() error {
	if e.done != nil {
		return fmt.Errorf("cpu: committed twice: %w", exec.ErrBackend)
	}
	_ = e.Barrier()
	e.done = make(chan struct{})
	e.timings.Dispatches = make([]exec.Span, e.ndisp)
	e.t0 = time.Now()
	go func() {
		defer close(e.done)
		e.err = e.runAll()
	}()
	return nil
}

func (e *encoder) Wait(ctx context.Context) (*exec.Timings, error) {
	if e.done == nil {
		return nil, fmt.Errorf("cpu: wait before commit: %w", exec.ErrBackend)
	}
	select {
	case <-e.done:
	case <-ctx.Done():
		// No further group starts; the running one finishes (kernels are
		// not interruptible) so no goroutine outlives the run.
		e.stop.Store(true)
		<-e.done
		return nil, fmt.Errorf("cpu: run cancelled: %w", ctx.Err())
	}
	if e.err != nil {
		return nil, e.err
	}
	return &e.timings, nil
}

func (e *encoder) runAll() error {
	for i, g := range e.groups {
		if e.stop.Load() {
			return fmt.Errorf("cpu: stopped before group %d of %d: %w", i, len(e.groups), context.Canceled)
		}
		start := time.Since(e.t0).Nanoseconds()
		if err := e.runGroup(g); err != nil {
			return err
		}
		e.timings.Groups = append(e.timings.Groups, exec.Span{StartNs: start, EndNs: time.Since(e.t0).Nanoseconds()})
	}
	return nil
}

func (e *encoder) runGroup(g []cmd) error {
	w := e.be.opts.Workers
	switch {
	case e.be.opts.Order == InOrder || (e.be.opts.Order == Concurrent && (len(g) == 1 || w == 1)):
		threads := w
		if len(g) > 1 {
			threads = 1
		}
		for _, c := range g {
			if err := e.run(c, 0, threads); err != nil {
				return err
			}
		}
		return nil
	case e.be.opts.Order == Reversed:
		for i := len(g) - 1; i >= 0; i-- {
			if err := e.run(g[i], 0, 1); err != nil {
				return err
			}
		}
		return nil
	}
	lanes := min(w, len(g))
	threads := 1 // the lanes already fill the cores; see the file comment
	var next atomic.Int64
	errs := make([]error, len(g))
	var wg sync.WaitGroup
	for lane := 0; lane < lanes; lane++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(g) {
					return
				}
				errs[i] = e.run(g[i], lane, threads)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (e *encoder) run(c cmd, lane, threads int) error {
	if f := e.be.opts.BeforeDispatchForTesting; f != nil {
		f(c.d)
	}
	start := time.Since(e.t0).Nanoseconds()
	err := safeRun(c.k.fn, &call{d: c.d, mem: e.mem, threads: threads})
	if c.d.Index >= 0 && c.d.Index < len(e.timings.Dispatches) {
		e.timings.Dispatches[c.d.Index] = exec.Span{StartNs: start, EndNs: time.Since(e.t0).Nanoseconds(), Lane: lane}
	}
	if err != nil {
		return fmt.Errorf("cpu: dispatch %d %q (%s): %w", c.d.Index, c.d.Name, c.d.Op, err)
	}
	return nil
}

// safeRun runs a kernel and turns a panic (a hand-built program whose
// bindings lie outside their buffers) into an error.
func safeRun(fn kernelFunc, c *call) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("kernel panicked: %v: %w", r, exec.ErrBackend)
		}
	}()
	return fn(c)
}
