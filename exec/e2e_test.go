package exec_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/cpu"
	"github.com/memplan/memplan/internal/longtest"
	"github.com/memplan/memplan/internal/randgraph"
	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/planner"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

var e2eCount = flag.Int("e2e.count", 100, "random graphs per mode in the end-to-end property test")

// tb is what the helpers need from *testing.T and *rapid.T.
type tb interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Skip(args ...any)
}

// compilers are the memory plans every program is built on: the planner's
// under each objective (memory is the default) and the naive independent
// one (naiveplan_test.go).
func compilers() map[string]func(*ir.Graph, exec.Mode) (*exec.Program, error) {
	return map[string]func(*ir.Graph, exec.Mode) (*exec.Program, error){
		"naive":   compileNaive,
		"planner": compilePlanner,
		"planner-inputs-in-arena": func(g *ir.Graph, mode exec.Mode) (*exec.Program, error) {
			return exec.Compile(context.Background(), g, exec.CompileOptions{Mode: mode, Planner: planner.Options{PlaceInputs: true}})
		},
		"planner-concurrency": func(g *ir.Graph, mode exec.Mode) (*exec.Program, error) {
			return exec.Compile(context.Background(), g, exec.CompileOptions{Mode: mode, Planner: planner.Options{Objective: planner.ObjectiveConcurrency}})
		},
		"planner-balanced": func(g *ir.Graph, mode exec.Mode) (*exec.Program, error) {
			return exec.Compile(context.Background(), g, exec.CompileOptions{Mode: mode, Planner: planner.Options{Objective: planner.ObjectiveBalanced}})
		},
	}
}

// compilePlanner builds g's program on the planner's plan (in place on).
func compilePlanner(g *ir.Graph, mode exec.Mode) (*exec.Program, error) {
	return exec.Compile(context.Background(), g, exec.CompileOptions{Mode: mode})
}

// eachProgram calls fn for every (plan, mode) program of g. A heavy graph
// under -race or -short is compiled on the planner's plan only, and under
// -race not in Serial mode (it has no concurrency for the detector to check;
// the plain test run covers it).
func eachProgram(t tb, g *ir.Graph, heavy bool, fn func(name string, p *exec.Program)) {
	t.Helper()
	for cn, c := range compilers() {
		if heavy && cn != "planner" && (raceEnabled || testing.Short()) {
			continue
		}
		if heavy && strings.HasPrefix(cn, "planner-") && cn != "planner-inputs-in-arena" && !longtest.Enabled() {
			continue // the other objectives on the testdata graphs: CI's long run (random graphs cover them always)
		}
		for _, mode := range exec.Modes() {
			if heavy && mode == exec.Serial && raceEnabled {
				continue // nothing runs concurrently: no race to detect
			}
			p, err := c(g, mode)
			if err != nil {
				t.Fatalf("%s/%v: compile: %v", cn, mode, err)
			}
			if err := p.Verify(); err != nil {
				t.Fatalf("%s/%v: program does not verify: %v", cn, mode, err)
			}
			fn(cn+"/"+mode.String(), p)
		}
	}
}

// reference runs g with every value in its own buffer, serially.
func reference(t tb, g *ir.Graph, in map[ir.ValueID][]byte) *exec.Result {
	t.Helper()
	p, err := exec.Reference(g)
	if err != nil {
		t.Fatalf("reference: %v", err)
	}
	res, err := exec.RunOnce(context.Background(), cpu.New(cpu.Options{Order: cpu.InOrder}), p, in, exec.RunOptions{})
	if err != nil {
		t.Fatalf("reference run: %v", err)
	}
	return res
}

// diff runs p on be and returns "" when every output equals want bit for
// bit, or a description of the first difference.
func diff(p *exec.Program, be exec.Backend, in map[ir.ValueID][]byte, want *exec.Result, opts exec.RunOptions) (string, error) {
	res, err := exec.RunOnce(context.Background(), be, p, in, opts)
	if err != nil {
		return "", err
	}
	for _, id := range p.Graph.ValuesWith(ir.FlagOutput) {
		if !bytes.Equal(res.Outputs[id], want.Outputs[id]) {
			return fmt.Sprintf("output %d %q differs from the reference", id, p.Graph.Values[id].Name), nil
		}
	}
	return "", nil
}

