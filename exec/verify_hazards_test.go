package exec_test

import (
	"context"
	"testing"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/cpu"
	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/planner"
	"github.com/stretchr/testify/require"
)

// TestVerifyCatchesWARSwap: c reuses a's bytes after b has read a. Swapping
// b and c across the barrier between them leaves every hazard ordered (a
// barrier still separates them) and every producer first, but c now
// overwrites a before b reads it: a write-after-read the wrong way round.
// Verify must reject it, and the CPU run shows that it is harmful.
func TestVerifyCatchesWARSwap(t *testing.T) {
	b := ir.NewBuilder("war")
	x := b.Input("x", ir.F32, 16, 16)
	a := b.Op("Exp", nil, x)
	bv := b.Op("Neg", nil, a)
	c := b.Op("Sigmoid", nil, x)
	b.Output(b.Op("Add", nil, bv, c))
	g, err := b.Build()
	require.NoErrorf(t, err, "%v", err)
	p, err := exec.Compile(context.Background(), g, exec.CompileOptions{Mode: exec.Inferred, Planner: planner.Options{DisableInPlace: true}})
	require.NoErrorf(t, err, "%v", err)
	err = p.Verify()
	require.NoErrorf(t, err, "valid program rejected: %v", err)
	pos := map[ir.ValueID]int{}
	for i, d := range p.Dispatches {
		pos[d.Outputs[0].Value] = i
	}
	i, j := pos[bv], pos[c]
	if j != i+1 || p.Values[c].OffsetBytes != p.Values[a].OffsetBytes {
		t.Fatalf("setup: want c right after b and over a's bytes; dispatches %v, a at %d, c at %d", pos, p.Values[a].OffsetBytes, p.Values[c].OffsetBytes)
	}
	p.Dispatches[i], p.Dispatches[j] = p.Dispatches[j], p.Dispatches[i]
	p.Dispatches[i].Index, p.Dispatches[j].Index = i, j
	err = p.Verify()
	require.ErrorIsf(t, err, exec.ErrHazard, "swapped WAR: Verify = %v, want ErrHazard", err)
	in, err := exec.RandomInputs(g, 1)
	require.NoErrorf(t, err, "%v", err)
	want := reference(t, g, in)
	d, err := diff(p, cpu.New(cpu.Options{Order: cpu.InOrder}), in, want, exec.RunOptions{})
	require.Falsef(t, err != nil || d == "", "the swap should change the output: diff %q, %v", d, err)
}
