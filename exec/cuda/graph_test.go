package cuda

import (
	"context"
	"fmt"
	"testing"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/launch"
	"github.com/memplan/memplan/memranges"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// steps builds a recorded run: a number is a dispatch with that many
// non-empty launches (index = its position among dispatches), "|" a
// barrier.
func steps(spec ...any) []step {
	var out []step
	idx := 0
	for _, s := range spec {
		if s == "|" {
			out = append(out, step{})
			continue
		}
		n := s.(int)
		k := &prepared{index: idx, geo: make([]geometry, max(n, 1))}
		for i := 0; i < n; i++ {
			k.geo[i] = geometry{blocks: 1, threads: 32}
		}
		out = append(out, step{k: k})
		idx++
	}
	return out
}

// shape prints a planned graph as node: deps, "d<i>.<l>" for launch l of
// dispatch i, "j" for a join, "e<i>" for an empty dispatch.
func shape(nodes []gnode) string {
	name := func(n gnode) string {
		switch {
		case n.disp < 0:
			return "j"
		case n.l < 0:
			return fmt.Sprintf("e%d", n.disp)
		}
		return fmt.Sprintf("d%d.%d", n.disp, n.l)
	}
	s := ""
	for i, n := range nodes {
		s += fmt.Sprintf("%d=%s%v ", i, name(n), n.deps)
	}
	return s
}

func TestPlanGraph(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
		edges []memranges.Edge
		use   bool
		want  string
	}{
		{"serial is a chain", steps(1, "|", 1, "|", 1), nil, false, "0=d0.0[] 1=d1.0[0] 2=d2.0[1] "},
		{"groups join once", steps(1, 1, "|", 1, "|", 1, 1), nil, false,
			"0=d0.0[] 1=d1.0[] 2=j[0 1] 3=d2.0[2] 4=d3.0[3] 5=d4.0[3] "},
		{"multi-launch dispatch joins all its pieces", steps(2, "|", 1), nil, false,
			"0=d0.0[] 1=d0.1[] 2=j[0 1] 3=d1.0[2] "},
		{"empty dispatch passes the order on", steps(1, "|", 0, "|", 1), nil, false,
			"0=d0.0[] 1=e1[0] 2=d2.0[1] "},
		{"no barriers: all roots", steps(1, 1, 1), nil, false, "0=d0.0[] 1=d1.0[] 2=d2.0[] "},
		{"edges ignore barriers", steps(1, "|", 1, "|", 2, "|", 1), []memranges.Edge{{From: 0, To: 2}, {From: 1, To: 3}, {From: 2, To: 3}}, true,
			"0=d0.0[] 1=d1.0[] 2=d2.0[0] 3=d2.1[0] 4=d3.0[1 2 3] "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			nodes, err := planGraph(tc.steps, tc.edges, tc.use)
			require.NoErrorf(t, err, "%v", err)
			got := shape(nodes)
			assert.Equalf(t, tc.want, got, "graph\n got %s\nwant %s", got, tc.want)
		})
	}
}

// TestPlanGraphRejectsBadEdges: an edge from a dispatch not encoded before
// its target is reported, not dropped.
func TestPlanGraphRejectsBadEdges(t *testing.T) {
	for _, e := range []memranges.Edge{{From: 1, To: 0}, {From: 7, To: 1}} {
		_, err := planGraph(steps(1, 1), []memranges.Edge{e}, true)
		assert.ErrorIsf(t, err, ErrEdges, "edge %v: err = %v, want ErrEdges", e, err)
	}
}

// TestGraphOrdersEveryConflict runs the unit graph in every mode on the
// fake and checks, on the graph the driver received, that for every
// program edge (every pair of conflicting dispatches, transitively
// reduced) each launch of To depends on each launch of From, and that the
// graph is built and instantiated once for any number of runs.
func TestGraphOrdersEveryConflict(t *testing.T) {
	g := testGraph(t)
	for _, tc := range []struct {
		mode exec.Mode
		sync Sync
	}{{exec.Serial, Barriers}, {exec.Inferred, Barriers}, {exec.Reordered, Barriers}, {exec.Inferred, Edges}} {
		t.Run(tc.mode.String()+"/"+tc.sync.String(), func(t *testing.T) {
			p := compile(t, g, tc.mode)
			f := newFake(t)
			x, err := exec.Load(newBackend(f, Options{Sync: tc.sync}), p)
			require.NoErrorf(t, err, "%v", err)
			defer x.Close()
			for range 3 {
				res, err := x.Run(context.Background(), inputs(t, g), exec.RunOptions{})
				require.NoErrorf(t, err, "%v", err)
				if res.Timings == nil || res.Timings.Device.EndNs <= 0 {
					t.Errorf("no device time: %+v", res.Timings)
				}
			}
			if f.instantiated != 1 || f.graphRuns != 3 {
				t.Errorf("%d graphs instantiated, %d launched; want 1, 3", f.instantiated, f.graphRuns)
			}
			fg, err := f.only()
			require.NoErrorf(t, err, "%v", err)
			for _, e := range unordered(t, fg, p) {
				t.Error(e)
			}
			if len(f.events) != 0 {
				t.Errorf("%d events not destroyed", len(f.events))
			}
		})
	}
}

// unordered lists every program edge whose launches the graph does not
// order: each launch node of To must depend on each launch node of From.
func unordered(t *testing.T, fg *fakeGraph, p *exec.Program) []string {
	t.Helper()
	nodesOf := map[int][]int{} // dispatch -> indices into fg.order
	k := 0
	for i := range p.Dispatches {
		ls, err := launch.Plan(&p.Dispatches[i])
		require.NoErrorf(t, err, "%v", err)
		for range ls {
			for k < len(fg.order) && fg.nodes[fg.order[k]].launch == nil {
				k++
			}
			require.Falsef(t, k == len(fg.order), "graph has fewer kernel nodes than launches")
			nodesOf[i] = append(nodesOf[i], k)
			k++
		}
	}
	var out []string
	for _, e := range p.Edges {
		for _, a := range nodesOf[e.From] {
			for _, b := range nodesOf[e.To] {
				if !fg.reaches(fg.order[a], fg.order[b]) {
					out = append(out, fmt.Sprintf("edge %v: launch node %d does not wait for %d", e, b, a))
				}
			}
		}
	}
	return out
}

// TestUnorderedCatchesDroppedBarriers: without barriers (the unsafe test
// switch) the graph has no dependencies, and the check above says so.
func TestUnorderedCatchesDroppedBarriers(t *testing.T) {
	g := testGraph(t)
	p := compile(t, g, exec.Inferred)
	require.NotEmptyf(t, p.Edges, "the unit graph has no conflicts")
	f := newFake(t)
	x, err := exec.Load(newBackend(f, Options{}), p)
	require.NoErrorf(t, err, "%v", err)
	defer x.Close()
	_, err = x.Run(context.Background(), inputs(t, g), exec.RunOptions{UnsafeDropBarriersForTesting: true})
	require.NoErrorf(t, err, "%v", err)
	fg, err := f.only()
	require.NoErrorf(t, err, "%v", err)
	assert.NotEmptyf(t, unordered(t, fg, p), "a graph without dependencies passes the ordering check")
}
