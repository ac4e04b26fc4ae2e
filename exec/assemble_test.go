package exec_test

import (
	"context"
	"testing"
	"time"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/cpu"
	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAssembleRejects corrupts a valid layout, order or barrier list in
// one way per case and requires Assemble to fail with the right class.
func TestAssembleRejects(t *testing.T) {
	g := rawChain(t)
	order, err := g.Schedule()
	require.NoErrorf(t, err, "%v", err)
	good, err := exec.ReferenceLayout(g)
	require.NoErrorf(t, err, "%v", err)
	_, err = exec.Assemble(g, order, good, exec.Serial, []int{1, 2})
	require.NoErrorf(t, err, "valid input rejected: %v", err)
	clone := func() exec.Layout {
		l := exec.Layout{Buffers: append([]exec.BufferSpec{}, good.Buffers...), Values: append([]exec.Location{}, good.Values...)}
		return l
	}
	cases := []struct {
		name     string
		lay      func() exec.Layout
		order    []ir.NodeID
		barriers []int
		want     error
	}{
		{"value past its buffer", func() exec.Layout { l := clone(); l.Values[1].OffsetBytes = 4; return l }, order, nil, exec.ErrProgram},
		{"negative offset", func() exec.Layout { l := clone(); l.Values[1].OffsetBytes = -4; return l }, order, nil, exec.ErrProgram},
		{"buffer out of range", func() exec.Layout { l := clone(); l.Values[2].Buffer = 99; return l }, order, nil, exec.ErrProgram},
		{"shrunk buffer", func() exec.Layout { l := clone(); l.Buffers[1].Bytes -= 1; return l }, order, nil, exec.ErrProgram},
		{"missing values", func() exec.Layout { l := clone(); l.Values = l.Values[:2]; return l }, order, nil, exec.ErrProgram},
		{"barrier at 0", clone, order, []int{0}, exec.ErrProgram},
		{"barrier past the end", clone, order, []int{3}, exec.ErrProgram},
		{"barriers unsorted", clone, order, []int{2, 1}, exec.ErrProgram},
		{"unknown node", clone, []ir.NodeID{0, 1, 7}, nil, exec.ErrProgram},
		{"node left out", clone, order[:len(order)-1], nil, ir.ErrSchedule},
		{"node twice", clone, append(append([]ir.NodeID{}, order...), order[0]), nil, ir.ErrSchedule},
		{"consumer before producer", clone, append([]ir.NodeID{order[len(order)-1]}, order[:len(order)-1]...), nil, ir.ErrSchedule},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := exec.Assemble(g, c.order, c.lay(), exec.Serial, c.barriers)
			require.ErrorIsf(t, err, c.want, "got %v, want %v", err, c.want)
		})
	}
}

// TestOpaqueNodeIsUnsupported: an opaque node cannot run.
func TestOpaqueNodeIsUnsupported(t *testing.T) {
	b := ir.NewBuilder("opaque")
	x := b.Input("x", ir.F32, 2)
	b.Output(b.Opaque("Custom", []ir.TensorType{{DType: ir.F32, Shape: ir.Shape{2}}}, x)...)
	g, err := b.Build()
	require.NoErrorf(t, err, "%v", err)
	_, err = exec.Reference(g)
	require.ErrorIsf(t, err, exec.ErrUnsupported, "got %v, want ErrUnsupported", err)
}

// TestRunRejectsMissingInput: a run without an input's data fails cleanly.
func TestRunRejectsMissingInput(t *testing.T) {
	g := rawChain(t)
	p, err := exec.Reference(g)
	require.NoErrorf(t, err, "%v", err)
	_, err = exec.RunOnce(t.Context(), backends()["concurrent"], p, nil, exec.RunOptions{})
	require.ErrorIsf(t, err, exec.ErrInput, "got %v, want ErrInput", err)
	_, err = exec.RunOnce(t.Context(), backends()["concurrent"], p, map[ir.ValueID][]byte{0: make([]byte, 3)}, exec.RunOptions{})
	require.ErrorIsf(t, err, exec.ErrInput, "short input: got %v, want ErrInput", err)
}

// TestRunCancelled: a context cancelled during the first group stops the
// run before the next group starts, with the context's error.
func TestRunCancelled(t *testing.T) {
	g := rawChain(t)
	p, err := exec.Reference(g) // serial: one group per dispatch
	require.NoErrorf(t, err, "%v", err)
	in, err := exec.RandomInputs(g, 1)
	require.NoErrorf(t, err, "%v", err)
	ctx, cancel := context.WithCancel(context.Background())
	ran := 0
	be := cpu.New(cpu.Options{BeforeDispatchForTesting: func(d *exec.Dispatch) {
		ran++
		if d.Index == 0 {
			cancel()
			time.Sleep(10 * time.Millisecond) // let Wait see the cancellation
		}
	}})
	_, err = exec.RunOnce(ctx, be, p, in, exec.RunOptions{})
	require.ErrorIsf(t, err, context.Canceled, "got %v, want context.Canceled", err)
	assert.Lessf(t, ran, len(p.Dispatches), "all %d dispatches ran after the cancellation", ran)
}
