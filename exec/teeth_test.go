package exec_test

import (
	"testing"
	"time"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/cpu"
	"github.com/memplan/memplan/internal/randgraph"
	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// rawChain is x -> Relu -> a -> Neg -> b -> Exp -> y: each dispatch reads
// what the previous one wrote (RAW), so every barrier is needed.
func rawChain(t *testing.T) *ir.Graph {
	b := ir.NewBuilder("raw")
	x := b.Input("x", ir.F32, 64, 64)
	a := b.Op("Relu", nil, x)
	c := b.Op("Neg", nil, a)
	b.Output(b.Op("Exp", nil, c))
	g, err := b.Build()
	require.NoErrorf(t, err, "%v", err)
	return g
}

// TestDroppedBarriersAreCaught proves the end-to-end comparison fails when
// barriers are missing: on a RAW chain, with barriers dropped and each
// group run backwards (a legal order for a group), the consumer reads
// before the producer wrote, and diff reports it. With the barriers kept,
// the same run matches.
func TestDroppedBarriersAreCaught(t *testing.T) {
	g := rawChain(t)
	in, err := exec.RandomInputs(g, 3)
	require.NoErrorf(t, err, "%v", err)
	want := reference(t, g, in)
	eachProgram(t, g, false, func(pn string, p *exec.Program) {
		be := cpu.New(cpu.Options{Order: cpu.Reversed})
		if d, err := diff(p, be, in, want, exec.RunOptions{}); err != nil || d != "" {
			t.Fatalf("%s with barriers: %q %v", pn, d, err)
		}
		d, err := diff(p, be, in, want, exec.RunOptions{UnsafeDropBarriersForTesting: true})
		require.NoErrorf(t, err, "%v", err)
		assert.NotEqualf(t, "", d, "%s: dropping the barriers went unnoticed", pn)
	})
}

// TestDroppedBarriersCaughtOnRandomGraphs runs the property test's own
// comparison with barriers dropped and requires it to fail on some random
// graphs: the property test can fail.
func TestDroppedBarriersCaughtOnRandomGraphs(t *testing.T) {
	caught, total := 0, 0
	for seed := range 30 {
		g := rapid.Custom(randgraph.Graph).Example(seed)
		in, err := exec.RandomInputs(g, 7)
		require.NoErrorf(t, err, "%v", err)
		want := reference(t, g, in)
		p, err := compileNaive(g, exec.Inferred)
		require.NoErrorf(t, err, "%v", err)
		if len(p.Barriers) == 0 {
			continue
		}
		total++
		d, err := diff(p, cpu.New(cpu.Options{Order: cpu.Reversed}), in, want, exec.RunOptions{UnsafeDropBarriersForTesting: true})
		require.NoErrorf(t, err, "%v", err)
		if d != "" {
			caught++
		}
	}
	t.Logf("dropped barriers caught on %d of %d random graphs that need barriers", caught, total)
	assert.Falsef(t, total == 0 || caught == 0, "dropped barriers caught on %d of %d graphs, want some", caught, total)
}

// TestDroppedBarriersConcurrent drops the barriers under true concurrency:
// the producer is delayed so the consumer overtakes it. Under -race the
// race detector would flag the run itself (that is its teeth), so the
// racy run is skipped there; without -race the comparison must fail.
func TestDroppedBarriersConcurrent(t *testing.T) {
	if raceEnabled {
		t.Skip("under -race the detector reports the unsynchronised run; the race-free teeth are TestDroppedBarriersAreCaught")
	}
	g := rawChain(t)
	in, err := exec.RandomInputs(g, 3)
	require.NoErrorf(t, err, "%v", err)
	want := reference(t, g, in)
	p, err := compileNaive(g, exec.Inferred)
	require.NoErrorf(t, err, "%v", err)
	be := cpu.New(cpu.Options{Workers: 3, BeforeDispatchForTesting: func(d *exec.Dispatch) {
		if d.Op == "Relu" {
			time.Sleep(20 * time.Millisecond)
		}
	}})
	seen := 0
	for range 3 {
		d, err := diff(p, be, in, want, exec.RunOptions{UnsafeDropBarriersForTesting: true})
		require.NoErrorf(t, err, "%v", err)
		if d != "" {
			seen++
		}
	}
	assert.NotEqualf(t, 0, seen, "three concurrent runs without barriers all matched the reference")
}
