//go:build darwin && cgo

package metal

// Tests on the GPU. Run on a Mac with `go test ./exec/metal`; elsewhere
// this file is not built and New reports ErrNoDevice.

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/profile"
)

func newDeviceBackend(t *testing.T, opts Options) *Backend {
	t.Helper()
	be, err := New(opts)
	if errors.Is(err, ErrNoDevice) {
		t.Skip("no Metal device")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = be.Close() })
	return be
}

// TestDeviceCompilesEveryKernel compiles the library and every pipeline:
// the first thing to break if the MSL does not compile.
func TestDeviceCompilesEveryKernel(t *testing.T) {
	be := newDeviceBackend(t, Options{})
	names, err := KernelNames()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range names {
		maxT, err := be.dev.pipeline(k)
		if err != nil {
			t.Errorf("%s: %v", k, err)
			continue
		}
		if maxT <= 0 {
			t.Errorf("%s: max threads per group %d", k, maxT)
		}
	}
}

// TestDeviceAgainstCPU runs every op-coverage graph, every testdata graph
// and every zoo model on the GPU and compares the outputs with the CPU
// backend's: with a concurrent encoder in the inferred and reordered modes
// (barriers from memranges), and with the serial encoder.
func TestDeviceAgainstCPU(t *testing.T) {
	graphs := append(append(opGraphs(t), testdataGraphs(t)...), zooGraphs(t)...)
	configs := []struct {
		mode   exec.Mode
		serial bool
	}{{exec.Inferred, false}, {exec.Reordered, false}, {exec.Serial, true}}
	for _, cg := range graphs {
		for _, cfg := range configs {
			t.Run(fmt.Sprintf("%s/%v/serial=%v", cg.name, cfg.mode, cfg.serial), func(t *testing.T) {
				prog, err := compile(t, cg.g, cfg.mode)
				if err != nil {
					t.Skipf("no program: %v", err)
				}
				inputs := randomInputs(t, cg.g, 4)
				want, err := exec.RunOnce(context.Background(), cpuBackend(), prog, inputs, exec.RunOptions{})
				if errors.Is(err, exec.ErrUnsupported) {
					t.Skipf("CPU backend: %v", err)
				}
				if err != nil {
					t.Fatal(err)
				}
				be := newDeviceBackend(t, Options{Serial: cfg.serial, Label: cg.name})
				got, err := exec.RunOnce(context.Background(), be, prog, inputs, exec.RunOptions{})
				if err != nil {
					t.Fatal(err)
				}
				compareOutputs(t, cg.g, want.Outputs, got.Outputs)
			})
		}
	}
}

// TestDeviceProfilesCommandBuffers checks that each run's command buffer
// lands in the profiler with a GPU span, and that the per-dispatch timings
// are either absent (with one warning) or one span per dispatch.
func TestDeviceProfilesCommandBuffers(t *testing.T) {
	cg := opGraphs(t)[0]
	prog, err := compile(t, cg.g, exec.Inferred)
	if err != nil {
		t.Fatal(err)
	}
	prof := profile.New()
	warnings := 0
	be := newDeviceBackend(t, Options{Profiler: prof, Warnf: func(string, ...any) { warnings++ }})
	x, err := exec.Load(be, prog)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	inputs := randomInputs(t, cg.g, 5)
	for run := 0; run < 2; run++ {
		res, err := x.Run(context.Background(), inputs, exec.RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Timings != nil && len(res.Timings.Dispatches) != len(prog.Dispatches) {
			t.Errorf("%d dispatch timings for %d dispatches", len(res.Timings.Dispatches), len(prog.Dispatches))
		}
	}
	gs := prof.Groups()
	if len(gs) != 2 {
		t.Fatalf("%d command buffers profiled, want 2", len(gs))
	}
	for _, g := range gs {
		if g.EndNs <= g.StartNs {
			t.Errorf("command buffer span %+v", g)
		}
	}
	if be.dev.dispatchTiming() == (warnings == 1) {
		t.Errorf("dispatch timing %v with %d warnings", be.dev.dispatchTiming(), warnings)
	}
}
