package planner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/require"
)

// layeredGraph builds n f32[16,16] nodes in a random layered DAG: each
// node reads one or two of the last 8 values (unary ops and Adds, in-place
// candidates both), so the graph has both chains and parallel branches.
func layeredGraph(n int, seed uint64) *ir.Graph {
	r := rand.New(rand.NewPCG(seed, 1))
	b := ir.NewBuilder(fmt.Sprintf("layered%d", n))
	pool := []ir.ValueID{b.Input("x", ir.F32, 16, 16)}
	pick := func() ir.ValueID { return pool[max(0, len(pool)-1-r.IntN(8))] }
	for range n {
		var v ir.ValueID
		if r.IntN(3) == 0 {
			v = b.Op("Add", nil, pick(), pick())
		} else {
			v = b.Op([]string{"Relu", "Exp", "Neg"}[r.IntN(3)], nil, pick())
		}
		pool = append(pool, v)
	}
	b.Output(pool[len(pool)-1])
	g, err := b.Build()
	if err != nil {
		panic(err)
	}
	return g
}

// BenchmarkObjectives plans a layered graph under each objective, with
// the data chain and the groups as metrics.
func BenchmarkObjectives(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		g := layeredGraph(n, 1)
		for _, obj := range Objectives() {
			b.Run(fmt.Sprintf("n=%d/%s", n, obj), func(b *testing.B) {
				var p *Plan
				for b.Loop() {
					var err error
					p, err = PlanGraph(context.Background(), g, nil, Options{Objective: obj, Strategy: "portfolio"})
					require.NoErrorf(b, err, "%v", err)
				}
				b.ReportMetric(float64(p.Steps), "groups")
				b.ReportMetric(float64(p.ArenaBytes), "arena")
			})
		}
	}
}
