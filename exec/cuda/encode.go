package cuda

// The encoder of one run. Dispatch and Barrier only record steps; Commit
// replays them:
//
//   - Barriers, Edges: the program's CUDA graph is built and instantiated
//     at the first run (graph.go) and kept with the program's memory; each
//     run records an event, launches the graph (cuGraphLaunch) and records
//     another event: Timings.Device is the graph's GPU time.
//   - Stream: every launch in program order on the backend's stream, an
//     event before the first dispatch and after each one: Timings.Dispatches
//     and Timings.Groups come from those events.
//
// Wait waits for the last event (polling when ctx can be cancelled) and
// reads the times with cuEventElapsedTime.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/memranges"
)

// NewEncoder opens the encoder of one run over mem.
func (b *Backend) NewEncoder(mem exec.Memory) (exec.Encoder, error) {
	m, ok := mem.(*memory)
	if !ok {
		return nil, fmt.Errorf("%w: memory %T", ErrBadHandle, mem)
	}
	s, err := b.stream()
	if err != nil {
		return nil, err
	}
	return &encoder{b: b, m: m, stream: s}, nil
}

// stream returns the backend's stream, creating it on first use.
func (b *Backend) stream() (handle, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.strm != 0 {
		return b.strm, nil
	}
	s, err := b.drv.streamCreate()
	if err != nil {
		return 0, err
	}
	b.strm = s
	return s, nil
}

// encoder is the exec.Encoder (and exec.EdgeEncoder) of one run.
type encoder struct {
	b         *Backend
	m         *memory
	stream    handle
	steps     []step
	edges     []memranges.Edge
	useEdges  bool
	committed bool
	events    []handle // stream mode: before dispatch 0, after each dispatch; graph modes: start, end
	n         int      // 1 + the highest dispatch index recorded
}

var _ exec.EdgeEncoder = (*encoder)(nil)

// UseEdges takes the program's edges; they order the graph when the
// backend's Sync is Edges, and are ignored otherwise.
func (e *encoder) UseEdges(edges []memranges.Edge) error {
	if e.committed {
		return fmt.Errorf("%w: edges after commit", ErrEncoderState)
	}
	if e.b.opts.Sync == Edges {
		e.edges, e.useEdges = edges, true
	}
	return nil
}

// Dispatch records one prepared dispatch.
func (e *encoder) Dispatch(k exec.Kernel, d *exec.Dispatch) error {
	p, ok := k.(*prepared)
	if !ok {
		return fmt.Errorf("%w: kernel %T", ErrBadHandle, k)
	}
	if e.committed {
		return fmt.Errorf("%w: dispatch %d after commit", ErrEncoderState, d.Index)
	}
	e.steps = append(e.steps, step{k: p})
	e.n = max(e.n, p.index+1)
	return nil
}

// Barrier records the end of a group.
func (e *encoder) Barrier() error {
	if e.committed {
		return fmt.Errorf("%w: barrier after commit", ErrEncoderState)
	}
	e.steps = append(e.steps, step{})
	return nil
}

// Commit launches the run: the program's graph, or the stream's launches.
// On failure it destroys the run's events (Wait is not called then).
func (e *encoder) Commit() (err error) {
	if e.committed {
		return fmt.Errorf("%w: committed twice", ErrEncoderState)
	}
	e.committed = true
	defer func() {
		if err != nil {
			err = errors.Join(err, e.release())
		}
	}()
	if e.b.opts.Sync == Stream {
		return e.commitStream()
	}
	e.m.mu.Lock()
	defer e.m.mu.Unlock()
	if !e.m.graphs.matches(e.steps, e.edges, e.useEdges) {
		if e.m.graphs != nil {
			if err := e.m.graphs.destroy(e.b.drv); err != nil {
				return err
			}
			e.m.graphs = nil
		}
		c, err := buildGraph(e.b.drv, e.m, e.steps, e.edges, e.useEdges)
		if err != nil {
			return err
		}
		e.m.graphs = c
	}
	if err := e.record(); err != nil {
		return err
	}
	if err := e.b.drv.graphLaunch(e.m.graphs.x, e.stream); err != nil {
		return err
	}
	return e.record()
}

