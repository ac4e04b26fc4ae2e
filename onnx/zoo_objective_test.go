package onnx

import (
	"context"
	"testing"

	"github.com/memplan/memplan/memranges"
	"github.com/memplan/memplan/planner"
	"github.com/stretchr/testify/assert"
)

// TestZooObjectives checks issue 14's acceptance on every zoo model: the
// concurrency plan's critical path after reordering equals the data chain,
// its barriers verify, its arena is within 1% of its grouped lower bound,
// and where that bound equals the serial one the arena equals the memory
// plan's (concurrency for free); the frontier has both extremes, verified
// and monotone. docs/MODELS.md tabulates the figures
// (planreport objectives).
func TestZooObjectives(t *testing.T) {
	for _, m := range zooModels {
		t.Run(m, func(t *testing.T) {
			g, err := ImportFile(zooPath(m), Options{})
			must(t, err)
			ctx := context.Background()
			mem, err := planner.PlanGraph(ctx, g, nil, planner.Options{})
			must(t, err)
			conc, err := planner.PlanGraph(ctx, g, nil, planner.Options{Objective: planner.ObjectiveConcurrency})
			must(t, err)
			if err := conc.Verify(g); err != nil {
				t.Fatalf("concurrency plan does not verify: %v", err)
			}
			a, err := memranges.Analyze(g, conc.Order, conc, memranges.AnalyzeOptions{Reorder: true}) // Verify, VerifyOrder inside
			must(t, err)
			s := a.Summary
			assert.Equalf(t, s.DataChain, s.CriticalPath, "critical path %d after reorder, data chain %d", s.CriticalPath, s.DataChain)
			if 100*conc.ArenaBytes > 101*conc.LowerBoundBytes {
				t.Errorf("concurrency arena %d more than 1%% above its grouped lower bound %d", conc.ArenaBytes, conc.LowerBoundBytes)
			}
			if conc.LowerBoundBytes == mem.LowerBoundBytes && conc.ArenaBytes != mem.ArenaBytes {
				t.Errorf("grouped lower bound equals the serial one (%d) but the concurrency arena %d differs from the memory arena %d",
					mem.LowerBoundBytes, conc.ArenaBytes, mem.ArenaBytes)
			}
			f, err := memranges.BuildFrontier(ctx, g, nil, planner.Options{})
			must(t, err)
			if err := memranges.CheckFrontier(f); err != nil {
				t.Error(err)
			}
			if len(f.Points) < 2 {
				t.Errorf("frontier has %d points, want both extremes", len(f.Points))
			}
			t.Logf("data chain %d; memory %d B; concurrency %d B (grouped LB %d B); %d frontier points",
				a.Summary.DataChain, mem.ArenaBytes, conc.ArenaBytes, conc.LowerBoundBytes, len(f.Points))
		})
	}
}