// backends are the CPU executions every program must agree under: the
// worker pool, and each group run sequentially backwards (a legal order
// that exposes a missing barrier deterministically).
//
// Under -race (or -short) only the worker pool runs: that is what the race
// detector checks, and the instrumented kernels are slow.
func backends() map[string]exec.Backend {
	if raceEnabled || testing.Short() {
		return map[string]exec.Backend{"concurrent": cpu.New(cpu.Options{Workers: 4})}
	}
	return map[string]exec.Backend{
		"concurrent": cpu.New(cpu.Options{Workers: 4}),
		"reversed":   cpu.New(cpu.Options{Order: cpu.Reversed}),
	}
}

// TestEndToEndRandomGraphs: random graph -> plan -> barriers (every mode)
// -> CPU run equals the reference run bit for bit.
func TestEndToEndRandomGraphs(t *testing.T) {
	withChecks(t, *e2eCount)
	var graphs, inPlace, viewsRead, barriers, dispatches int
	defer func() {
		t.Logf("%d graphs: %d dispatches, %d barriers, %d in-place dispatches, %d strided-view operands", graphs, dispatches, barriers, inPlace, viewsRead)
		assert.Falsef(t, graphs > 20 && (inPlace == 0 || viewsRead == 0 || barriers == 0), "the generator no longer exercises in place, views and barriers")
	}()
	rapid.Check(t, func(rt *rapid.T) {
		graphs++
		g := randgraph.Graph(rt)
		in, err := exec.RandomInputs(g, 7)
		require.NoErrorf(rt, err, "%v", err)
		want := reference(rt, g, in)
		eachProgram(rt, g, false, func(pn string, p *exec.Program) {
			stats(p, &inPlace, &viewsRead, &barriers, &dispatches)
			for name, be := range backends() {
				d, err := diff(p, be, in, want, exec.RunOptions{})
				require.NoErrorf(rt, err, "%s/%s: %v", pn, name, err)
				require.Equalf(rt, "", d, "%s/%s: %s", pn, name, d)
			}
		})
	})
}

// withChecks sets rapid's -rapid.checks to n unless the command line set it.
func withChecks(t *testing.T, n int) {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "rapid.checks" })
	if set {
		return
	}
	old := flag.Lookup("rapid.checks").Value.String()
	err := flag.Set("rapid.checks", strconv.Itoa(n))
	require.NoErrorf(t, err, "%v", err)
	t.Cleanup(func() { _ = flag.Set("rapid.checks", old) })
}

// testdataGraphs returns the parsed graphs in the module's testdata.
func testdataGraphs(t tb) map[string]*ir.Graph {
	t.Helper()
	files, _ := filepath.Glob("../testdata/*.json")
	if len(files) == 0 {
		t.Skip("no testdata graphs")
	}
	out := map[string]*ir.Graph{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		g, err := ir.Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[filepath.Base(f)] = g
	}
	return out
}

// TestTestdataAllModes runs every testdata graph in all three modes and
// requires identical outputs, equal to the reference run.
func TestTestdataAllModes(t *testing.T) {
	for name, g := range testdataGraphs(t) {
		t.Run(name, func(t *testing.T) {
			in, err := exec.RandomInputs(g, 1)
			require.NoErrorf(t, err, "%v", err)
			want := reference(t, g, in)
			require.NotEmptyf(t, want.Outputs, "graph has no outputs")
			eachProgram(t, g, true, func(pn string, p *exec.Program) {
				for bn, be := range backends() {
					d, err := diff(p, be, in, want, exec.RunOptions{})
					require.NoErrorf(t, err, "%s/%s: %v", pn, bn, err)
					assert.Equalf(t, "", d, "%s/%s: %s", pn, bn, d)
				}
			})
		})
	}
}

// stats counts what a program exercises: dispatches whose output shares an
// input's exact location (in place), strided operands, barriers.
func stats(p *exec.Program, inPlace, strided, barriers, dispatches *int) {
	*barriers += len(p.Barriers)
	*dispatches += len(p.Dispatches)
	for _, d := range p.Dispatches {
		for _, o := range d.Outputs {
			for _, in := range d.Inputs {
				if in.Buffer == o.Buffer && in.OffsetBytes == o.OffsetBytes && in.Value != o.Value {
					*inPlace++
				}
			}
		}
		for _, in := range d.Inputs {
			if !in.IsContiguous() {
				*strided++
			}
		}
	}
}
