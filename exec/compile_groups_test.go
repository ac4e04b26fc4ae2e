package exec_test

import (
	"context"
	"slices"
	"testing"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/internal/irtest"
	"github.com/memplan/memplan/planner"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCompilePlanGroupOrder: a grouped plan compiles in its own order and
// in any order that visits its groups in turn, and is refused for an order
// that runs a later group first (its lifespans, in groups, would not
// hold).
func TestCompilePlanGroupOrder(t *testing.T) {
	g, _ := irtest.MustBuild(t, `
x = input f32[4,8]
a = Exp x
b = Exp x
c = Exp a
d = Add c b
output d
`)
	p, err := planner.PlanGraph(context.Background(), g, nil, planner.Options{Objective: planner.ObjectiveConcurrency})
	require.NoErrorf(t, err, "%v", err)
	_, err = exec.CompilePlan(g, p.Order, p, exec.Reordered)
	require.NoErrorf(t, err, "own order: %v", err)
	// Swap the two nodes of one group: still group by group.
	same := slices.Clone(p.Order)
	for k := 1; k < len(same); k++ {
		if p.Groups[k] == p.Groups[k-1] {
			same[k], same[k-1] = same[k-1], same[k]
			break
		}
	}
	_, err = exec.CompilePlan(g, same, p, exec.Inferred)
	assert.NoErrorf(t, err, "order within groups permuted: %v", err)
	// Move the last group's node first: a later group before an earlier.
	back := append(slices.Clone(p.Order[len(p.Order)-1:]), p.Order[:len(p.Order)-1]...)
	_, err = exec.CompilePlan(g, back, p, exec.Serial)
	assert.ErrorIsf(t, err, exec.ErrProgram, "a later group first: %v, want ErrProgram", err)
}
