package cuda_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/cuda"
	"github.com/memplan/memplan/internal/randgraph"
	"github.com/memplan/memplan/internal/tensorcmp"
	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/planner"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestGPURandomGraphs runs exec's random graphs (internal/randgraph, the
// generator of exec's end-to-end test) on the GPU: every graph, under every
// planner objective, in every GPU mode, against the CPU backend running the
// same program; each output must be within 1e-5 (max |got-want| over
// max |want|).
func TestGPURandomGraphs(t *testing.T) {
	bes := backends(t)
	worst, runs := 0.0, 0
	for seed := range *gpuGraphs {
		g := rapid.Custom(randgraph.Graph).Example(seed)
		in, err := exec.RandomInputs(g, 7)
		require.NoErrorf(t, err, "%v", err)
		for _, obj := range planner.Objectives() {
			for _, m := range gpuModes {
				prog, err := exec.Compile(context.Background(), g, exec.CompileOptions{Mode: m.mode, Planner: planner.Options{Objective: obj}})
				require.NoErrorf(t, err, "graph %d %s %s: compile: %v", seed, obj, m.name, err)
				want := cpuRun(t, prog, in)
				got, err := exec.RunOnce(context.Background(), bes[m.sync], prog, in, exec.RunOptions{})
				require.NoErrorf(t, err, "graph %d %s %s: %v", seed, obj, m.name, err)
				runs++
				for id, w := range want.Outputs {
					var rel float64
					if g.Values[id].DType == ir.F32 {
						rel = tensorcmp.RelErr(tensorcmp.F32s(got.Outputs[id]), tensorcmp.F32s(w))
					} else if string(got.Outputs[id]) != string(w) {
						rel = 1
					}
					worst = max(worst, rel)
					if rel > 1e-5 {
						t.Errorf("graph %d %s %s: output %s: relative error %.3g > 1e-5 vs the CPU", seed, obj, m.name, g.Values[id].Name, rel)
					}
				}
			}
		}
	}
	t.Logf("%d graphs x %d objectives x %d modes = %d GPU runs; worst relative error vs CPU %.3g", *gpuGraphs, len(planner.Objectives()), len(gpuModes), runs, worst)
}

// TestGPUMemory checks, per zoo model, that the backend makes exactly one
// device allocation per non-empty program buffer (the arena and the
// external buffers) of exactly the planned size, that the driver's free
// memory drops by that much (within its allocation granularity), and that
// it all comes back on Release.
func TestGPUMemory(t *testing.T) {
	be := backend(t, cuda.Barriers)
	const granule = 2 << 20 // the driver rounds allocations up to at most 2 MiB
	for name, dir := range zooModels(t) {
		g, _, _ := loadZoo(t, dir, false)
		prog, err := exec.Compile(context.Background(), g, exec.CompileOptions{Mode: exec.Inferred})
		require.NoErrorf(t, err, "%v", err)
		var want int64
		n := 0
		for _, b := range prog.Buffers {
			want += b.Bytes
			if b.Bytes > 0 {
				n++
			}
		}
		free0, total, err := be.MemInfo()
		require.NoErrorf(t, err, "%v", err)
		mem, err := be.Alloc(prog.Buffers)
		require.NoErrorf(t, err, "%v", err)
		free1, _, err := be.MemInfo()
		require.NoErrorf(t, err, "%v", err)
		allocs, bytes, err := cuda.AllocatedBytes(mem)
		require.NoErrorf(t, err, "%v", err)
		err = mem.Release()
		require.NoErrorf(t, err, "%v", err)
		free2, _, err := be.MemInfo()
		require.NoErrorf(t, err, "%v", err)
		drop := free0 - free1
		t.Logf("%s: arena %d B + %d external buffers = %d B in %d allocations; driver free memory dropped %d B (total %d B), back to %+d B after release",
			name, prog.Buffers[exec.ArenaBuffer].Bytes, len(prog.Buffers)-1, bytes, allocs, drop, total, free2-free0)
		assert.Falsef(t, allocs != n || bytes != want, "%s: %d allocations of %d B, program needs %d of %d B", name, allocs, bytes, n, want)
		assert.Falsef(t, drop < want || drop > want+int64(n)*granule, "%s: free memory dropped %d B for %d B in %d allocations", name, drop, want, n)
		assert.Equalf(t, free0, free2, "%s: free memory %d B after release, %d B before alloc", name, free2, free0)
	}
}

