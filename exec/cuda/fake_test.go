package cuda

import (
	"fmt"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"
)

// fakeDriver is the driver seam on host memory: allocations are byte
// slices at made-up device addresses, launches and graph nodes are
// recorded (not run), and events read a clock that advances 1 µs per
// recorded event. It checks what the real driver would reject: a free of
// an unknown pointer, a copy outside an allocation, a graph dependency on
// a node of another graph, an unknown kernel.
type fakeDriver struct {
	next     devPtr
	allocs   map[devPtr][]byte
	allocLog []devPtr // every allocation's address, in order
	freed    int
	kernels  map[string]handle

	launches     []kernelLaunch // stream launches, in order
	graphs       map[handle]*fakeGraph
	execs        map[handle]handle // graph exec -> graph
	nextH        handle
	graphRuns    int
	clock        int64
	events       map[handle]int64 // recorded time in ns; -1 before recording
	destroyed    int
	failOn       string // a call name that fails once
	instantiated int
}

type fakeNode struct {
	launch *kernelLaunch // nil: empty node
	deps   []handle
}

type fakeGraph struct {
	nodes map[handle]*fakeNode
	order []handle
}

func newFake(t testing.TB) *fakeDriver {
	t.Helper()
	names, err := KernelNames()
	require.NoErrorf(t, err, "%v", err)
	f := &fakeDriver{next: 0x7f0000000000, allocs: map[devPtr][]byte{}, kernels: map[string]handle{},
		graphs: map[handle]*fakeGraph{}, execs: map[handle]handle{}, events: map[handle]int64{}, nextH: 1}
	for i, n := range names {
		f.kernels[n] = handle(1000 + i)
	}
	return f
}

func (f *fakeDriver) fail(call string) error {
	if f.failOn == call {
		f.failOn = ""
		return &DriverError{Call: call, Code: 2, Symbol: "CUDA_ERROR_OUT_OF_MEMORY"}
	}
	return nil
}

func (f *fakeDriver) handle() handle { f.nextH++; return f.nextH }

func (f *fakeDriver) deviceName() string { return "fake" }

func (f *fakeDriver) memAlloc(bytes int64) (devPtr, error) {
	if err := f.fail("cuMemAlloc_v2"); err != nil {
		return 0, err
	}
	if bytes <= 0 {
		return 0, &DriverError{Call: "cuMemAlloc_v2", Code: 1}
	}
	p := f.next
	f.allocLog = append(f.allocLog, p)
	f.allocs[p] = make([]byte, bytes)
	for i := range f.allocs[p] {
		f.allocs[p][i] = 0xAB // not zero: Alloc must zero it
	}
	f.next += devPtr((bytes + 0xfff) &^ 0xfff)
	return p, nil
}

func (f *fakeDriver) memFree(p devPtr) error {
	if _, ok := f.allocs[p]; !ok {
		return fmt.Errorf("fake: free of %#x", p)
	}
	delete(f.allocs, p)
	f.freed++
	return nil
}

// span finds the allocation holding [p, p+n).
func (f *fakeDriver) span(p devPtr, n int64) ([]byte, error) {
	for base, b := range f.allocs {
		if p >= base && int64(p-base)+n <= int64(len(b)) {
			return b[p-base : int64(p-base)+n], nil
		}
	}
	return nil, fmt.Errorf("fake: [%#x, +%d) outside every allocation", p, n)
}

func (f *fakeDriver) memZero(p devPtr, bytes int64) error {
	b, err := f.span(p, bytes)
	clear(b)
	return err
}

func (f *fakeDriver) copyHtoD(dst devPtr, src []byte) error {
	b, err := f.span(dst, int64(len(src)))
	copy(b, src)
	return err
}

func (f *fakeDriver) copyDtoH(dst []byte, src devPtr) error {
	b, err := f.span(src, int64(len(dst)))
	copy(dst, b)
	return err
}

func (f *fakeDriver) memInfo() (int64, int64, error) {
	var used int64
	for _, b := range f.allocs {
		used += int64(len(b))
	}
	return 1<<30 - used, 1 << 30, nil
}

func (f *fakeDriver) function(name string) (handle, error) {
	h, ok := f.kernels[name]
	if !ok {
		return 0, fmt.Errorf("%w: %s", ErrKernel, name)
	}
	return h, nil
}

func (f *fakeDriver) streamCreate() (handle, error) { return f.handle(), nil }
func (f *fakeDriver) streamSync(handle) error       { return nil }
func (f *fakeDriver) streamDestroy(handle) error    { return nil }

