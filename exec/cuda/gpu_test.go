package cuda_test

// Tests on a real GPU. Each skips with a one-line reason where
// libcuda.so.1 cannot be loaded (CI has no GPU). On a machine with one:
//
//	go test -c -o bin/cuda.test ./exec/cuda
//	cd exec/cuda && ../../bin/cuda.test -test.v -test.run GPU
//
// -cuda.bench=FILE also writes the benchmark table's data (TestGPUBench).

import (
	"context"
	"errors"
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/cpu"
	"github.com/memplan/memplan/exec/cuda"
	"github.com/memplan/memplan/internal/tensorcmp"
	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/onnx"
	"github.com/stretchr/testify/require"
)

var (
	libDir     = flag.String("cuda.libdir", "", "directory searched first for libcuda.so.1 and libnvrtc.so")
	gpuGraphs  = flag.Int("cuda.graphs", 100, "random graphs in TestGPURandomGraphs")
	benchFile  = flag.String("cuda.bench", "", "TestGPUBench writes its measurements (TSV) to this file; empty skips it")
	benchRuns  = flag.Int("cuda.runs", 200, "timed graph launches per model and mode in TestGPUBench")
	benchWarm  = flag.Int("cuda.warmup", 20, "untimed launches before TestGPUBench times")
	zooPattern = flag.String("cuda.zoo", "../../testdata/models/*_full", "glob of the full zoo model directories")
)

// gpuMode is one way of running a program on the GPU: the program's exec
// mode and the backend's Sync.
type gpuMode struct {
	name string
	mode exec.Mode
	sync cuda.Sync
}

// gpuModes: serial, inferred, reordered (barrier-group graphs), edges
// (the inferred program's edges as graph dependencies) and stream (no
// graph). serial comes first: the others must equal it bit for bit.
var gpuModes = []gpuMode{
	{"serial", exec.Serial, cuda.Barriers},
	{"inferred", exec.Inferred, cuda.Barriers},
	{"reordered", exec.Reordered, cuda.Barriers},
	{"edges", exec.Inferred, cuda.Edges},
	{"stream", exec.Inferred, cuda.Stream},
}

// backend opens the GPU with sync, or skips t where there is none.
func backend(t testing.TB, sync cuda.Sync) *cuda.Backend {
	t.Helper()
	var dirs []string
	if *libDir != "" {
		dirs = []string{*libDir}
	}
	be, err := cuda.New(cuda.Options{LibDirs: dirs, Sync: sync})
	if errors.Is(err, cuda.ErrNoDriver) {
		t.Skip(strings.SplitN(err.Error(), "\n", 2)[0])
	}
	require.NoErrorf(t, err, "%v", err)
	t.Cleanup(func() {
		if err := be.Close(); err != nil {
			t.Error(err)
		}
	})
	return be
}

// backends opens one backend per Sync.
func backends(t testing.TB) map[cuda.Sync]*cuda.Backend {
	out := map[cuda.Sync]*cuda.Backend{}
	for _, s := range []cuda.Sync{cuda.Barriers, cuda.Edges, cuda.Stream} {
		out[s] = backend(t, s)
	}
	return out
}

// zooModels lists the full zoo models (directory, name).
func zooModels(t testing.TB) map[string]string {
	dirs, err := filepath.Glob(*zooPattern)
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no zoo models match %s (%v)", *zooPattern, err)
	}
	out := map[string]string{}
	for _, d := range dirs {
		out[strings.TrimSuffix(filepath.Base(d), "_full")] = d
	}
	return out
}

// loadZoo imports a full model with its test_data_set_0 inputs and
// PyTorch's outputs.
func loadZoo(t testing.TB, dir string, fuse bool) (*ir.Graph, map[ir.ValueID][]byte, map[ir.ValueID][]float32) {
	t.Helper()
	g, err := onnx.ImportFile(filepath.Join(dir, "model.onnx"), onnx.Options{Fuse: fuse})
	require.NoErrorf(t, err, "%v", err)
	ins, err := onnx.ReadInputs(g, filepath.Join(dir, "test_data_set_0"))
	require.NoErrorf(t, err, "%v", err)
	ref, err := onnx.ReadOutputs(g, filepath.Join(dir, "test_data_set_0"))
	require.NoErrorf(t, err, "%v", err)
	want := map[ir.ValueID][]float32{}
	for id, tv := range ref {
		want[id] = tensorcmp.F32s(tv.Data)
	}
	return g, ins, want
}

// TestGPUZooMatchesPyTorch runs every full zoo model (and again fused) in
// every GPU mode, twice per executable (the second run replays the
// instantiated graph), against PyTorch's saved output, and checks that
// every mode and run equals the serial run bit for bit.
func TestGPUZooMatchesPyTorch(t *testing.T) {
	bes := backends(t)
	for name, dir := range zooModels(t) {
		for _, fuse := range []bool{false, true} {
			label := name
			if fuse {
				label += "+fuse"
			}
			t.Run(label, func(t *testing.T) {
				g, ins, want := loadZoo(t, dir, fuse)
				var first map[ir.ValueID][]byte
				for _, m := range gpuModes {
					prog, err := exec.Compile(context.Background(), g, exec.CompileOptions{Mode: m.mode})
					require.NoErrorf(t, err, "%v", err)
					x, err := exec.Load(bes[m.sync], prog)
					require.NoErrorf(t, err, "%v", err)
					for run := range 2 {
						res, err := x.Run(context.Background(), ins, exec.RunOptions{})
						require.NoErrorf(t, err, "%s run %d: %v", m.name, run, err)
						for id, w := range want {
							rel := tensorcmp.RelErr(tensorcmp.F32s(res.Outputs[id]), w)
							if run == 0 {
								t.Logf("%s %s: max relative error %.3g vs PyTorch (%d dispatches, %d barriers, %d edges, GPU %d ns)",
									g.Values[id].Name, m.name, rel, len(prog.Dispatches), len(prog.Barriers), len(prog.Edges), res.Timings.Device.EndNs)
							}
							if rel > 1e-4 {
								t.Errorf("%s %s run %d: relative error %.3g > 1e-4", g.Values[id].Name, m.name, run, rel)
							}
						}
						if first == nil {
							first = res.Outputs
							continue
						}
						for id, b := range res.Outputs {
							if string(b) != string(first[id]) {
								t.Errorf("%s run %d: output %s differs from the serial run", m.name, run, g.Values[id].Name)
							}
						}
					}
					if err := x.Close(); err != nil {
						t.Error(err)
					}
				}
			})
		}
	}
}

// cpuRun runs a program on the CPU backend.
func cpuRun(t testing.TB, p *exec.Program, in map[ir.ValueID][]byte) *exec.Result {
	t.Helper()
	res, err := exec.RunOnce(context.Background(), cpu.New(cpu.Options{}), p, in, exec.RunOptions{})
	require.NoErrorf(t, err, "%v", err)
	return res
}