// TestGPUZooOnce runs every full zoo model (and again fused) once as a
// graph (inferred) and once on the stream: the run compute-sanitizer checks.
func TestGPUZooOnce(t *testing.T) {
	bes := backends(t)
	for name, dir := range zooModels(t) {
		for _, fuse := range []bool{false, true} {
			zooOnce(t, bes, name, dir, fuse)
		}
	}
}

func zooOnce(t *testing.T, bes map[cuda.Sync]*cuda.Backend, name, dir string, fuse bool) {
	g, ins, want := loadZoo(t, dir, fuse)
	for _, s := range []cuda.Sync{cuda.Barriers, cuda.Stream} {
		prog, err := exec.Compile(context.Background(), g, exec.CompileOptions{Mode: exec.Inferred})
		require.NoErrorf(t, err, "%v", err)
		res, err := exec.RunOnce(context.Background(), bes[s], prog, ins, exec.RunOptions{})
		require.NoErrorf(t, err, "%s fuse=%v %v: %v", name, fuse, s, err)
		for id, w := range want {
			rel := tensorcmp.RelErr(tensorcmp.F32s(res.Outputs[id]), w)
			t.Logf("%s fuse=%v %v: max relative error %.3g vs PyTorch", name, fuse, s, rel)
			assert.Falsef(t, rel > 1e-4, "%s fuse=%v %v: relative error %.3g", name, fuse, s, rel)
		}
	}
}

// TestGPUBench times every zoo model in every GPU mode: after
// -cuda.warmup untimed runs, -cuda.runs runs of one loaded executable,
// each run's GPU time from its events (the graph launch; in stream mode
// the whole stream of launches). It writes one TSV line per model and mode
// to -cuda.bench; docs/BENCHMARKS.md's CUDA table is generated from that
// file (go run ./internal/tools/cudatable).
func TestGPUBench(t *testing.T) {
	if *benchFile == "" {
		t.Skip("-cuda.bench not set")
	}
	bes := backends(t)
	var lines []string
	for name, dir := range zooModels(t) {
		g, ins, _ := loadZoo(t, dir, false)
		for _, m := range gpuModes {
			prog, err := exec.Compile(context.Background(), g, exec.CompileOptions{Mode: m.mode})
			require.NoErrorf(t, err, "%v", err)
			x, err := exec.Load(bes[m.sync], prog)
			require.NoErrorf(t, err, "%v", err)
			var ns []int64
			slow := make([]int64, len(prog.Dispatches)) // stream mode: summed per dispatch
			for i := range *benchWarm + *benchRuns {
				res, err := x.Run(context.Background(), ins, exec.RunOptions{})
				require.NoErrorf(t, err, "%v", err)
				if i >= *benchWarm {
					ns = append(ns, res.Timings.Device.EndNs-res.Timings.Device.StartNs)
					for j, s := range res.Timings.Dispatches {
						slow[j] += s.EndNs - s.StartNs
					}
				}
			}
			if m.sync == cuda.Stream {
				logSlowest(t, name, prog, slow, int64(*benchRuns))
			}
			err = x.Close()
			require.NoErrorf(t, err, "%v", err)
			slices.Sort(ns)
			q := func(f float64) int64 { return ns[int(f*float64(len(ns)-1))] }
			lines = append(lines, fmt.Sprintf("%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s",
				name, m.name, len(prog.Dispatches), len(prog.Barriers), len(prog.Edges), len(ns), q(0.5), q(0.1), q(0.9), ns[0], bes[m.sync].DeviceName()))
			t.Log(lines[len(lines)-1])
		}
	}
	sort.Strings(lines)
	head := "model\tmode\tdispatches\tbarriers\tedges\truns\tmedian_ns\tp10_ns\tp90_ns\tmin_ns\tdevice\n"
	err := os.WriteFile(*benchFile, []byte(head+strings.Join(lines, "\n")+"\n"), 0o644)
	require.NoErrorf(t, err, "%v", err)
}

// logSlowest logs a model's five slowest dispatches in stream mode (mean
// µs per run), to show where the GPU time goes.
func logSlowest(t *testing.T, model string, p *exec.Program, total []int64, runs int64) {
	idx := make([]int, len(total))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return total[idx[a]] > total[idx[b]] })
	var sum int64
	for _, v := range total {
		sum += v
	}
	for _, i := range idx[:min(5, len(idx))] {
		d := &p.Dispatches[i]
		t.Logf("%s slowest: dispatch %d %s %q %v: %.1f µs per run (%.0f%% of the dispatch time)", model, i, d.Op, d.Name, d.Outputs[0].Shape, float64(total[i])/float64(runs)/1e3, 100*float64(total[i])/float64(max(sum, 1)))
	}
}
