package onnx

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/cpu"
	"github.com/memplan/memplan/internal/tensorcmp"
	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/planner"
)

// fullTolerance is, per full model, the largest accepted relative error of
// the CPU run against PyTorch's output: max |got - want| over
// max |want|, the error relative to the output's scale (elementwise relative
// error is meaningless for outputs near zero).
var fullTolerance = map[string]float64{
	"gpt2_tiny":     1e-4,
	"llama_tiny":    1e-4,
	"squeezenet1_1": 1e-4,
	"unet_small":    1e-4,
}

// TestZooRunsMatchPyTorch runs every full model on the CPU backend in the
// three concurrency modes, compares the output with PyTorch's, and checks
// that the modes agree bit for bit.
func TestZooRunsMatchPyTorch(t *testing.T) {
	if testing.Short() {
		t.Skip("runs whole models")
	}
	for _, run := range fullRuns() {
		m := run.model
		t.Run(run.name, func(t *testing.T) {
			dir := filepath.Join(zooDir, m+"_full")
			g, err := ImportFile(filepath.Join(dir, "model.onnx"), Options{Fuse: run.fuse})
			must(t, err)
			must(t, CheckRunnable(g))
			ins, err := ReadInputs(g, filepath.Join(dir, "test_data_set_0"))
			must(t, err)
			ref, err := ReadOutputs(g, filepath.Join(dir, "test_data_set_0"))
			must(t, err)
			order, err := g.Schedule()
			must(t, err)
			plan, err := planner.PlanGraph(context.Background(), g, order, planner.Options{})
			must(t, err)
			var first map[ir.ValueID][]byte
			for _, mode := range exec.Modes() {
				prog, err := exec.CompilePlan(g, order, plan, mode)
				must(t, err)
				res, err := exec.RunOnce(context.Background(), cpu.New(cpu.Options{}), prog, ins, exec.RunOptions{})
				must(t, err)
				for id, want := range ref {
					rel := tensorcmp.RelErr(f32Values(res.Outputs[id]), f32Values(want.Data))
					t.Logf("%s %v: max relative error %.3g (%d barriers)", g.Values[id].Name, mode, rel, len(prog.Barriers))
					check(t, rel <= fullTolerance[m], mode, ": relative error", rel, "above", fullTolerance[m])
				}
				if first == nil {
					first = res.Outputs
					continue
				}
				for id, b := range res.Outputs {
					check(t, bytes.Equal(b, first[id]), mode, ": output", g.Values[id].Name, "differs from the serial run")
				}
			}
		})
	}
}

type fullRun struct {
	name, model string
	fuse        bool
}

// fullRuns lists every full model, and again with fusion where it changes
// the graph (the transformers' LayerNorm, GELU and RMSNorm chains).
func fullRuns() []fullRun {
	var out []fullRun
	for _, m := range fullModels {
		out = append(out, fullRun{m, m, false})
	}
	for _, m := range fusedModels {
		out = append(out, fullRun{m + "+fuse", m, true})
	}
	return out
}
