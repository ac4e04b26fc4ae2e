package planner

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/memplan/memplan/internal/irtest"
	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// diamond is the example of groups.go: b has slack [0, 1].
const diamond = `
x = input f32[4,8]
a = Exp x
b = Exp x
c = Exp a
d = Add c b
output d
`

func nodeIDs(g *ir.Graph, names ...string) []ir.NodeID {
	var out []ir.NodeID
	for _, nm := range names {
		for _, n := range g.Nodes {
			if len(n.Outputs) > 0 && g.Values[n.Outputs[0]].Name == nm {
				out = append(out, n.ID)
			}
		}
	}
	return out
}

func TestASAPALAPAndDataChain(t *testing.T) {
	g, _ := irtest.MustBuild(t, diamond)
	order, err := g.Schedule()
	require.NoErrorf(t, err, "%v", err)
	dg, err := newDepGraph(g)
	require.NoErrorf(t, err, "%v", err)
	asap, depth := dg.asap(order)
	alap := dg.alap(order, depth)
	ids := nodeIDs(g, "a", "b", "c", "d")
	var gotASAP, gotALAP []int
	for _, n := range ids {
		gotASAP, gotALAP = append(gotASAP, asap[n]), append(gotALAP, alap[n])
	}
	assert.Falsef(t, depth != 3 || !slices.Equal(gotASAP, []int{0, 0, 1, 2}) || !slices.Equal(gotALAP, []int{0, 1, 1, 2}), "depth %d, ASAP %v, ALAP %v; want 3, [0 0 1 2], [0 1 1 2]", depth, gotASAP, gotALAP)
	dc, err := DataChain(g)
	assert.Falsef(t, err != nil || dc != 3, "DataChain = %d, %v; want 3", dc, err)
}

// TestViewsContractInDataChain: a pure view node is no dispatch, and a
// dispatch reading through it still depends on the view's producer.
func TestViewsContractInDataChain(t *testing.T) {
	g, _ := irtest.MustBuild(t, `
x = input f32[4,8]
h = Exp x
r = Reshape h shape=[32]
s = Reshape r shape=[4,8]
y = Exp s
output y
`)
	if dc, err := DataChain(g); err != nil || dc != 2 {
		t.Errorf("DataChain = %d, %v; want 2 (Exp, Exp; the reshapes launch nothing)", dc, err)
	}
	p, err := PlanGraph(context.Background(), g, nil, Options{Objective: ObjectiveConcurrency})
	require.NoErrorf(t, err, "%v", err)
	if p.Steps != 2 {
		t.Errorf("concurrency plan has %d groups, want 2", p.Steps)
	}
	err = p.Verify(g)
	assert.NoErrorf(t, err, "%v", err)
}

func TestCheckGroupsFailsOnCorruptGroupings(t *testing.T) {
	g, _ := irtest.MustBuild(t, diamond)
	order, _ := g.Schedule()
	pos := map[ir.NodeID]int{}
	for k, n := range order {
		pos[n] = k
	}
	ids := nodeIDs(g, "a", "b", "c", "d")
	at := func(gs map[string]int) []int {
		out := make([]int, len(order))
		for i, nm := range []string{"a", "b", "c", "d"} {
			out[pos[ids[i]]] = gs[nm]
		}
		return out
	}
	sortedGroups := func(gs map[string]int) ([]ir.NodeID, []int) {
		byNode := make([]int, len(g.Nodes))
		for i, nm := range []string{"a", "b", "c", "d"} {
			byNode[ids[i]] = gs[nm]
		}
		return sortByGroup(order, byNode)
	}
	o, gr := sortedGroups(map[string]int{"a": 0, "b": 0, "c": 1, "d": 2})
	if err := CheckGroups(g, o, gr); err != nil {
		t.Errorf("ASAP grouping rejected: %v", err)
	}
	for name, bad := range map[string]map[string]int{
		"dependent in one group": {"a": 0, "b": 0, "c": 0, "d": 1},
		"skips a group":          {"a": 0, "b": 0, "c": 2, "d": 3},
	} {
		o, gr := sortedGroups(bad)
		err := CheckGroups(g, o, gr)
		assert.ErrorIsf(t, err, ErrGroups, "%s: CheckGroups = %v, want ErrGroups", name, err)
		_, err = PlanGrouped(context.Background(), g, order, at(bad), Options{})
		assert.ErrorIsf(t, err, ErrGroups, "%s: PlanGrouped = %v, want ErrGroups", name, err)
	}
	if err := CheckGroups(g, o, gr[1:]); !errors.Is(err, ErrGroups) {
		t.Errorf("short groups: %v, want ErrGroups", err)
	}
	// Verify fails on a plan whose grouping was corrupted after planning.
	p, err := PlanGrouped(context.Background(), g, order, at(map[string]int{"a": 0, "b": 0, "c": 1, "d": 2}), Options{})
	require.NoErrorf(t, err, "%v", err)
	err = p.Verify(g)
	require.NoErrorf(t, err, "grouped plan does not verify: %v", err)
	p.Groups = make([]int, len(p.Groups)) // everything in group 0
	err = p.Verify(g)
	assert.ErrorIsf(t, err, ErrGroups, "Verify of a corrupted grouping = %v, want ErrGroups", err)
}

