package memranges

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/planner"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// naivePlan is an independent stand-in for the planner: every non-external
// root gets its own 64-byte-aligned arena slot, in value order (no reuse),
// and every value's window is computed here from its view chain: the
// offset inside the root and, for strided views, the bounding window of
// the addressed bytes. FromPlan's windows can then be checked against a
// second derivation, and graphs analysed before the placer exists.
func naivePlan(t testing.TB, g *ir.Graph) *planner.Plan {
	t.Helper()
	p := &planner.Plan{Slots: make([]planner.Slot, len(g.Values))}
	base := make([]int64, len(g.Values))
	next := int64(0)
	for _, v := range g.Values {
		if v.IsView() || v.IsExternal() {
			continue
		}
		n, err := v.Bytes()
		require.NoErrorf(t, err, "%v", err)
		base[v.ID] = next
		next += (n + 63) &^ 63
	}
	for _, v := range g.Values {
		root, off, err := g.Root(v.ID)
		require.NoErrorf(t, err, "%v", err)
		s := planner.Slot{Buffer: -1, Root: root, External: g.Values[root].IsExternal()}
		s.Offset = off
		if !s.External {
			s.Buffer = int(root)
			s.Offset += base[root]
		}
		elem := v.DType.Size()
		if v.View != nil && v.View.StridesBytes != nil {
			lo, hi := int64(0), elem
			empty := false
			for i, d := range v.Shape {
				if d == 0 {
					empty = true
				}
				step := (d - 1) * v.View.StridesBytes[i]
				lo += min(0, step)
				hi += max(0, step)
			}
			if !empty {
				s.Low, s.Bytes = -lo, hi-lo
			}
		} else {
			s.Bytes, _ = v.Bytes()
		}
		p.Slots[v.ID] = s
	}
	var err error
	p.Order, err = g.Schedule()
	require.NoErrorf(t, err, "%v", err)
	p.ArenaBytes = next
	return p
}

// TestFromPlanStridedWindows: on testdata/views.json, strided views read
// their bounding window (negative strides included), and whole-root mode
// widens them to the root.
func TestFromPlanStridedWindows(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "views.json"))
	if err != nil {
		t.Skip("testdata/views.json absent")
	}
	g, err := ir.Parse(data)
	require.NoErrorf(t, err, "%v", err)
	p := naivePlan(t, g)
	for _, tc := range []struct {
		opts BuildOptions
		want map[string]Range // dispatch name -> its first read
	}{
		{BuildOptions{}, map[string]Range{
			"a (Relu)":    {1, 16, 464},  // band: offset 16, strides [64 4], shape [8 4]
			"c (Add)":     {1, 0, 512},   // rev: offset 448, strides [-64 4], shape [8 16]
			"d (MatMul)":  {0, 0, 512},   // ht: transposed h
			"f (Sigmoid)": {0, 128, 256}, // flat: view of the Slice view mid
		}},
		{BuildOptions{WholeRoot: true}, map[string]Range{
			"a (Relu)":    {1, 0, 512},
			"f (Sigmoid)": {0, 0, 512},
		}},
	} {
		st, err := FromPlan(g, nil, p, tc.opts)
		require.NoErrorf(t, err, "%v", err)
		found := 0
		for _, d := range st.Dispatches {
			if want, ok := tc.want[d.Name]; ok {
				found++
				got := d.Reads()[0]
				assert.Equalf(t, want, got, "whole root %v: %s reads %v first, want %v", tc.opts.WholeRoot, d.Name, got, want)
			}
		}
		if found != len(tc.want) {
			t.Errorf("found %d of %d dispatches in %v", found, len(tc.want), st.Dispatches)
		}
	}
}
