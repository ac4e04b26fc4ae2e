package metal

// A recording fake of the Metal device: it keeps every command the
// backend encodes, and (when emulate is set) runs each launch on host
// memory with the Go twins of the MSL kernels (emulate_test.go), so the
// driver can run whole graphs through the Metal backend on Linux.

import (
	"context"
	"fmt"
	"sync"

	"github.com/memplan/memplan/exec"
)

// event is one recorded command.
type event struct {
	kind    string // pipeline, bytes, buffer, dispatch, barrier, mark, commit
	kernel  string
	data    []byte
	buf     int
	off     int64
	index   int
	groups  int
	tpg     int
	end     bool
	dispIdx int
}

type fakeDevice struct {
	maxThreads int
	timing     bool
	emulate    bool
	kernels    map[string]bool

	mu       sync.Mutex
	compiled map[string]int // pipeline compilations per kernel
	runs     []*fakeCommands
}

func newFakeDevice(kernels []string) *fakeDevice {
	d := &fakeDevice{maxThreads: 192, kernels: map[string]bool{}, compiled: map[string]int{}}
	for _, k := range kernels {
		d.kernels[k] = true
	}
	return d
}

type hostMemory struct {
	bufs  [][]byte
	sizes []int64
}

func (d *fakeDevice) alloc(specs []exec.BufferSpec) (exec.Memory, error) {
	sizes, err := specSizes(specs)
	if err != nil {
		return nil, err
	}
	m := &hostMemory{sizes: sizes}
	for _, n := range sizes {
		m.bufs = append(m.bufs, make([]byte, n))
	}
	return m, nil
}

func (m *hostMemory) Write(buf int, off int64, src []byte) error {
	if err := checkRange(m.sizes, buf, off, int64(len(src))); err != nil {
		return err
	}
	copy(m.bufs[buf][off:], src)
	return nil
}

func (m *hostMemory) Read(buf int, off int64, dst []byte) error {
	if err := checkRange(m.sizes, buf, off, int64(len(dst))); err != nil {
		return err
	}
	copy(dst, m.bufs[buf][off:])
	return nil
}

func (m *hostMemory) Release() error { return nil }

func (d *fakeDevice) pipeline(kernel string) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.kernels[kernel] {
		return 0, fmt.Errorf("%w: no function %q in the kernel library", ErrKernel, kernel)
	}
	d.compiled[kernel]++
	return d.maxThreads, nil
}

func (d *fakeDevice) dispatchTiming() bool { return d.timing }

func (d *fakeDevice) close() error { return nil }

func (d *fakeDevice) newCommands(mem exec.Memory, label string, serial bool) (commands, error) {
	m, ok := mem.(*hostMemory)
	if !ok {
		return nil, fmt.Errorf("%w: memory %T", ErrBadHandle, mem)
	}
	c := &fakeCommands{dev: d, mem: m, label: label, serial: serial}
	d.mu.Lock()
	d.runs = append(d.runs, c)
	d.mu.Unlock()
	return c, nil
}

type fakeCommands struct {
	dev    *fakeDevice
	mem    *hostMemory
	label  string
	serial bool
	events []event

	// state for emulation
	kernel  string
	params  []byte
	binds   map[int][2]int64 // index -> buffer, offset
	emuErrs []error
	failOn  string // return an error from wait naming the label
}

func (c *fakeCommands) setPipeline(kernel string) error {
	c.events = append(c.events, event{kind: "pipeline", kernel: kernel})
	c.kernel, c.binds = kernel, map[int][2]int64{}
	return nil
}

func (c *fakeCommands) setBytes(data []byte, index int) error {
	c.events = append(c.events, event{kind: "bytes", data: append([]byte{}, data...), index: index})
	c.params = append([]byte{}, data...)
	return nil
}

func (c *fakeCommands) setBuffer(buf int, off int64, index int) error {
	c.events = append(c.events, event{kind: "buffer", buf: buf, off: off, index: index})
	c.binds[index] = [2]int64{int64(buf), off}
	return nil
}

func (c *fakeCommands) dispatch(groups, tpg int) error {
	c.events = append(c.events, event{kind: "dispatch", kernel: c.kernel, groups: groups, tpg: tpg})
	if c.dev.emulate {
		if err := emulate(c.kernel, c.params, c.mem, c.binds, groups*tpg); err != nil {
			c.emuErrs = append(c.emuErrs, err)
		}
	}
	return nil
}

func (c *fakeCommands) barrier() error {
	c.events = append(c.events, event{kind: "barrier"})
	return nil
}

func (c *fakeCommands) mark(index int, end bool) error {
	c.events = append(c.events, event{kind: "mark", dispIdx: index, end: end})
	return nil
}

func (c *fakeCommands) commit() error {
	c.events = append(c.events, event{kind: "commit"})
	return nil
}

func (c *fakeCommands) wait(ctx context.Context) (exec.Span, []exec.Span, error) {
	if err := ctx.Err(); err != nil {
		return exec.Span{}, nil, err
	}
	if c.failOn != "" {
		return exec.Span{}, nil, fmt.Errorf("%w: command buffer %q: %s", ErrCommandBuffer, c.label, c.failOn)
	}
	if len(c.emuErrs) > 0 {
		return exec.Span{}, nil, fmt.Errorf("emulation: %v", c.emuErrs)
	}
	cb := exec.Span{StartNs: 1000, EndNs: 9000}
	if !c.dev.timing {
		return cb, nil, nil
	}
	var n int
	for _, e := range c.events {
		if e.kind == "mark" {
			n = max(n, e.dispIdx+1)
		}
	}
	ds := make([]exec.Span, n)
	for i := range ds {
		ds[i] = exec.Span{StartNs: cb.StartNs + int64(10*i), EndNs: cb.StartNs + int64(10*i+5)}
	}
	return cb, ds, nil
}
