package main

// -backend cpu|cuda chooses where -run executes the modes: the CPU backend
// (the default; every mode must equal the CPU reference run bit for bit) or
// the CUDA backend (exec/cuda: every mode must equal the first CUDA run bit
// for bit, and the report gives the CUDA outputs' error against the CPU
// reference). -cuda-lib-dir adds directories searched first for
// libcuda.so.1 and libnvrtc.so; -cuda-sync picks barrier-group graphs,
// edge graphs or a plain stream. A graph run is timed as a whole, so the
// per-dispatch tables of -timings, -profile and -trace need -cuda-sync
// stream. Without a CUDA driver, -backend cuda fails with the driver's
// one-line reason.

import (
	"flag"
	"fmt"
	"math"
	"strings"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/cpu"
	"github.com/memplan/memplan/exec/cuda"
	"github.com/memplan/memplan/ir"
)

// runBackendConfig is this run's -backend flags (set in BeforePlan).
var runBackendConfig struct {
	name, libDirs, sync string
}

func init() {
	register(extension{Name: "backend", Flags: func(fs *flag.FlagSet) hooks {
		name := fs.String("backend", "cpu", "with -run: where the modes run: cpu|cuda")
		libDirs := fs.String("cuda-lib-dir", "", "with -backend cuda: comma-separated directories searched first for libcuda.so.1 and libnvrtc.so")
		sync := fs.String("cuda-sync", "barriers", "with -backend cuda: barriers (a CUDA graph per program, ordered by the barrier groups)|edges (ordered by the conflict edges)|stream (no graph; times every dispatch for -timings, -profile, -trace)")
		return hooks{BeforePlan: func(s *session) error {
			if *name != "cpu" && *name != "cuda" {
				return fmt.Errorf("-backend %q: want cpu or cuda", *name)
			}
			if _, err := cuda.ParseSync(*sync); err != nil {
				return err
			}
			runBackendConfig.name, runBackendConfig.libDirs, runBackendConfig.sync = *name, *libDirs, *sync
			return nil
		}}
	}})
}

// runDevice is the backend -run executes its modes on.
type runDevice struct {
	be       exec.Backend
	describe string // the report header's backend words
	exact    bool   // runs must equal the CPU reference bit for bit
	close    func() error
}

// openRunBackend opens the backend -backend names (the CPU backend with
// -workers and the -max-bytes cap).
func openRunBackend(workers int, maxBytes int64) (*runDevice, error) {
	if runBackendConfig.name != "cuda" {
		be := cpu.New(cpu.Options{Workers: workers, MaxBytes: maxBytes})
		return &runDevice{be: be, describe: fmt.Sprintf("backend=cpu workers=%d", be.Workers()), exact: true, close: func() error { return nil }}, nil
	}
	sync, err := cuda.ParseSync(runBackendConfig.sync)
	if err != nil {
		return nil, err
	}
	var dirs []string
	if runBackendConfig.libDirs != "" {
		dirs = strings.Split(runBackendConfig.libDirs, ",")
	}
	be, err := cuda.New(cuda.Options{LibDirs: dirs, Sync: sync})
	if err != nil {
		return nil, fmt.Errorf("-backend cuda: %w", err)
	}
	return &runDevice{be: be, describe: fmt.Sprintf("backend=cuda device=%q sync=%v", be.DeviceName(), sync), close: be.Close}, nil
}

// relErrOf is max |got-want| / max |want| over a numeric output's elements
// (ok is false for dtypes element cannot read); a NaN on one side only, or
// a size mismatch, gives +Inf.
func relErrOf(v *ir.Value, got, want []byte) (float64, bool) {
	es := v.DType.Size()
	if es <= 0 {
		return 0, false
	}
	if len(got) != len(want) {
		return math.Inf(1), true
	}
	var diff, scale float64
	for i := range int64(len(want)) / es {
		a, ok := element(v.DType, got, i)
		if !ok {
			return 0, false
		}
		b, _ := element(v.DType, want, i)
		switch {
		case math.IsNaN(a) && math.IsNaN(b):
		case math.IsNaN(a) || math.IsNaN(b):
			return math.Inf(1), true
		default:
			diff = max(diff, math.Abs(a-b))
			scale = max(scale, math.Abs(b))
		}
	}
	if scale == 0 {
		return diff, true
	}
	return diff / scale, true
}
