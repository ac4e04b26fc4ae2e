package exec_test

import (
	"context"
	"errors"
	"testing"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/cpu"
	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/planner"
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
	if err != nil {
		t.Fatal(err)
	}
	p, err := exec.Compile(context.Background(), g, exec.CompileOptions{Mode: exec.Inferred, Planner: planner.Options{DisableInPlace: true}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Verify(); err != nil {
		t.Fatalf("valid program rejected: %v", err)
	}
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
	if err := p.Verify(); !errors.Is(err, exec.ErrHazard) {
		t.Fatalf("swapped WAR: Verify = %v, want ErrHazard", err)
	}
	in, err := exec.RandomInputs(g, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := reference(t, g, in)
	if d, err := diff(p, cpu.New(cpu.Options{Order: cpu.InOrder}), in, want, exec.RunOptions{}); err != nil || d == "" {
		t.Fatalf("the swap should change the output: diff %q, %v", d, err)
	}
}