// commitStream launches every dispatch in order on the stream, with an
// event before the first and after each.
func (e *encoder) commitStream() error {
	if err := e.record(); err != nil {
		return err
	}
	for _, s := range e.steps {
		if s.k == nil {
			continue // one stream already orders everything
		}
		for i, g := range s.k.geo {
			if g.blocks == 0 {
				continue
			}
			l, err := e.m.kernelLaunch(s.k, i)
			if err != nil {
				return err
			}
			if err := e.b.drv.launch(e.stream, l); err != nil {
				return fmt.Errorf("cuda: dispatch %d launch %d (%s): %w", s.k.index, i, s.k.kernels[i], err)
			}
		}
		if err := e.record(); err != nil {
			return err
		}
	}
	return nil
}

// record creates an event and records it on the stream.
func (e *encoder) record() error {
	ev, err := e.b.drv.eventCreate()
	if err != nil {
		return err
	}
	e.events = append(e.events, ev)
	return e.b.drv.eventRecord(ev, e.stream)
}

// Wait blocks until the run's last event, then returns the GPU times.
func (e *encoder) Wait(ctx context.Context) (t *exec.Timings, err error) {
	if !e.committed {
		return nil, fmt.Errorf("%w: wait before commit", ErrEncoderState)
	}
	defer func() {
		if rerr := e.release(); rerr != nil && err == nil {
			t, err = nil, rerr
		}
	}()
	if len(e.events) == 0 {
		return nil, fmt.Errorf("%w: nothing committed", ErrEncoderState)
	}
	last := e.events[len(e.events)-1]
	if err := e.wait(ctx, last); err != nil {
		return nil, err
	}
	ns := make([]int64, len(e.events))
	for i := 1; i < len(e.events); i++ {
		ms, err := e.b.drv.eventElapsedMs(e.events[0], e.events[i])
		if err != nil {
			return nil, err
		}
		ns[i] = int64(float64(ms) * 1e6)
	}
	t = &exec.Timings{Device: exec.Span{StartNs: 0, EndNs: ns[len(ns)-1]}}
	if e.b.opts.Sync != Stream {
		return t, nil
	}
	// Stream mode: event j+1 follows the j-th recorded dispatch.
	t.Dispatches = make([]exec.Span, e.n)
	j := 0
	gStart, inGroup := int64(0), false
	for _, s := range e.steps {
		if s.k == nil {
			if inGroup {
				t.Groups = append(t.Groups, exec.Span{StartNs: gStart, EndNs: ns[j]})
				inGroup = false
			}
			continue
		}
		if !inGroup {
			gStart, inGroup = ns[j], true
		}
		t.Dispatches[s.k.index] = exec.Span{StartNs: ns[j], EndNs: ns[j+1]}
		j++
	}
	if inGroup {
		t.Groups = append(t.Groups, exec.Span{StartNs: gStart, EndNs: ns[j]})
	}
	return t, nil
}

// wait blocks on ev; with a cancellable ctx it polls so that cancelling
// returns promptly (the GPU work itself cannot be cancelled).
func (e *encoder) wait(ctx context.Context, ev handle) error {
	if ctx.Done() == nil {
		return e.b.drv.eventSync(ev)
	}
	for {
		done, err := e.b.drv.eventQuery(ev)
		if err != nil || done {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cuda: wait: %w", ctx.Err())
		case <-time.After(20 * time.Microsecond):
		}
	}
}

// release destroys the run's events.
func (e *encoder) release() error {
	var errs []error
	for _, ev := range e.events {
		errs = append(errs, e.b.drv.eventDestroy(ev))
	}
	e.events = nil
	return errors.Join(errs...)
}
