package metal

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sort"
	"testing"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/internal/longtest"
	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/planner"
	"github.com/stretchr/testify/require"
)

// compile plans g's memory with the planner and builds its program in
// mode; the plan comes back so tests can check bindings against it.
func compile(t *testing.T, g *ir.Graph, mode exec.Mode) (*exec.Program, error) {
	t.Helper()
	prog, _, err := compilePlan(g, mode)
	return prog, err
}

func compilePlan(g *ir.Graph, mode exec.Mode) (*exec.Program, *planner.Plan, error) {
	order, err := g.Schedule()
	if err != nil {
		return nil, nil, err
	}
	plan, err := planner.PlanGraph(context.Background(), g, order, planner.Options{})
	if err != nil {
		return nil, nil, err
	}
	prog, err := exec.CompilePlan(g, order, plan, mode)
	return prog, plan, err
}

// TestRecordedEncoding runs every graph through the driver on the
// recording fake, in every synchronisation mode, with the concurrent and
// the serial encoder, and checks bindings, barriers, grids and argument
// structs against the program.
func TestRecordedEncoding(t *testing.T) {
	sigs := mslSignatures(t)
	kernels, err := KernelNames()
	require.NoErrorf(t, err, "%v", err)
	ops := opGraphs(t)
	small := len(ops) + len(testdataGraphs(t))
	for gi, cg := range allGraphs(t) {
		for _, mode := range exec.Modes() {
			for _, serial := range []bool{false, true} {
				// The zoo runs the concurrent encoder in the concurrent modes
				// and the serial encoder in Serial mode only; so do the
				// testdata graphs unless long cases are on (internal/longtest).
				zooLike := gi >= small || (gi >= len(ops) && !longtest.Enabled())
				if zooLike && serial != (mode == exec.Serial) {
					continue
				}
				// Under the race detector one concurrent configuration is
				// enough: the fake encodes on the calling goroutine.
				if raceEnabled && (serial || mode != exec.Inferred) {
					continue
				}
				name := fmt.Sprintf("%s/%v/serial=%v", cg.name, mode, serial)
				t.Run(name, func(t *testing.T) {
					prog, plan, err := compilePlan(cg.g, mode)
					require.NoErrorf(t, err, "no program: %v", err)
					dev := newFakeDevice(kernels)
					be := newBackend(dev, Options{Serial: serial})
					if _, err := exec.RunOnce(context.Background(), be, prog, randomInputs(t, cg.g, 1), exec.RunOptions{}); err != nil {
						t.Fatal(err)
					}
					if len(dev.runs) != 1 {
						t.Fatalf("%d command buffers", len(dev.runs))
					}
					for _, err := range checkRun(prog, plan, dev, dev.runs[0], serial, sigs) {
						t.Error(err)
					}
				})
			}
		}
	}
}

// TestEmulatedAgainstCPU runs every graph through the Metal backend with
// the Go twins of the kernels and compares the outputs with the CPU
// backend's.
func TestEmulatedAgainstCPU(t *testing.T) {
	if raceEnabled {
		t.Skip("sequential emulation; nothing for the race detector")
	}
	kernels, err := KernelNames()
	require.NoErrorf(t, err, "%v", err)
	ops := opGraphs(t)
	small := len(ops) + len(testdataGraphs(t))
	for gi, cg := range allGraphs(t) {
		// The fake runs launches one after another in encoding order, so
		// modes differ only in that order; the zoo runs the reordered one,
		// and so do the testdata graphs unless long cases are on
		// (internal/longtest; emulating resnet_block takes seconds per mode).
		modes := []exec.Mode{exec.Serial, exec.Reordered}
		if gi >= small || (gi >= len(ops) && !longtest.Enabled()) {
			modes = modes[1:]
		}
		for _, mode := range modes {
			t.Run(fmt.Sprintf("%s/%v", cg.name, mode), func(t *testing.T) {
				prog, err := compile(t, cg.g, mode)
				if err != nil {
					t.Skipf("no program: %v", err)
				}
				inputs := randomInputs(t, cg.g, 2)
				want, err := exec.RunOnce(context.Background(), cpuBackend(), prog, inputs, exec.RunOptions{})
				if errors.Is(err, exec.ErrUnsupported) {
					t.Skipf("CPU backend: %v", err)
				}
				require.NoErrorf(t, err, "%v", err)
				dev := newFakeDevice(kernels)
				dev.emulate = true
				got, err := exec.RunOnce(context.Background(), newBackend(dev, Options{}), prog, inputs, exec.RunOptions{})
				require.NoErrorf(t, err, "%v", err)
				compareOutputs(t, cg.g, want.Outputs, got.Outputs)
			})
		}
	}
}

func compareOutputs(t *testing.T, g *ir.Graph, want, got map[ir.ValueID][]byte) {
	t.Helper()
	ids := make([]int, 0, len(want))
	for id := range want {
		ids = append(ids, int(id))
	}
	sort.Ints(ids)
	for _, id := range ids {
		v := g.Values[id]
		w, h := want[ir.ValueID(id)], got[ir.ValueID(id)]
		if len(w) != len(h) {
			t.Errorf("%s: %d bytes, want %d", v.Name, len(h), len(w))
			continue
		}
		if v.DType != ir.F32 {
			if !bytes.Equal(w, h) {
				t.Errorf("%s (%v): got %v, want %v", v.Name, v.DType, h, w)
			}
			continue
		}
		// Tolerance relative to the output's largest magnitude: the CPU
		// backend computes in float64, the kernels in float32 (as the GPU
		// does), and long dot products and chained layers drift by a few
		// float32 ulps of their largest partial sums.
		scale := 1.0
		for e := 0; e+4 <= len(w); e += 4 {
			if a := math.Abs(float64(math.Float32frombits(binary.LittleEndian.Uint32(w[e:])))); a > scale && !math.IsInf(a, 0) {
				scale = a
			}
		}
		bad := 0
		for e := 0; e+4 <= len(w); e += 4 {
			a := math.Float32frombits(binary.LittleEndian.Uint32(w[e:]))
			b := math.Float32frombits(binary.LittleEndian.Uint32(h[e:]))
			if math.IsNaN(float64(a)) && math.IsNaN(float64(b)) || a == b {
				continue
			}
			if d := math.Abs(float64(a - b)); !(d <= 2e-3*scale) {
				if bad < 3 {
					t.Errorf("%s[%d]: got %g, want %g (scale %g)", v.Name, e/4, b, a, scale)
				}
				bad++
			}
		}
		if bad > 3 {
			t.Errorf("%s: %d elements differ", v.Name, bad)
		}
	}
}
