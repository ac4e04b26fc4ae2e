package memranges

import (
	"context"
	"errors"
	"testing"

	"github.com/memplan/memplan/internal/irtest"
	"github.com/memplan/memplan/internal/randgraph"
	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/planner"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// checkGroupedConflicts is the brute-force oracle for a grouped plan: it
// compares every pair of dispatches of the plan's order byte by byte and
// fails when two conflict within one group or the later one's group is
// earlier. Every conflict then runs forward in groups, so the conflict
// DAG's longest path has at most as many dispatches as there are groups.
func checkGroupedConflicts(t interface {
	Helper()
	Fatal(...any)
	Fatalf(string, ...any)
}, g *ir.Graph, p *planner.Plan) []Dispatch {
	t.Helper()
	st, err := FromPlan(g, p.Order, p, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	group := map[ir.NodeID]int64{}
	for k, n := range p.Order {
		group[n] = p.GroupOf(k)
	}
	ds := st.Dispatches
	for j := range ds {
		for i := 0; i < j; i++ {
			if _, ok := Conflicts(Exact, &ds[i], &ds[j]); ok && group[ds[i].Node] >= group[ds[j].Node] {
				t.Fatalf("dispatches %s (group %d) and %s (group %d) conflict but are not in earlier-to-later groups",
					ds[i].Name, group[ds[i].Node], ds[j].Name, group[ds[j].Node])
			}
		}
	}
	return ds
}

// TestConcurrencyCriticalPathIsDataChain: on random graphs the concurrency
// plan's sharing adds no conflict inside a group or backward (pairwise
// oracle), so the critical path after reordering is the data chain; the
// barriers verify.
func TestConcurrencyCriticalPathIsDataChain(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		g := randgraph.Graph(rt)
		opts := planner.Options{Objective: planner.ObjectiveConcurrency,
			DisableInPlace: rapid.Bool().Draw(rt, "no in place"),
			Strategy:       rapid.SampledFrom([]string{"portfolio", "size", "firstfit"}).Draw(rt, "strategy")}
		p, err := planner.PlanGraph(context.Background(), g, nil, opts)
		require.NoErrorf(rt, err, "%v", err)
		if err := p.Verify(g); err != nil {
			rt.Fatal(err)
		}
		ds := checkGroupedConflicts(rt, g, p)
		chain, err := planner.DataChain(g)
		require.NoErrorf(rt, err, "%v", err)
		if want := max(int64(chain), min(int64(len(g.Nodes)), 1)); want != p.Steps { // view nodes alone: one group
			rt.Fatalf("concurrency plan has %d groups, data chain %d", p.Steps, chain)
		}
		perm, _, err := Reorder(ds, ReorderOptions{})
		require.NoErrorf(rt, err, "%v", err)
		rd, _ := Permute(ds, perm)
		bs := PlaceBarriers(Exact, rd)
		if err := Verify(rd, bs); err != nil {
			rt.Fatal(err)
		}
		// Every data edge carries bytes here (randgraph makes no empty
		// tensors and no keep-alive entries), so the chain is a conflict
		// chain too.
		cp := CriticalPath(ds)
		require.Falsef(rt, cp != chain || len(bs) != max(cp-1, 0), "critical path %d, %d barriers; data chain %d", cp, len(bs), chain)
		// Serialising the grouped order refines the grouping: its peak
		// cannot be higher (in place only gains from it).
		serial, err := planner.PlanGraph(context.Background(), g, p.Order, planner.Options{DisableInPlace: opts.DisableInPlace, Strategy: opts.Strategy})
		require.NoErrorf(rt, err, "%v", err)
		if p.LowerBoundBytes < serial.LowerBoundBytes {
			rt.Fatalf("grouped lower bound %d below the serial one %d of the same order", p.LowerBoundBytes, serial.LowerBoundBytes)
		}
	})
}

