package exec_test

import (
	"errors"
	"testing"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/memranges"
	"github.com/stretchr/testify/require"
)

// TestVerifyCatchesCorruption corrupts a verified program in one way per
// case and requires Verify to fail.
func TestVerifyCatchesCorruption(t *testing.T) {
	g := rawChain(t)
	cases := []struct {
		name    string
		corrupt func(p *exec.Program)
		want    error
	}{
		{"barrier removed", func(p *exec.Program) { p.Barriers = p.Barriers[1:] }, memranges.ErrBarrier},
		{"barriers dropped", func(p *exec.Program) { p.Barriers = nil }, memranges.ErrBarrier},
		{"barrier out of range", func(p *exec.Program) { p.Barriers = append(p.Barriers, len(p.Dispatches)) }, memranges.ErrBarrier},
		{"dispatches swapped", func(p *exec.Program) {
			p.Dispatches[0], p.Dispatches[1] = p.Dispatches[1], p.Dispatches[0]
			p.Dispatches[0].Index, p.Dispatches[1].Index = 0, 1
		}, exec.ErrProgram},
		{"index wrong", func(p *exec.Program) { p.Dispatches[1].Index = 7 }, exec.ErrProgram},
		{"binding past its buffer", func(p *exec.Program) {
			b := &p.Dispatches[0].Outputs[0]
			b.OffsetBytes += p.Buffers[b.Buffer].Bytes
			b.LoBytes += p.Buffers[b.Buffer].Bytes
			b.HiBytes += p.Buffers[b.Buffer].Bytes
		}, exec.ErrProgram},
		{"edge removed", func(p *exec.Program) { p.Edges = p.Edges[1:] }, memranges.ErrEdge},
		{"window not matching strides", func(p *exec.Program) { p.Dispatches[0].Inputs[0].HiBytes-- }, exec.ErrProgram},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := compilePlanner(g, exec.Serial)
			require.NoErrorf(t, err, "%v", err)
			if err := p.Verify(); err != nil {
				t.Fatalf("valid program rejected: %v", err)
			}
			c.corrupt(p)
			if err := p.Verify(); !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
		})
	}
}
