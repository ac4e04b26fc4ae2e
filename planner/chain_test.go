package planner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/memplan/memplan/internal/longtest"
	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/require"
)

// inPlaceChain builds x -> Relu -> Relu -> ... (n nodes): every output may
// take its input's buffer, so liveness merges the n values into one.
func inPlaceChain(t testing.TB, n int) *ir.Graph {
	t.Helper()
	b := ir.NewBuilder("chain")
	v := b.Input("x", ir.F32, 4)
	for i := 1; i <= n; i++ {
		v = b.Name(b.Op("Relu", nil, v), fmt.Sprintf("t%d", i))
	}
	b.Output(v)
	g, err := b.Build()
	require.NoErrorf(t, err, "%v", err)
	return g
}

// TestInPlaceChainName: a long in-place chain is one buffer named after all
// its members in order. The 100k case guards against the quadratic naming
// (the name grew by concatenation: 6 s for 100k nodes).
func TestInPlaceChainName(t *testing.T) {
	for _, n := range []int{3, 2000, 100000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			if n > 2000 {
				longtest.Skip(t)
			}
			g := inPlaceChain(t, n)
			p, err := PlanGraph(context.Background(), g, nil, Options{})
			require.NoErrorf(t, err, "%v", err)
			if len(p.Buffers) != 1 {
				t.Fatalf("%d buffers, want 1", len(p.Buffers))
			}
			name := p.Buffers[0].Name
			parts := strings.Split(name, "+")
			if len(parts) != n || parts[0] != "t1" || parts[n-1] != fmt.Sprintf("t%d", n) {
				t.Fatalf("name has %d parts %q..., want t1+...+t%d", len(parts), name[:min(len(name), 40)], n)
			}
			if err := p.Verify(g); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestViewChain: a value at the end of a deep chain of views plans and
// verifies with its root's buffer; 100k deep guards against walking the
// chain from every value (it took 160 s through the CLI).
func TestViewChain(t *testing.T) {
	for _, n := range []int{2000, 100000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			if n > 2000 {
				longtest.Skip(t)
			}
			b := ir.NewBuilder("views")
			h := b.Op("Relu", nil, b.Input("x", ir.F32, 4))
			v := h
			for i := 0; i < n; i++ {
				v = b.View("", v, 0, ir.F32, ir.Shape{4}, nil)
			}
			y := b.Op("Neg", nil, v)
			b.Output(y)
			g, err := b.Build()
			require.NoErrorf(t, err, "%v", err)
			p, err := PlanGraph(context.Background(), g, nil, Options{})
			require.NoErrorf(t, err, "%v", err)
			if s := p.Slots[v]; s.Root != h || s.Buffer != p.Slots[h].Buffer {
				t.Fatalf("chain end: slot %+v, want root %d in buffer %d", s, h, p.Slots[h].Buffer)
			}
			if err := p.Verify(g); err != nil {
				t.Fatal(err)
			}
		})
	}
}
