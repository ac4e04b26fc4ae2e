package memranges

import (
	"errors"
	"testing"

	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/planner"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tinyGraph builds
//
//	h = MatMul(x, w)        x, w external; h arena [0,64)
//	r = Relu(h)             r arena [64,128)
//	s = Reshape(r)          pure view of r: no dispatch
//	lo = view of r at +32   explicit view, window [96,128)
//	n = Neg(lo)             n arena [128,160)
//	t = Add(s, s)           t arena [0,64): reuses h's bytes (WAR with Relu)
//
// and a hand-made plan for it, so FromPlan is tested without the placer.
func tinyGraph(t *testing.T) (*ir.Graph, *planner.Plan) {
	t.Helper()
	b := ir.NewBuilder("tiny")
	x := b.Input("x", ir.F32, 1, 16)
	w := b.Weight("w", ir.F32, 16, 16)
	h := b.Name(b.Op("MatMul", nil, x, w), "h")
	r := b.Name(b.Op("Relu", nil, h), "r")
	s := b.Name(b.Op("Reshape", ir.Attrs{"shape": ir.Ints(16)}, r), "s")
	lo := b.View("lo", r, 32, ir.F32, ir.Shape{8}, nil)
	n := b.Name(b.Op("Neg", nil, lo), "n")
	tt := b.Name(b.Op("Add", nil, s, s), "t")
	b.Output(n, tt)
	g, err := b.Build()
	require.NoErrorf(t, err, "build: %v", err)
	slots := map[ir.ValueID]planner.Slot{
		x:  {Buffer: -1, Root: x, Offset: 0, Bytes: 64, External: true},
		w:  {Buffer: -1, Root: w, Offset: 0, Bytes: 1024, External: true},
		h:  {Buffer: 0, Root: h, Offset: 0, Bytes: 64},
		r:  {Buffer: 1, Root: r, Offset: 64, Bytes: 64},
		s:  {Buffer: 1, Root: r, Offset: 64, Bytes: 64},
		lo: {Buffer: 1, Root: r, Offset: 96, Bytes: 32},
		n:  {Buffer: 2, Root: n, Offset: 128, Bytes: 32},
		tt: {Buffer: 0, Root: tt, Offset: 0, Bytes: 64},
	}
	p := &planner.Plan{Slots: make([]planner.Slot, len(g.Values))}
	for id, s := range slots {
		p.Slots[id] = s
	}
	if len(slots) != len(g.Values) {
		t.Fatalf("graph has %d values, test plans %d", len(g.Values), len(slots))
	}
	p.Order, err = g.Schedule()
	require.NoErrorf(t, err, "%v", err)
	return g, p
}

func TestFromPlan(t *testing.T) {
	g, p := tinyGraph(t)
	for _, tc := range []struct {
		name  string
		opts  BuildOptions
		want  [][]Range // per dispatch: reads then writes
		names []string
	}{
		{"exact", BuildOptions{}, [][]Range{
			{{1, 0, 64}, {2, 0, 1024}, {0, 0, 64}},
			{{0, 0, 64}, {0, 64, 64}},
			{{0, 96, 32}, {0, 128, 32}},
			{{0, 64, 64}, {0, 0, 64}},
		}, []string{"MatMul", "Relu", "Neg", "Add"}},
		{"whole root", BuildOptions{WholeRoot: true}, [][]Range{
			{{1, 0, 64}, {2, 0, 1024}, {0, 0, 64}},
			{{0, 0, 64}, {0, 64, 64}},
			{{0, 64, 64}, {0, 128, 32}},
			{{0, 64, 64}, {0, 0, 64}},
		}, []string{"MatMul", "Relu", "Neg", "Add"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := FromPlan(g, nil, p, tc.opts)
			require.NoErrorf(t, err, "%v", err)
			if len(st.Buffers) != 3 || st.Buffers[0].Name != "arena" || st.Buffers[1].Name != "x" || st.Buffers[2].Name != "w" {
				t.Fatalf("buffers %+v", st.Buffers)
			}
			if len(st.Dispatches) != len(tc.want) {
				t.Fatalf("%d dispatches, want %d: %+v", len(st.Dispatches), len(tc.want), st.Dispatches)
			}
			for i, d := range st.Dispatches {
				if op := g.Nodes[d.Node].Op; op != tc.names[i] {
					t.Errorf("dispatch %d is %s, want %s", i, op, tc.names[i])
				}
				got := append(d.Reads(), d.Writes()...)
				if len(got) != len(tc.want[i]) {
					t.Fatalf("dispatch %d ranges %v, want %v", i, got, tc.want[i])
				}
				for k := range got {
					if got[k] != tc.want[i][k] {
						t.Errorf("dispatch %d range %d = %v, want %v", i, k, got[k], tc.want[i][k])
					}
				}
			}
		})
	}
}

// TestFromPlanBarriers: the planned reuse of h's bytes by t is a WAR
// hazard with Relu, which the RAW barriers already cover.
func TestFromPlanBarriers(t *testing.T) {
	g, p := tinyGraph(t)
	st, _ := FromPlan(g, nil, p, BuildOptions{})
	bs := PlaceBarriers(Exact, st.Dispatches)
	err := Verify(st.Dispatches, bs)
	require.NoErrorf(t, err, "%v", err)
	// MatMul | Relu | Neg Add: Relu reads h (RAW), Neg reads r (RAW); Add
	// reads r too and writes over h, which only Relu (already fenced) read.
	require.Falsef(t, len(bs) != 2 || bs[0].Cause.Hazard != RAW || bs[1].Before != 2, "barriers %v", bs)
	cp := CriticalPath(st.Dispatches)
	require.Equalf(t, 3, cp, "critical path %d, want 3", cp)
}

func TestFromPlanRejects(t *testing.T) {
	g, p := tinyGraph(t)
	short := &planner.Plan{Slots: p.Slots[:2], Order: p.Order}
	if _, err := FromPlan(g, nil, short, BuildOptions{}); !errors.Is(err, ErrPlan) {
		t.Errorf("short plan: %v", err)
	}
	if _, err := FromPlan(g, nil, nil, BuildOptions{}); !errors.Is(err, ErrPlan) {
		t.Errorf("nil plan: %v", err)
	}
	if _, err := FromPlan(g, []ir.NodeID{0, 99}, p, BuildOptions{}); !errors.Is(err, ErrOrder) {
		t.Errorf("bad order: %v", err)
	}
	bad := &planner.Plan{Slots: append([]planner.Slot{}, p.Slots...), Order: p.Order}
	bad.Slots[2].Bytes = -5
	bad.Slots[3].Offset = -1
	_, err := FromPlan(g, nil, bad, BuildOptions{})
	assert.ErrorIsf(t, err, ErrRange, "negative slot: %v", err)
	// Every violation is reported, not just the first.
	n := len(err.(interface{ Unwrap() []error }).Unwrap())
	assert.GreaterOrEqualf(t, n, 2, "want both bad slots reported, got %d errors: %v", n, err)
}
