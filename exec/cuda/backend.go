package cuda

import (
	"errors"
	"fmt"
	"sync"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/launch"
)

// Sync says how a run orders its dispatches on the GPU.
type Sync uint8

const (
	// Barriers replays a CUDA graph built from the program's barrier
	// groups: every node of a group depends on the previous group's join.
	// Serial programs become a chain.
	Barriers Sync = iota
	// Edges replays a CUDA graph whose dependencies are Program.Edges (the
	// transitive reduction of the conflict DAG); barriers are ignored.
	Edges
	// Stream launches every kernel in program order on one stream, no
	// graph, with an event between dispatches (per-dispatch timings).
	Stream
)

var syncNames = [...]string{"barriers", "edges", "stream"}

// String returns the sync's name.
func (s Sync) String() string {
	if int(s) < len(syncNames) {
		return syncNames[s]
	}
	return fmt.Sprintf("sync(%d)", uint8(s))
}

// ParseSync maps "barriers", "edges" or "stream" to its Sync.
func ParseSync(s string) (Sync, error) {
	for i, n := range syncNames {
		if n == s {
			return Sync(i), nil
		}
	}
	return 0, fmt.Errorf("cuda: unknown sync %q (barriers, edges, stream): %w", s, exec.ErrMode)
}

// DefaultBlockThreads is the block width of the one-thread-per-element
// kernels.
const DefaultBlockThreads = 256

// Options configure the CUDA backend. The zero value uses device 0, the
// dynamic loader's search path and barrier-group graphs.
type Options struct {
	// LibDirs are searched, in order, for libcuda.so.1 and libnvrtc.so.*
	// before the dynamic loader's search path.
	LibDirs []string
	// Device is the CUDA device ordinal.
	Device int
	// Sync chooses graph barriers, graph edges or a plain stream.
	Sync Sync
}

// Backend is the CUDA exec.Backend: one device, its primary context, and
// the kernel module compiled from the embedded sources.
type Backend struct {
	drv  driver
	opts Options

	mu    sync.Mutex
	funcs map[string]handle
	strm  handle // created by the first NewEncoder
}

var _ exec.Backend = (*Backend)(nil)

// New opens the CUDA device. Without a driver it returns an error wrapping
// ErrNoDriver that names the libraries it tried.
func New(opts Options) (*Backend, error) {
	if opts.Sync > Stream {
		return nil, fmt.Errorf("cuda: %v: %w", opts.Sync, exec.ErrMode)
	}
	drv, err := openDriver(opts.LibDirs, opts.Device)
	if err != nil {
		return nil, err
	}
	return newBackend(drv, opts), nil
}

func newBackend(drv driver, opts Options) *Backend {
	return &Backend{drv: drv, opts: opts, funcs: map[string]handle{}}
}

// Name returns "cuda".
func (b *Backend) Name() string { return "cuda" }

// DeviceName names the GPU.
func (b *Backend) DeviceName() string { return b.drv.deviceName() }

// MemInfo returns the device's free and total memory in bytes, as the
// driver reports them (cuMemGetInfo).
func (b *Backend) MemInfo() (free, total int64, err error) { return b.drv.memInfo() }

// Close releases the module and the context. Memory from Alloc must be
// released first; the Backend is unusable afterwards.
func (b *Backend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	var err error
	if b.strm != 0 {
		err = b.drv.streamDestroy(b.strm)
		b.strm = 0
	}
	return errors.Join(err, b.drv.close())
}

// prepared is the Kernel Prepare returns: the dispatch's launches, each
// with its function and launch geometry.
type prepared struct {
	index    int
	launches []launch.Launch
	kernels  []string // the CUDA function of each launch (shapeOf)
	fns      []handle
	geo      []geometry
}

// Prepare plans the dispatch's launches (exec/launch, shared with Metal)
// and looks up their functions in the module.
func (b *Backend) Prepare(d *exec.Dispatch) (exec.Kernel, error) {
	ls, err := launch.Plan(d)
	if err != nil {
		return nil, err
	}
	k := &prepared{index: d.Index, launches: ls, kernels: make([]string, len(ls)), fns: make([]handle, len(ls)), geo: make([]geometry, len(ls))}
	for i := range ls {
		if k.kernels[i], k.geo[i], err = shapeOf(&ls[i]); err != nil {
			return nil, fmt.Errorf("cuda: dispatch %d (%s %q): %w", d.Index, d.Op, d.Name, err)
		}
		if k.fns[i], err = b.function(k.kernels[i]); err != nil {
			return nil, fmt.Errorf("cuda: dispatch %d (%s %q): %w", d.Index, d.Op, d.Name, err)
		}
	}
	return k, nil
}

// function returns a kernel's CUfunction, cached by name.
func (b *Backend) function(name string) (handle, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if fn, ok := b.funcs[name]; ok {
		return fn, nil
	}
	fn, err := b.drv.function(name)
	if err != nil {
		return 0, err
	}
	b.funcs[name] = fn
	return fn, nil
}