// TestGroupedLifespans: lifespans are in groups, and in place needs every
// other reader of the input in an earlier group.
func TestGroupedLifespans(t *testing.T) {
	src := `
x = input f32[4,8]
h = Exp x
a = Relu h
c = Exp h
y = Add a c
output y
`
	g, _ := irtest.MustBuild(t, src)
	order, _ := g.Schedule()
	ids := nodeIDs(g, "h", "a", "c", "y")
	group := func(gs ...int) []int {
		out := make([]int, len(order))
		for k, n := range order {
			out[k] = gs[slices.Index(ids, n)]
		}
		return out
	}
	name := func(p *Plan, v string) Buffer {
		for b, vs := range p.Values {
			for _, m := range vs {
				if g.Values[m].Name == v {
					return p.Buffers[b]
				}
			}
		}
		t.Fatalf("no buffer holds %s", v)
		return Buffer{}
	}
	// a and c in one group: a may not write over h, which c reads.
	p, err := PlanGrouped(context.Background(), g, order, group(0, 1, 1, 2), Options{})
	require.NoErrorf(t, err, "%v", err)
	h, a := name(p, "h"), name(p, "a")
	assert.Falsef(t, h.ID == a.ID || h.Start != 0 || h.End != 2 || a.Start != 1 || a.End != 3, "a and c together: h %+v, a %+v; want separate buffers h [0,2), a [1,3)", h, a)
	err = p.Verify(g)
	assert.NoErrorf(t, err, "%v", err)
	// c one group before a: a writes over h in place.
	p, err = PlanGrouped(context.Background(), g, order, group(0, 2, 1, 3), Options{})
	require.NoErrorf(t, err, "%v", err)
	h, a = name(p, "h"), name(p, "a")
	assert.Falsef(t, h.ID != a.ID || h.Start != 0 || h.End != 4, "c before a: h %+v, a %+v; want one buffer [0,4)", h, a)
	if p.Steps != 4 {
		t.Errorf("Steps = %d, want 4 groups", p.Steps)
	}
}

func TestObjectives(t *testing.T) {
	g, _ := irtest.MustBuild(t, diamond)
	for _, obj := range append(Objectives(), "") {
		p, err := PlanGraph(context.Background(), g, nil, Options{Objective: obj})
		require.NoErrorf(t, err, "%q: %v", obj, err)
		err = p.Verify(g)
		assert.NoErrorf(t, err, "%q: %v", obj, err)
		if p.LowerBoundBytes > p.ArenaBytes {
			t.Errorf("%q: lower bound %d > arena %d", obj, p.LowerBoundBytes, p.ArenaBytes)
		}
	}
	if _, err := PlanGraph(context.Background(), g, nil, Options{Objective: "speed"}); !errors.Is(err, ErrObjective) {
		t.Errorf("unknown objective: %v, want ErrObjective", err)
	}
	p, err := PlanGraph(context.Background(), g, nil, Options{Objective: ObjectiveConcurrency})
	require.NoErrorf(t, err, "%v", err)
	if p.Steps != 3 || p.Groups == nil {
		t.Errorf("concurrency plan: %d groups (%v), want 3", p.Steps, p.Groups)
	}
}