func (f *fakeDriver) launch(_ handle, l *kernelLaunch) error {
	if err := f.fail("cuLaunchKernel"); err != nil {
		return err
	}
	f.launches = append(f.launches, *l)
	return nil
}

func (f *fakeDriver) eventCreate() (handle, error) {
	h := f.handle()
	f.events[h] = -1
	return h, nil
}

func (f *fakeDriver) eventRecord(e, _ handle) error {
	f.clock += 1000
	f.events[e] = f.clock
	return nil
}

func (f *fakeDriver) eventQuery(e handle) (bool, error) { return f.events[e] >= 0, nil }
func (f *fakeDriver) eventSync(handle) error            { return nil }

func (f *fakeDriver) eventElapsedMs(a, b handle) (float32, error) {
	ta, tb := f.events[a], f.events[b]
	if ta < 0 || tb < 0 {
		return 0, &DriverError{Call: "cuEventElapsedTime", Code: 600}
	}
	return float32(tb-ta) / 1e6, nil
}

func (f *fakeDriver) eventDestroy(e handle) error {
	delete(f.events, e)
	f.destroyed++
	return nil
}

func (f *fakeDriver) graphCreate() (handle, error) {
	h := f.handle()
	f.graphs[h] = &fakeGraph{nodes: map[handle]*fakeNode{}}
	return h, nil
}

func (f *fakeDriver) addNode(g handle, deps []handle, l *kernelLaunch) (handle, error) {
	fg, ok := f.graphs[g]
	if !ok {
		return 0, fmt.Errorf("fake: no graph %d", g)
	}
	for _, d := range deps {
		if _, ok := fg.nodes[d]; !ok {
			return 0, fmt.Errorf("fake: dependency %d not in graph %d", d, g)
		}
	}
	h := f.handle()
	fg.nodes[h] = &fakeNode{launch: l, deps: slices.Clone(deps)}
	fg.order = append(fg.order, h)
	return h, nil
}

func (f *fakeDriver) graphAddKernel(g handle, deps []handle, l *kernelLaunch) (handle, error) {
	c := *l
	c.params, c.ptrs = slices.Clone(l.params), slices.Clone(l.ptrs)
	return f.addNode(g, deps, &c)
}

func (f *fakeDriver) graphAddEmpty(g handle, deps []handle) (handle, error) {
	return f.addNode(g, deps, nil)
}

func (f *fakeDriver) graphInstantiate(g handle) (handle, error) {
	if err := f.fail("cuGraphInstantiateWithFlags"); err != nil {
		return 0, err
	}
	h := f.handle()
	f.execs[h] = g
	f.instantiated++
	return h, nil
}

func (f *fakeDriver) graphLaunch(x, _ handle) error {
	if _, ok := f.execs[x]; !ok {
		return fmt.Errorf("fake: no graph exec %d", x)
	}
	f.graphRuns++
	return nil
}

func (f *fakeDriver) graphExecDestroy(x handle) error { delete(f.execs, x); return nil }
func (f *fakeDriver) graphDestroy(g handle) error     { delete(f.graphs, g); return nil }
func (f *fakeDriver) close() error                    { return nil }

// only returns the one live graph.
func (f *fakeDriver) only() (*fakeGraph, error) {
	if len(f.graphs) != 1 {
		return nil, fmt.Errorf("fake: %d graphs", len(f.graphs))
	}
	for _, g := range f.graphs {
		return g, nil
	}
	return nil, nil
}

// kernelNodes returns the graph's kernel nodes' launches in insertion order.
func (g *fakeGraph) kernelNodes() []*kernelLaunch {
	var out []*kernelLaunch
	for _, h := range g.order {
		if l := g.nodes[h].launch; l != nil {
			out = append(out, l)
		}
	}
	return out
}

// reaches reports whether node b depends on node a through the graph.
func (g *fakeGraph) reaches(a, b handle) bool {
	seen := map[handle]bool{}
	stack := []handle{b}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, d := range g.nodes[n].deps {
			if d == a {
				return true
			}
			if !seen[d] {
				seen[d] = true
				stack = append(stack, d)
			}
		}
	}
	return false
}

// liveAllocs lists the live allocation sizes, sorted.
func (f *fakeDriver) liveAllocs() []int {
	var out []int
	for _, b := range f.allocs {
		out = append(out, len(b))
	}
	sort.Ints(out)
	return out
}
