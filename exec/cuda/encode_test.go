package cuda

import (
	"context"
	"errors"
	"testing"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/launch"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStreamMode: every launch on the stream in program order, one event
// before and after each dispatch, spans per dispatch and per group, and
// no graph.
func TestStreamMode(t *testing.T) {
	g := testGraph(t)
	p := compile(t, g, exec.Inferred)
	f := newFake(t)
	x, err := exec.Load(newBackend(f, Options{Sync: Stream}), p)
	require.NoErrorf(t, err, "%v", err)
	defer x.Close()
	res, err := x.Run(context.Background(), inputs(t, g), exec.RunOptions{})
	require.NoErrorf(t, err, "%v", err)
	if len(f.graphs) != 0 || f.graphRuns != 0 {
		t.Errorf("stream mode made %d graphs", len(f.graphs))
	}
	var kernels []string
	for i := range p.Dispatches {
		ls, err := launchesOf(&p.Dispatches[i])
		require.NoErrorf(t, err, "%v", err)
		kernels = append(kernels, ls...)
	}
	if len(f.launches) != len(kernels) {
		t.Fatalf("%d launches, %d planned", len(f.launches), len(kernels))
	}
	for i, l := range f.launches {
		if l.fn != f.kernels[kernels[i]] {
			t.Errorf("launch %d: function %d, want %s", i, l.fn, kernels[i])
		}
	}
	tm := res.Timings
	if len(tm.Dispatches) != len(p.Dispatches) || len(tm.Groups) != len(p.Groups()) {
		t.Fatalf("%d dispatch spans, %d group spans; want %d, %d", len(tm.Dispatches), len(tm.Groups), len(p.Dispatches), len(p.Groups()))
	}
	for i, s := range tm.Dispatches {
		if s.EndNs <= s.StartNs || (i > 0 && s.StartNs != tm.Dispatches[i-1].EndNs) {
			t.Errorf("dispatch %d span %+v after %+v", i, s, tm.Dispatches[max(i-1, 0)])
		}
	}
	if tm.Device.EndNs != tm.Dispatches[len(p.Dispatches)-1].EndNs {
		t.Errorf("device span %+v, last dispatch ends %d", tm.Device, tm.Dispatches[len(p.Dispatches)-1].EndNs)
	}
}

// TestEncoderMisuse: calls out of order wrap ErrEncoderState, foreign
// handles ErrBadHandle.
func TestEncoderMisuse(t *testing.T) {
	f := newFake(t)
	be := newBackend(f, Options{})
	mem, err := be.Alloc([]exec.BufferSpec{{Bytes: 64}})
	require.NoErrorf(t, err, "%v", err)
	defer mem.Release()
	enc, err := be.NewEncoder(mem)
	require.NoErrorf(t, err, "%v", err)
	_, err = enc.Wait(context.Background())
	assert.ErrorIsf(t, err, ErrEncoderState, "wait before commit: %v", err)
	err = enc.Dispatch("not a kernel", &exec.Dispatch{})
	assert.ErrorIsf(t, err, ErrBadHandle, "foreign kernel: %v", err)
	err = enc.Commit()
	require.NoErrorf(t, err, "%v", err)
	err = enc.Commit()
	assert.ErrorIsf(t, err, ErrEncoderState, "second commit: %v", err)
	err = enc.Barrier()
	assert.ErrorIsf(t, err, ErrEncoderState, "barrier after commit: %v", err)
	_, err = be.NewEncoder(nil)
	assert.ErrorIsf(t, err, ErrBadHandle, "foreign memory: %v", err)
}

// TestDriverErrorsSurface: a failing launch names the call and wraps
// ErrDriver.
func TestDriverErrorsSurface(t *testing.T) {
	g := testGraph(t)
	p := compile(t, g, exec.Serial)
	f := newFake(t)
	x, err := exec.Load(newBackend(f, Options{Sync: Stream}), p)
	require.NoErrorf(t, err, "%v", err)
	defer x.Close()
	f.failOn = "cuLaunchKernel"
	_, err = x.Run(context.Background(), inputs(t, g), exec.RunOptions{})
	var de *DriverError
	assert.Falsef(t, !errors.Is(err, ErrDriver) || !errors.As(err, &de) || de.Call != "cuLaunchKernel", "err = %v, want a cuLaunchKernel DriverError", err)
	if len(f.events) != 0 {
		t.Errorf("%d events left after the failed commit", len(f.events))
	}
}

// TestNewWithoutDevice: a device ordinal no machine has is ErrNoDriver,
// with or without a driver installed.
func TestNewWithoutDevice(t *testing.T) {
	_, err := New(Options{Device: 1 << 20, LibDirs: []string{t.TempDir()}})
	assert.ErrorIsf(t, err, ErrNoDriver, "err = %v, want ErrNoDriver", err)
	_, err = New(Options{Sync: Stream + 1})
	assert.ErrorIsf(t, err, exec.ErrMode, "bad sync: %v, want exec.ErrMode", err)
}

// launchesOf names the kernels of a dispatch's non-empty launches.
func launchesOf(d *exec.Dispatch) ([]string, error) {
	ls, err := launch.Plan(d)
	if err != nil {
		return nil, err
	}
	var out []string
	for i := range ls {
		kernel, g, err := shapeOf(&ls[i])
		if err != nil {
			return nil, err
		}
		if g.blocks > 0 {
			out = append(out, kernel)
		}
	}
	return out, nil
}