// TestRandomGraphObjectives: on random graphs (views, in place, pins,
// keep-alives, placed inputs) every objective's plan verifies, a grouped
// plan's grouping passes CheckGroups, the concurrency plan has the data
// chain's number of groups, and a pairwise oracle holds: two buffers that
// share a byte are touched (read, written or kept, through any view) by
// nodes of disjoint group ranges, one wholly before the other (outputs
// touched to the last group, pinned values and placed inputs throughout).
func TestRandomGraphObjectives(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := genGraph(t)
		opts := Options{
			Objective:      rapid.SampledFrom([]string{ObjectiveConcurrency, ObjectiveBalanced}).Draw(t, "objective"),
			DisableInPlace: rapid.Bool().Draw(t, "no in place"),
			PlaceInputs:    rapid.Bool().Draw(t, "place inputs"),
			Strategy:       rapid.SampledFrom([]string{"portfolio", "size", "firstfit"}).Draw(t, "strategy"),
		}
		p, err := PlanGraph(context.Background(), g, nil, opts)
		require.NoErrorf(t, err, "%v", err)
		if err := p.Verify(g); err != nil {
			t.Fatal(err)
		}
		if p.Groups != nil {
			if err := CheckGroups(g, p.Order, p.Groups); err != nil {
				t.Fatal(err)
			}
		}
		chain, err := DataChain(g)
		require.NoErrorf(t, err, "%v", err)
		if opts.Objective == ObjectiveConcurrency && p.Steps != max(int64(chain), 1) {
			t.Fatalf("concurrency plan: %d groups, data chain %d", p.Steps, chain)
		}
		// Groups touching each buffer, from the graph.
		lo, hi := make([]int64, len(p.Buffers)), make([]int64, len(p.Buffers))
		for b := range lo {
			lo[b], hi[b] = 1<<62, -1
		}
		for k, id := range p.Order {
			n := g.Nodes[id]
			vals := append(slices.Clone(n.Outputs), n.KeepAlive...)
			if !g.IsViewNode(n) {
				vals = append(vals, n.Inputs...)
			}
			for _, v := range vals {
				if b := p.Slots[v].Buffer; b >= 0 {
					lo[b], hi[b] = min(lo[b], p.GroupOf(k)), max(hi[b], p.GroupOf(k))
				}
			}
		}
		// Outputs must survive to the end; pinned values and placed inputs
		// hold their bytes throughout.
		for _, v := range g.Values {
			b := p.Slots[v.ID].Buffer
			if b < 0 {
				continue
			}
			if v.Flags.Has(ir.FlagOutput) || v.Flags.Has(ir.FlagPinned) || g.Values[p.Slots[v.ID].Root].IsExternal() {
				hi[b] = p.Steps - 1
			}
			if v.Flags.Has(ir.FlagPinned) || g.Values[p.Slots[v.ID].Root].IsExternal() {
				lo[b] = 0
			}
		}
		for i := range p.Buffers {
			for j := range i {
				a, b := p.Buffers[i], p.Buffers[j]
				if a.Size == 0 || b.Size == 0 || p.Offsets[i] >= p.Offsets[j]+b.Size || p.Offsets[j] >= p.Offsets[i]+a.Size {
					continue
				}
				if hi[i] >= 0 && hi[j] >= 0 && !(hi[i] < lo[j] || hi[j] < lo[i]) {
					t.Fatalf("buffers %s (groups %d..%d) and %s (groups %d..%d) share bytes", a.Name, lo[i], hi[i], b.Name, lo[j], hi[j])
				}
			}
		}
	})
}

// TestGroupingAPIsRejectBadInput: nil and invalid graphs are errors, not
// panics.
func TestGroupingAPIsRejectBadInput(t *testing.T) {
	_, err := DataChain(nil)
	assert.ErrorIsf(t, err, ErrGraph, "DataChain(nil) = %v", err)
	_, _, err = ConcurrencyGrouping(nil, nil, Options{})
	assert.ErrorIsf(t, err, ErrGraph, "ConcurrencyGrouping(nil) = %v", err)
	err = CheckGroups(nil, nil, nil)
	assert.ErrorIsf(t, err, ErrGroups, "CheckGroups(nil) = %v", err)
	g, _ := irtest.MustBuild(t, diamond)
	_, _, err = ConcurrencyGrouping(g, []ir.NodeID{0}, Options{})
	assert.ErrorIsf(t, err, ErrGraph, "ConcurrencyGrouping with a partial order = %v", err)
	_, err = PlanGrouped(context.Background(), g, nil, []int{0}, Options{})
	assert.ErrorIsf(t, err, ErrGroups, "PlanGrouped with too few groups = %v", err)
	err = CheckGroups(g, []ir.NodeID{0, 99}, []int{0, 1})
	assert.ErrorIsf(t, err, ErrGroups, "CheckGroups with a node out of range = %v", err)
}
