package planner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// genGraph builds a random graph of f32[4,8] tensors: unary ops and Adds
// (in-place candidates), Reshape views and chains of them, Transposes
// (copies), Concats to f32[8,8] read through strided explicit views, random
// outputs, pins and keep-alives.
func genGraph(t *rapid.T) *ir.Graph {
	b := ir.NewBuilder("random")
	pool := []ir.ValueID{b.Input("x", ir.F32, 4, 8)}
	if rapid.Bool().Draw(t, "second input") {
		pool = append(pool, b.Input("x2", ir.F32, 4, 8))
	}
	pick := func(label string) ir.ValueID { return rapid.SampledFrom(pool).Draw(t, label) }
	unary := []string{"Relu", "Exp", "Sigmoid", "Neg", "Tanh"}
	n := rapid.IntRange(1, 14).Draw(t, "nodes")
	for i := range n {
		var v ir.ValueID
		switch rapid.IntRange(0, 5).Draw(t, "kind") {
		case 0, 1:
			v = b.Op(rapid.SampledFrom(unary).Draw(t, "op"), nil, pick("in"))
		case 2:
			v = b.Op("Add", nil, pick("a"), pick("b"))
		case 3:
			r := b.Op("Reshape", ir.Attrs{"shape": ir.Ints(2, 16)}, pick("in"))
			v = b.Op("Reshape", ir.Attrs{"shape": ir.Ints(4, 8)}, r)
		case 4:
			v = b.Op("Transpose", ir.Attrs{"perm": ir.Ints(1, 0)}, b.Op("Transpose", ir.Attrs{"perm": ir.Ints(1, 0)}, pick("in")))
		case 5:
			c := b.Op("Concat", ir.Attrs{"axis": ir.Int(0)}, pick("a"), pick("b"))
			off := rapid.SampledFrom([]int64{0, 32}).Draw(t, "view offset")
			v = b.View(fmt.Sprintf("sv%d", i), c, off, ir.F32, ir.Shape{4, 8}, []int64{64, 4})
		}
		pool = append(pool, v)
	}
	last := pool[len(pool)-1]
	b.Output(last)
	if len(pool) > 2 && rapid.Bool().Draw(t, "second output") {
		b.Output(pool[1+rapid.IntRange(0, len(pool)-2).Draw(t, "output")])
	}
	if len(pool) > 2 && rapid.IntRange(0, 3).Draw(t, "pin?") == 0 {
		b.Pin(pool[1+rapid.IntRange(0, len(pool)-2).Draw(t, "pinned")], "random pin")
	}
	if len(pool) > 3 && rapid.IntRange(0, 3).Draw(t, "keep?") == 0 {
		k := rapid.IntRange(1, len(pool)-2).Draw(t, "kept")
		b.KeepAlive(last, pool[k])
	}
	g, err := b.Build()
	if err != nil {
		t.Skipf("generator built an invalid graph: %v", err)
	}
	return g
}

func TestRandomGraphPlans(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := genGraph(t)
		opts := Options{
			DisableInPlace: rapid.Bool().Draw(t, "no in place"),
			PlaceInputs:    rapid.Bool().Draw(t, "place inputs"),
			Align:          rapid.SampledFrom([]int64{0, 16, 256}).Draw(t, "align"),
			Strategy:       rapid.SampledFrom([]string{"portfolio", "size", "lifespan", "firstfit"}).Draw(t, "strategy"),
		}
		p, err := PlanGraph(context.Background(), g, nil, opts)
		require.NoErrorf(t, err, "%v", err)
		if err := p.Verify(g); err != nil {
			t.Fatal(err)
		}
		if p.LowerBoundBytes > p.ArenaBytes || p.ArenaBytes > p.UnsharedBytes {
			t.Fatalf("LB %d arena %d unshared %d", p.LowerBoundBytes, p.ArenaBytes, p.UnsharedBytes)
		}
		again, _ := PlanGraph(context.Background(), g, nil, opts)
		require.Falsef(t, !slices.Equal(p.Offsets, again.Offsets) || !slices.Equal(p.Slots, again.Slots), "two plans of one graph differ")
		checkNoLiveAliasing(t, g, p)
	})
}

