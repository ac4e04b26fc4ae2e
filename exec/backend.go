package exec

import (
	"context"

	"github.com/memplan/memplan/memranges"
)

// Backend is a device that runs programs: the CPU backend (exec/cpu), Metal
// (exec/metal), later CUDA. The driver talks to it in five verbs, in this
// order: Alloc the buffers once, Prepare a kernel per dispatch once, then per
// run open an Encoder, Dispatch and Barrier in program order, Commit, Wait.
//
// How the verbs map onto devices:
//
//	verb      CPU (exec/cpu)              Metal                                    CUDA (exec/cuda)
//	Alloc     one aligned []byte each     one MTLBuffer each (shared storage,      cuMemAlloc each (arena + one per
//	                                      untracked hazards)                       external buffer)
//	Prepare   kernel func + parsed attrs  MTLComputePipelineState (cached)         launch.Plan + CUfunction per launch
//	Dispatch  append to current group     setComputePipelineState,                 record: a kernel node per launch
//	                                      setBuffer:offset:atIndex: per Binding,   (graph) or a launch (stream mode),
//	                                      setBytes params, dispatchThreadgroups    pointers = base + offset
//	Barrier   close the group: all of it  memoryBarrierWithScope:                  close the group: the next group's
//	          finishes before the next    MTLBarrierScopeBuffers                   nodes depend on its join node
//	Commit    start the groups running    endEncoding + commit                     cuGraphLaunch of the graph built and
//	                                                                               instantiated once per program
//	Wait      wait for the last group     waitUntilCompleted; GPUStart/EndTime     event wait; cuEventElapsedTime
//
// Between two barriers the dispatches of a group may run in any order or all
// at once: the program guarantees they do not conflict. A backend that cannot
// run concurrently may run them in order (Metal's serial-dispatch fallback).
// A point-to-point backend (a CUDA graph, Metal fences) may ignore the
// barriers and order dispatches by Program.Edges instead: one graph edge or
// one event wait per edge, which never orders more than the barriers do.
//
// Every Binding carries its buffer index, the byte offset of its first
// element, its bounding byte window, dtype, shape and byte strides, so a
// backend binds (buffer, offset) exactly like setBuffer:offset:atIndex: and
// passes shape/strides as parameters.
type Backend interface {
	// Name returns a short lowercase name ("cpu", "metal").
	Name() string
	// Alloc allocates one buffer per spec, index-aligned with specs
	// (Program.Buffers: index ArenaBuffer is the arena, the rest hold
	// external values). Buffers start zeroed.
	Alloc(specs []BufferSpec) (Memory, error)
	// Prepare checks that the backend can run d and returns its kernel
	// (a pipeline, a function with parsed attributes). An op the backend
	// lacks is an error wrapping ErrUnsupported. Prepare does not touch memory.
	Prepare(d *Dispatch) (Kernel, error)
	// NewEncoder opens a command stream over mem for one run.
	NewEncoder(mem Memory) (Encoder, error)
}

// EdgeEncoder is an Encoder that can order dispatches point to point (CUDA
// graph edges) instead of by barriers. When a program carries Edges, Run
// hands them over with UseEdges before the first Dispatch; the encoder may
// then order by the edges alone, and still receives the Barrier calls.
type EdgeEncoder interface {
	Encoder
	// UseEdges passes Program.Edges: dispatch From finishes before
	// dispatch To starts (indices into Program.Dispatches).
	UseEdges(edges []memranges.Edge) error
}

// Kernel is a backend's prepared handle for one dispatch (opaque to the driver).
type Kernel any

// Memory is the set of buffers a backend allocated for one program.
type Memory interface {
	// Write copies src into buffer buf at byte offset off.
	Write(buf int, off int64, src []byte) error
	// Read copies len(dst) bytes from buffer buf at byte offset off.
	Read(buf int, off int64, dst []byte) error
	// Release frees the buffers; the Memory is unusable afterwards.
	Release() error
}

// Encoder records one run's commands. Dispatch and Barrier only record (or
// start, on a backend that runs eagerly); results are defined after Wait.
type Encoder interface {
	// Dispatch records one dispatch with its prepared kernel.
	Dispatch(k Kernel, d *Dispatch) error
	// Barrier makes every dispatch recorded so far finish, and its writes be
	// visible, before any dispatch recorded later starts.
	Barrier() error
	// Commit submits the recorded commands.
	Commit() error
	// Wait blocks until the committed commands finish or ctx is done. It
	// returns the measured timings, or nil when the backend cannot time.
	Wait(ctx context.Context) (*Timings, error)
}

// Span is a half-open time interval [StartNs, EndNs) in nanoseconds since the
// run's Commit, on a lane (a worker goroutine, a stream; 0 when unknown).
type Span struct {
	StartNs, EndNs int64
	Lane           int
}

// Timings are what a backend measured during one run. Dispatches is indexed
// by Dispatch.Index (a zero Span when that dispatch was not timed); Groups
// has one span per group between barriers, in order.
type Timings struct {
	Dispatches []Span
	Groups     []Span
	// Device is the span of the whole run on the device (a command buffer,
	// a CUDA graph launch), zero when not measured.
	Device Span
}
