package exec

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/profile"
)

// Executable is a program loaded on a backend: buffers allocated, kernels
// prepared, weights and constants with data uploaded. Run it any number of
// times; concurrent Runs are serialised. Close frees the buffers.
type Executable struct {
	mu      sync.Mutex // one run at a time
	prog    *Program
	be      Backend
	mem     Memory
	kernels []Kernel
}

// RunOptions tune one run.
type RunOptions struct {
	// Profiler, when non-nil, receives one entry per dispatch and one span
	// per group (wall-clock times from the backend), and the run's span.
	Profiler *profile.Profiler
	// UnsafeDropBarriersForTesting encodes no barriers at all, so every
	// dispatch may run at the same time as every other. Results are then
	// undefined whenever the program has a hazard. Tests use it to show that
	// a missing barrier is caught; never set it anywhere else.
	UnsafeDropBarriersForTesting bool
}

// Result is what a run returns.
type Result struct {
	// Outputs maps each graph output to its dense row-major little-endian
	// bytes (views are gathered through their strides).
	Outputs map[ir.ValueID][]byte
	// Wall is the time from Commit to the end of Wait.
	Wall time.Duration
	// Timings are the backend's measurements, or nil.
	Timings *Timings
}

// Load allocates the program's buffers on be, prepares every dispatch's
// kernel, and uploads every weight and constant that carries data. It
// first refuses a program with a binding outside its buffer (so no kernel
// can touch bytes it does not own), and reports every dispatch the backend
// cannot run.
func Load(be Backend, p *Program) (*Executable, error) {
	if p == nil || be == nil {
		return nil, fmt.Errorf("exec: load needs a program and a backend: %w", ErrProgram)
	}
	if p.Graph == nil || len(p.Values) != len(p.Graph.Values) {
		return nil, fmt.Errorf("exec: load: the program has no graph or not one location per value: %w", ErrProgram)
	}
	if err := checkBindings(p); err != nil {
		return nil, err
	}
	x := &Executable{prog: p, be: be, kernels: make([]Kernel, len(p.Dispatches))}
	var errs []error
	for i := range p.Dispatches {
		k, err := be.Prepare(&p.Dispatches[i])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		x.kernels[i] = k
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	mem, err := be.Alloc(p.Buffers)
	if err != nil {
		return nil, fmt.Errorf("exec: %s: alloc: %w", be.Name(), err)
	}
	x.mem = mem
	for _, v := range p.Graph.Values {
		if v.Data == nil || v.View != nil || !v.IsExternal() {
			continue
		}
		if err := x.write(v, v.Data); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		_ = mem.Release()
		return nil, errors.Join(errs...)
	}
	return x, nil
}

// Program returns the program the executable runs.
func (x *Executable) Program() *Program { return x.prog }

// write uploads a root value's dense bytes.
func (x *Executable) write(v *ir.Value, data []byte) error {
	n, err := v.Bytes()
	if err != nil {
		return err
	}
	if int64(len(data)) != n {
		return fmt.Errorf("exec: value %d %q: %d bytes given, %v%v needs %d: %w", v.ID, v.Name, len(data), v.DType, v.Shape, n, ErrInput)
	}
	b := &x.prog.Values[v.ID]
	if err := x.mem.Write(b.Buffer, b.OffsetBytes, data); err != nil {
		return fmt.Errorf("exec: value %d %q: write: %w", v.ID, v.Name, err)
	}
	return nil
}

// NeedsData returns the values a run must be given: every graph input and
// every weight or constant without data, ascending by ID.
func NeedsData(g *ir.Graph) []ir.ValueID {
	var ids []ir.ValueID
	for _, v := range g.Values {
		if v.View != nil {
			continue
		}
		if v.Flags&ir.FlagInput != 0 || (v.IsExternal() && v.Data == nil) {
			ids = append(ids, v.ID)
		}
	}
	return ids
}

// Run writes the inputs (dense little-endian bytes per value; every value of
// NeedsData must be present), encodes the dispatches with barriers, waits,
// and reads the graph outputs back.
func (x *Executable) Run(ctx context.Context, inputs map[ir.ValueID][]byte, opts RunOptions) (*Result, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.mem == nil {
		return nil, ErrClosed
	}
	g := x.prog.Graph
	var errs []error
	for _, id := range NeedsData(g) {
		data, ok := inputs[id]
		if !ok {
			errs = append(errs, fmt.Errorf("exec: value %d %q: no data given: %w", id, g.Values[id].Name, ErrInput))
			continue
		}
		if err := x.write(g.Values[id], data); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	enc, err := x.be.NewEncoder(x.mem)
	if err != nil {
		return nil, fmt.Errorf("exec: %s: new encoder: %w", x.be.Name(), err)
	}
	if ee, ok := enc.(EdgeEncoder); ok && x.prog.Edges != nil && !opts.UnsafeDropBarriersForTesting {
		if err := ee.UseEdges(x.prog.Edges); err != nil {
			return nil, fmt.Errorf("exec: %s: edges: %w", x.be.Name(), err)
		}
	}
	bi := 0
	for i := range x.prog.Dispatches {
		if bi < len(x.prog.Barriers) && x.prog.Barriers[bi] == i {
			bi++
			if !opts.UnsafeDropBarriersForTesting {
				if err := enc.Barrier(); err != nil {
					return nil, fmt.Errorf("exec: %s: barrier before dispatch %d: %w", x.be.Name(), i, err)
				}
			}
		}
		if err := enc.Dispatch(x.kernels[i], &x.prog.Dispatches[i]); err != nil {
			return nil, fmt.Errorf("exec: %s: dispatch %d: %w", x.be.Name(), i, err)
		}
	}
	t0 := time.Now()
	if err := enc.Commit(); err != nil {
		return nil, fmt.Errorf("exec: %s: commit: %w", x.be.Name(), err)
	}
	tim, err := enc.Wait(ctx)
	wall := time.Since(t0)
	if err != nil {
		return nil, fmt.Errorf("exec: %s: %w", x.be.Name(), err)
	}
	x.record(opts.Profiler, t0, wall, tim)
	res := &Result{Outputs: map[ir.ValueID][]byte{}, Wall: wall, Timings: tim}
	for _, id := range g.ValuesWith(ir.FlagOutput) {
		out, err := x.read(id)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		res.Outputs[id] = out
	}
	return res, errors.Join(errs...)
}

// Read returns the current contents of any value as dense row-major bytes,
// gathered through its strides. Values that a plan shares may hold a later
// value's bytes: only outputs (and inputs) are meaningful after a run.
func (x *Executable) Read(id ir.ValueID) ([]byte, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.read(id)
}

func (x *Executable) read(id ir.ValueID) ([]byte, error) {
	if x.mem == nil {
		return nil, ErrClosed
	}
	if id < 0 || int(id) >= len(x.prog.Values) {
		return nil, fmt.Errorf("exec: read of value %d: %w", id, ErrProgram)
	}
	b := &x.prog.Values[id]
	win := make([]byte, b.HiBytes-b.LoBytes)
	if err := x.mem.Read(b.Buffer, b.LoBytes, win); err != nil {
		return nil, fmt.Errorf("exec: value %d: read: %w", id, err)
	}
	return gather(win, b.OffsetBytes-b.LoBytes, b.DType.Size(), b.Shape, b.StridesBytes), nil
}

// gather copies a strided tensor whose element 0 is at byte off of src into
// dense row-major bytes.
func gather(src []byte, off, elem int64, shape ir.Shape, strides []int64) []byte {
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	out := make([]byte, n*elem)
	idx := make([]int64, len(shape))
	pos := off
	for k := int64(0); k < n; k++ {
		copy(out[k*elem:(k+1)*elem], src[pos:pos+elem])
		for a := len(shape) - 1; a >= 0; a-- {
			idx[a]++
			pos += strides[a]
			if idx[a] < shape[a] {
				break
			}
			pos -= idx[a] * strides[a]
			idx[a] = 0
		}
	}
	return out
}

// record hands the backend's timings to the profiler.
func (x *Executable) record(p *profile.Profiler, t0 time.Time, wall time.Duration, tim *Timings) {
	if p == nil {
		return
	}
	base := t0.UnixNano()
	p.SetGraph(x.prog.Graph.Name)
	if tim != nil {
		groupOf := make([]int, len(x.prog.Dispatches))
		for gi, gr := range x.prog.Groups() {
			id := -1
			if gi < len(tim.Groups) {
				s := tim.Groups[gi]
				id = p.RecordGroup(fmt.Sprintf("group %d", gi), base+s.StartNs, base+s.EndNs)
			}
			for i := gr[0]; i < gr[1]; i++ {
				groupOf[i] = id
			}
		}
		for i := range x.prog.Dispatches {
			if i >= len(tim.Dispatches) {
				break
			}
			d := &x.prog.Dispatches[i]
			s := tim.Dispatches[i]
			var bytes int64
			for _, bs := range [][]Binding{d.Inputs, d.Outputs} {
				for _, b := range bs {
					bytes += b.HiBytes - b.LoBytes
				}
			}
			kind := ""
			if info, ok := ir.LookupOp(d.Op); ok {
				kind = info.Kind.String()
			}
			p.RecordDispatch(profile.Dispatch{Label: d.Name, Kind: kind, Index: i, Group: groupOf[i], Lane: s.Lane,
				StartNs: base + s.StartNs, EndNs: base + s.EndNs, Bytes: bytes})
		}
		for gi, b := range x.prog.Barriers {
			if gi < len(tim.Groups) {
				p.RecordBarrier(profile.Barrier{Before: b, AtNs: base + tim.Groups[gi].EndNs})
			}
		}
	}
	p.RecordRun(base, base+wall.Nanoseconds())
}

// Close releases the buffers. Closing twice is harmless.
func (x *Executable) Close() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.mem == nil {
		return nil
	}
	err := x.mem.Release()
	x.mem = nil
	return err
}

// RunOnce loads p on be, runs it once, and closes it.
func RunOnce(ctx context.Context, be Backend, p *Program, inputs map[ir.ValueID][]byte, opts RunOptions) (*Result, error) {
	x, err := Load(be, p)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	return x.Run(ctx, inputs, opts)
}
