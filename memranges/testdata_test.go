package memranges

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/planner"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testdataGraphs parses every ../testdata/*.json graph and plans it with
// plan.
func testdataGraphs(tb testing.TB, plan func(testing.TB, *ir.Graph, []ir.NodeID) *planner.Plan) []struct {
	name  string
	g     *ir.Graph
	order []ir.NodeID
	plan  *planner.Plan
} {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join("..", "testdata", "*.json"))
	require.NoErrorf(tb, err, "%v", err)
	if len(files) == 0 {
		tb.Skip("no testdata/*.json graphs")
	}
	var out []struct {
		name  string
		g     *ir.Graph
		order []ir.NodeID
		plan  *planner.Plan
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoErrorf(tb, err, "%v", err)
		g, err := ir.Parse(data)
		require.NoErrorf(tb, err, "%s: %v", f, err)
		order, err := g.Schedule()
		require.NoErrorf(tb, err, "%s: %v", f, err)
		p := plan(tb, g, order)
		out = append(out, struct {
			name  string
			g     *ir.Graph
			order []ir.NodeID
			plan  *planner.Plan
		}{filepath.Base(f), g, order, p})
	}
	return out
}

// planners are the plans the testdata tests run under: the independent
// no-reuse stand-in, and the real planner, whose plans reuse memory (in
// place and across lifetimes), so reorder must respect WAR and WAW
// conflicts between nodes with no data edge.
var planners = []struct {
	name string
	plan func(testing.TB, *ir.Graph, []ir.NodeID) *planner.Plan
}{
	{"naive", func(tb testing.TB, g *ir.Graph, _ []ir.NodeID) *planner.Plan { return naivePlan(tb, g) }},
	{"planner", func(tb testing.TB, g *ir.Graph, order []ir.NodeID) *planner.Plan {
		p, err := planner.PlanGraph(context.Background(), g, order, planner.Options{})
		if err != nil {
			tb.Fatalf("%s: %v", g.Name, err)
		}
		return p
	}},
}

// TestTestdataGraphs: on every testdata graph and plan, the fixed-order
// barriers verify, exact needs no more barriers than ggml mode, the
// dependency edges verify, and after Reorder barriers == critical_path - 1.
func TestTestdataGraphs(t *testing.T) {
	for _, pl := range planners {
		for _, tg := range testdataGraphs(t, pl.plan) {
			t.Run(pl.name+"/"+tg.name, func(t *testing.T) {
				fixed, err := Analyze(tg.g, tg.order, tg.plan, AnalyzeOptions{})
				require.NoErrorf(t, err, "%v", err)
				re, err := Analyze(tg.g, tg.order, tg.plan, AnalyzeOptions{Reorder: true})
				require.NoErrorf(t, err, "%v", err)
				fs, rs := fixed.Summary, re.Summary
				want := max(rs.CriticalPath-1, 0)
				assert.Equalf(t, want, rs.Barriers, "after reorder %d barriers, critical path %d", rs.Barriers, rs.CriticalPath)
				assert.Falsef(t, fs.CriticalPath != rs.CriticalPath || fs.Barriers < rs.Barriers, "fixed %+v vs reordered %+v", fs, rs)
				assert.LessOrEqualf(t, fs.Barriers, fs.BarriersGGML, "exact %d barriers > ggml %d", fs.Barriers, fs.BarriersGGML)
				ds := fixed.Stream.Dispatches
				if err := VerifyEdges(ds, Edges(ds)); err != nil {
					t.Error(err)
				}
				assert.NotEmptyf(t, ds, "no dispatches")
				t.Logf("%d dispatches: %d barriers in schedule order, %d reordered, %d ggml, critical path %d",
					fs.Dispatches, fs.Barriers, rs.Barriers, fs.BarriersGGML, fs.CriticalPath)
			})
		}
	}
}

// BenchmarkTrackerTestdata measures Check+Add per dispatch on each testdata
// graph's dispatch stream in schedule order.
func BenchmarkTrackerTestdata(b *testing.B) {
	for _, pl := range planners {
		for _, tg := range testdataGraphs(b, pl.plan) {
			st, err := FromPlan(tg.g, tg.order, tg.plan, BuildOptions{})
			require.NoErrorf(b, err, "%v", err)
			b.Run(pl.name+"/"+tg.name, func(b *testing.B) { benchTracker(b, st.Dispatches) })
		}
	}
}