// checkNoLiveAliasing is a brute-force oracle for the whole pipeline: it
// recomputes every root's live steps from scratch (first write to last read,
// through any view; outputs to the end; pinned and placed inputs throughout)
// and checks that two roots live at the same step never share a byte, except
// an in-place handoff (one dies at the very step the other is written, in
// the same buffer, and no pinned value is involved).
func checkNoLiveAliasing(t *rapid.T, g *ir.Graph, p *Plan) {
	steps := int64(len(p.Order))
	first := map[ir.ValueID]int64{}
	lastUse := map[ir.ValueID]int64{}
	rootOf := func(v ir.ValueID) ir.ValueID { r, _, _ := g.Root(v); return r }
	pinned := map[ir.ValueID]bool{}
	for _, v := range g.Values {
		r := rootOf(v.ID)
		if v.Flags.Has(ir.FlagPinned) {
			pinned[r] = true
		}
		if v.Flags.Has(ir.FlagOutput) || v.Flags.Has(ir.FlagPinned) || g.Values[r].IsExternal() {
			lastUse[r] = steps - 1
		}
		if v.Flags.Has(ir.FlagPinned) || g.Values[r].IsExternal() {
			first[r] = 0
		}
	}
	for s, id := range p.Order {
		n := g.Nodes[id]
		for _, o := range n.Outputs {
			if g.Values[o].View == nil {
				if _, ok := first[o]; !ok {
					first[o] = int64(s)
				}
			}
			lastUse[rootOf(o)] = max(lastUse[rootOf(o)], int64(s))
		}
		reads := n.KeepAlive
		if !g.IsViewNode(n) {
			reads = append(slices.Clone(n.Inputs), reads...)
		}
		for _, v := range reads {
			lastUse[rootOf(v)] = max(lastUse[rootOf(v)], int64(s))
		}
	}
	var roots []ir.ValueID
	for _, v := range g.Values {
		if v.View == nil && !p.Slots[v.ID].External {
			roots = append(roots, v.ID)
		}
	}
	for i, a := range roots {
		for _, b := range roots[i+1:] {
			fa, la, fb, lb := first[a], max(first[a], lastUse[a]), first[b], max(first[b], lastUse[b])
			if la < fb || lb < fa {
				continue // never live together
			}
			sa, sb := p.Slots[a], p.Slots[b]
			handoff := sa.Buffer == sb.Buffer && !pinned[a] && !pinned[b] && (la == fb || lb == fa)
			if handoff {
				continue
			}
			if sa.Offset < sb.Offset+sb.Bytes && sb.Offset < sa.Offset+sa.Bytes && sa.Bytes > 0 && sb.Bytes > 0 {
				t.Fatalf("values %d %q [%d,%d] and %d %q [%d,%d] are live together and share bytes", a, g.Values[a].Name, fa, la, b, g.Values[b].Name, fb, lb)
			}
		}
	}
}

// TestPlanVerifyCatchesCorruption corrupts a valid graph plan one way at a
// time and checks that Verify names the right class of violation.
func TestPlanVerifyCatchesCorruption(t *testing.T) {
	b := ir.NewBuilder("corrupt")
	x := b.Input("x", ir.F32, 4, 8)
	h := b.Op("Exp", nil, x)
	r := b.Op("Reshape", ir.Attrs{"shape": ir.Ints(32)}, h)
	p1 := b.Op("Exp", nil, h)
	q := b.Op("Add", nil, p1, b.Op("Reshape", ir.Attrs{"shape": ir.Ints(4, 8)}, r))
	b.Output(q)
	b.Pin(p1, "host reads it")
	g, err := b.Build()
	require.NoErrorf(t, err, "%v", err)
	fresh := func() *Plan {
		p, err := PlanGraph(context.Background(), g, nil, Options{})
		require.NoErrorf(t, err, "%v", err)
		if err := p.Verify(g); err != nil {
			t.Fatalf("fresh plan fails: %v", err)
		}
		return p
	}
	bufOf := func(p *Plan, v ir.ValueID) int { return p.Slots[v].Buffer }
	cases := []struct {
		name    string
		corrupt func(p *Plan)
		want    error
	}{
		{"overlap", func(p *Plan) { p.Offsets[bufOf(p, q)] = p.Offsets[bufOf(p, h)] }, ErrOverlap},
		{"misaligned", func(p *Plan) { p.Offsets[bufOf(p, q)] += 8 }, ErrMisaligned},
		{"outside arena", func(p *Plan) { p.ArenaBytes -= 64 }, ErrOutsideArena},
		{"view outside root", func(p *Plan) { p.Slots[r].Offset += 128 }, ErrViewOutsideRoot},
		{"view shifted inside its root", func(p *Plan) { p.Slots[r].Offset += 4 }, ErrSlot},
		{"pinned shared", func(p *Plan) { b := bufOf(p, p1); p.Values[b] = append(p.Values[b], q) }, ErrPinnedShared},
		{"dies too early", func(p *Plan) { p.Buffers[bufOf(p, h)].End = 1 }, ErrLiveness},
		{"output dies before the end", func(p *Plan) { p.Buffers[bufOf(p, q)].End-- }, ErrLiveness},
		{"zero-size slot far away", func(p *Plan) { p.Slots[r].Bytes = 0; p.Slots[r].Offset += 1 << 20 }, ErrSlot},
		{"wrong root", func(p *Plan) { p.Slots[r].Root = x }, ErrSlot},
		{"missing buffer", func(p *Plan) { p.Slots[h].Buffer, p.Slots[h].External = -1, true }, ErrLiveness},
		{"missing slots", func(p *Plan) { p.Slots = p.Slots[:2] }, ErrLength},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := fresh()
			tc.corrupt(p)
			if err := p.Verify(g); !errors.Is(err, tc.want) {
				t.Errorf("Verify = %v, want %v", err, tc.want)
			}
		})
	}
}
