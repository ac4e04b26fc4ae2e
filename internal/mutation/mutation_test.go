package mutation_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/cpu"
	"github.com/memplan/memplan/internal/longtest"
	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/onnx"
	"github.com/memplan/memplan/planner"
	"github.com/stretchr/testify/require"
)

// subject is one graph under test with its inputs and reference outputs.
type subject struct {
	name string
	g    *ir.Graph
	in   map[ir.ValueID][]byte
	want *exec.Result
}

var perKindFlag = flag.Int("mutation.per-kind", 0, "corruptions of each kind per subject and objective (0: 1, or 4 with MEMPLAN_LONG_TESTS=1)")

// counts are the tallies of one kind of corruption.
type counts struct{ tried, harmful, caught, harmfulAccepted int }

// quick subjects make the default run (a few seconds); the long run tries
// every testdata graph and zoo model.
var quick = map[string]bool{"mlp.json": true, "views.json": true, "transformer_block.json": true, "gpt2_tiny": true, "llama_tiny": true}

func loadSubjects(t *testing.T, long bool) []subject {
	t.Helper()
	var gs []*ir.Graph
	names := []string{}
	files, _ := filepath.Glob("../../testdata/*.json")
	for _, f := range files {
		if !long && !quick[filepath.Base(f)] {
			continue
		}
		g, err := irParseFile(f)
		require.NoErrorf(t, err, "%s: %v", f, err)
		gs, names = append(gs, g), append(names, filepath.Base(f))
	}
	models, _ := filepath.Glob("../../testdata/models/*.onnx")
	for _, f := range models {
		name := strings.TrimSuffix(filepath.Base(f), ".onnx")
		if !long && !quick[name] {
			continue
		}
		g, err := onnx.ImportFile(f, onnx.Options{})
		require.NoErrorf(t, err, "%s: %v", f, err)
		if onnx.CheckRunnable(g) != nil {
			continue
		}
		gs, names = append(gs, g), append(names, name)
	}
	var out []subject
	for i, g := range gs {
		in, err := exec.RandomInputs(g, 1)
		if err != nil {
			t.Fatalf("%s: inputs: %v", names[i], err)
		}
		ref, err := exec.Reference(g)
		if err != nil {
			t.Fatalf("%s: reference: %v", names[i], err)
		}
		want, err := exec.RunOnce(context.Background(), cpu.New(cpu.Options{Order: cpu.InOrder}), ref, in, exec.RunOptions{})
		if err != nil {
			t.Fatalf("%s: reference run: %v", names[i], err)
		}
		out = append(out, subject{names[i], g, in, want})
	}
	return out
}

// harmful runs p on the CPU in program order and with every group
// reversed, and reports whether an output differs from the reference (a
// panic counts as harm; a refusal to load or run does not: the run never
// produced a wrong answer).
func harmful(s *subject, p *exec.Program) (bad bool, why string) {
	defer func() {
		if r := recover(); r != nil {
			bad, why = true, fmt.Sprint("panic: ", r)
		}
	}()
	for _, order := range []cpu.GroupOrder{cpu.InOrder, cpu.Reversed} {
		res, err := exec.RunOnce(context.Background(), cpu.New(cpu.Options{Order: order}), p, s.in, exec.RunOptions{})
		if err != nil {
			return false, ""
		}
		for _, id := range p.Graph.ValuesWith(ir.FlagOutput) {
			if !bytes.Equal(res.Outputs[id], s.want.Outputs[id]) {
				return true, fmt.Sprintf("output %d %q differs (group order %d)", id, p.Graph.Values[id].Name, order)
			}
		}
	}
	return false, ""
}

// TestMutation corrupts plans and programs and requires every corruption
// that changes the CPU output to be rejected by a verifier.
func TestMutation(t *testing.T) {
	long := longtest.Enabled()
	perKind := 1
	if long {
		perKind = 4
	}
	if *perKindFlag > 0 {
		perKind = *perKindFlag
	}
	subjects := loadSubjects(t, long)
	tally := map[string]*counts{}
	add := func(kind string, caught, harm bool, desc string) {
		c := tally[kind]
		if c == nil {
			c = &counts{}
			tally[kind] = c
		}
		c.tried++
		if harm {
			c.harmful++
		}
		if caught {
			c.caught++
		}
		if harm && !caught {
			c.harmfulAccepted++
			t.Errorf("harmful corruption accepted: %s", desc)
		}
	}
	r := rand.New(rand.NewPCG(17, 17))
	objectives := []string{"memory", "concurrency"}
	for _, s := range subjects {
		t0 := time.Now()
		for _, obj := range objectives {
			base, err := planner.PlanGraph(context.Background(), s.g, nil, planner.Options{Objective: obj})
			require.NoErrorf(t, err, "%s/%s: plan: %v", s.name, obj, err)
			err = base.Verify(s.g)
			require.NoErrorf(t, err, "%s/%s: fresh plan does not verify: %v", s.name, obj, err)
			for _, m := range planMutations {
				for k := 0; k < perKind; k++ {
					p := clonePlan(base)
					if !m.do(p, s.g, r) {
						continue
					}
					caught := p.Verify(s.g) != nil
					var harm bool
					var why string
					if prog, err := exec.CompilePlan(s.g, p.Order, p, exec.Inferred); err == nil {
						harm, why = harmful(&s, prog)
					}
					add("plan: "+m.name, caught, harm, fmt.Sprintf("%s/%s plan: %s: %s", s.name, obj, m.name, why))
				}
			}
			prog, err := exec.CompilePlan(s.g, base.Order, base, exec.Inferred)
			require.NoErrorf(t, err, "%s/%s: compile: %v", s.name, obj, err)
			err = prog.Verify()
			require.NoErrorf(t, err, "%s/%s: fresh program does not verify: %v", s.name, obj, err)
			for _, m := range progMutations {
				for k := 0; k < perKind; k++ {
					p := cloneProgram(prog)
					if !m.do(p, r) {
						continue
					}
					caught := p.Verify() != nil
					harm, why := harmful(&s, p)
					add("program: "+m.name, caught, harm, fmt.Sprintf("%s/%s program: %s: %s", s.name, obj, m.name, why))
				}
			}
		}
		t.Logf("%s: %.2f s", s.name, time.Since(t0).Seconds())
	}
	kinds := make([]string, 0, len(tally))
	for k := range tally {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var total counts
	for _, k := range kinds {
		c := tally[k]
		t.Logf("%-48s tried %4d  harmful %4d  caught %4d  harmful accepted %d", k, c.tried, c.harmful, c.caught, c.harmfulAccepted)
		total.tried += c.tried
		total.harmful += c.harmful
		total.caught += c.caught
		total.harmfulAccepted += c.harmfulAccepted
	}
	t.Logf("%d corruptions of each kind per subject and objective", perKind)
	t.Logf("%d subjects; total: tried %d, harmful %d, caught %d, harmful accepted %d", len(subjects), total.tried, total.harmful, total.caught, total.harmfulAccepted)
}