// TestFrontierRandomGraphs: every frontier verifies (each plan, barriers),
// is monotone, starts at the data chain and ends at the memory plan unless
// a grouped plan has a smaller arena than the serial one (the default
// schedule is not the best order), which drops the dominated memory point.
// Seed 6495501092463783002 draws a graph whose memory plan already reaches
// the data chain: its frontier is that one point.
func TestFrontierRandomGraphs(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		g := randgraph.Graph(rt)
		f, err := BuildFrontier(context.Background(), g, nil, planner.Options{})
		require.NoErrorf(rt, err, "%v", err)
		if err := CheckFrontier(f); err != nil {
			rt.Fatal(err)
		}
		mem, err := planner.PlanGraph(context.Background(), g, nil, planner.Options{})
		require.NoErrorf(rt, err, "%v", err)
		first, last := f.Points[0], f.Points[len(f.Points)-1]
		if first.CriticalPath != f.DataChain {
			rt.Fatalf("first point %q critical path %d (data chain %d)", first.Objective, first.CriticalPath, f.DataChain)
		}
		// The memory point ends the frontier unless a grouped plan beats its
		// arena. A frontier of one point is the memory plan reaching the
		// data chain itself (checked above through first == last): the
		// concurrency point then has as many barriers and no smaller arena.
		if dominated := mem.ArenaBytes > last.ArenaBytes; dominated == (last.Objective == planner.ObjectiveMemory) {
			rt.Fatalf("%d points, last %q at %d bytes; memory plan %d bytes", len(f.Points), last.Objective, last.ArenaBytes, mem.ArenaBytes)
		}
		for _, p := range f.Points {
			if p.Plan.Groups != nil {
				checkGroupedConflicts(rt, g, p.Plan)
			}
		}
	})
}

func TestCheckFrontierFailsOnCorruptFrontiers(t *testing.T) {
	g, _ := irtest.MustBuild(t, `
x = input f32[4,8]
a = Exp x
b = Exp x
c = Exp a
d = Add c b
output d
`)
	f, err := BuildFrontier(context.Background(), g, nil, planner.Options{})
	require.NoErrorf(t, err, "%v", err)
	err = CheckFrontier(f)
	require.NoErrorf(t, err, "frontier of the diamond: %v", err)
	ok := f.Points[0]
	for name, pts := range map[string][]FrontierPoint{
		"arena grows":        {ok, {Barriers: ok.Barriers + 1, CriticalPath: ok.CriticalPath + 1, ArenaBytes: ok.ArenaBytes + 64}},
		"barriers fall":      {ok, {Barriers: ok.Barriers - 1, CriticalPath: ok.CriticalPath - 1, ArenaBytes: ok.ArenaBytes}},
		"below lower bound":  {{Barriers: 1, CriticalPath: 2, ArenaBytes: 64, LowerBoundBytes: 128}},
		"barriers != cp - 1": {{Barriers: 3, CriticalPath: 2, ArenaBytes: 64, LowerBoundBytes: 64}},
	} {
		if err := CheckFrontier(&Frontier{Points: pts, DataChain: f.DataChain}); !errors.Is(err, ErrPlan) {
			t.Errorf("%s: CheckFrontier = %v, want ErrPlan", name, err)
		}
	}
}

// TestGGMLWindowOrder: ggml's windowed pass keeps every conflicting pair in
// order, and never beats the reorder's optimum (critical path - 1).
func TestGGMLWindowOrder(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		ds := genDispatches(rt, 12)
		w := rapid.IntRange(1, 6).Draw(rt, "window")
		perm, groups, err := GGMLWindowOrder(Exact, ds, w)
		require.NoErrorf(rt, err, "%v", err)
		if err := VerifyOrder(ds, perm); err != nil {
			rt.Fatal(err)
		}
		pd, _ := Permute(ds, perm)
		got := len(PlaceBarriers(Exact, pd))
		cp := CriticalPath(ds)
		require.Falsef(rt, got < max(cp-1, 0) || got > len(groups), "%d barriers after the window pass: critical path %d, %d pass groups", got, cp, len(groups))
		if w == 1 {
			for k, i := range perm {
				require.Equalf(rt, i, k, "window 1 moved dispatch %d to %d", i, k)
			}
		}
	})
	_, _, err := GGMLWindowOrder(Exact, nil, 0)
	assert.ErrorIsf(t, err, ErrOptions, "window 0: %v, want ErrOptions", err)
}
