package planner

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/memplan/memplan/ir"
)

// Liveness
//
// A graph plan has one buffer per root value (a value that is not a view),
// live over the half-open range of schedule steps [Start, End): a value
// produced at step s and last read at step r lives in [s, r+1). The rules,
// all read off IR facts (flags, views, OpInfo, the schedule; never op names):
//
//   - A read of a view is a read of its root; views get no buffer and report
//     their root's slot plus their byte offset. Pure view nodes
//     (Graph.IsViewNode) make no dispatch, so their inputs are not reads.
//   - KeepAlive entries are reads at the holding node's step.
//   - Graph outputs (a root with any output view) live to the end.
//   - Inputs, weights and constants are external (no buffer) unless
//     Options.PlaceInputs, which gives them pinned whole-run buffers.
//   - A pinned root lives for the whole run [0, steps) and shares with
//     nothing, so no other buffer ever occupies its bytes.
//   - In place: when OpInfo.InPlace names input k of a node with a single
//     output, and input k is a whole contiguous root (offset 0, same bytes)
//     that dies at this node (its last read, through any view, is here), is
//     not pinned, output or external, is not read through a different value
//     by the same node, and has the output's size, the output takes the
//     input's buffer: one buffer whose lifespan is the union.
//
// Example (steps on the left; x is an input):
//
//	0: h = MatMul(x, w)   h [0, 2)
//	1: a = Relu(h)        Relu may write over input 0, h dies at 1: a joins h's buffer
//	2: y = Add(a, b)      a [1, 3) ... the buffer {h, a} lives [0, 3)

// PlanGraph computes liveness for g under the schedule order (nil means
// g.Schedule()) and places the buffers with the strategy named in opts.
// opts.Objective picks the grouping the lifespans are measured in (see
// objective.go): "memory" (the default) plans the serial order, one node
// per group. Every value gets a Slot. The graph must validate.
func PlanGraph(ctx context.Context, g *ir.Graph, order []ir.NodeID, opts Options) (*Plan, error) {
	t0 := time.Now()
	order, err := checkedOrder(g, order)
	if err != nil {
		return nil, err
	}
	p, err := planObjective(ctx, g, order, opts)
	if err != nil {
		return nil, err
	}
	p.PlanSeconds = time.Since(t0).Seconds()
	return p, nil
}

// PlanGrouped plans g over an explicit grouping: groups[k] is the group of
// order[k] (order nil means g.Schedule()). The order is stably sorted by
// group first, and the result must pass CheckGroups. Lifespans are in
// groups (see Plan.Groups).
func PlanGrouped(ctx context.Context, g *ir.Graph, order []ir.NodeID, groups []int, opts Options) (*Plan, error) {
	t0 := time.Now()
	order, err := checkedOrder(g, order)
	if err != nil {
		return nil, err
	}
	if len(groups) != len(order) {
		return nil, fmt.Errorf("planner: %d groups for %d scheduled nodes: %w", len(groups), len(order), ErrGroups)
	}
	byNode := make([]int, len(g.Nodes))
	for k, n := range order {
		byNode[n] = groups[k]
	}
	sorted, grp := sortByGroup(order, byNode)
	if err := g.CheckSchedule(sorted); err != nil {
		return nil, fmt.Errorf("planner: graph %q: grouped order: %w", g.Name, errorsJoinWrap(errorsJoinWrap(err, ErrGraph), ErrGroups))
	}
	if err := CheckGroups(g, sorted, grp); err != nil {
		return nil, err
	}
	p, err := planWithGroups(ctx, g, sorted, grp, opts)
	if err != nil {
		return nil, err
	}
	p.PlanSeconds = time.Since(t0).Seconds()
	return p, nil
}

// checkedOrder validates g and returns its schedule (order, or
// g.Schedule() when order is nil).
func checkedOrder(g *ir.Graph, order []ir.NodeID) ([]ir.NodeID, error) {
	if g == nil {
		return nil, fmt.Errorf("planner: nil graph: %w", ErrGraph)
	}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("planner: graph %q does not validate: %w", g.Name, errorsJoinWrap(err, ErrGraph))
	}
	var err error
	if order == nil {
		order, err = g.Schedule()
	} else {
		err = g.CheckSchedule(order)
	}
	if err != nil {
		return nil, fmt.Errorf("planner: graph %q: schedule: %w", g.Name, errorsJoinWrap(err, ErrGraph))
	}
	return order, nil
}

// planWithGroups computes liveness over a checked order and grouping (nil:
// serial), places the buffers and fills every slot.
func planWithGroups(ctx context.Context, g *ir.Graph, order []ir.NodeID, groups []int, opts Options) (*Plan, error) {
	lv, err := computeLiveness(g, order, groups, opts)
	if err != nil {
		return nil, err
	}
	p := &Plan{Buffers: lv.bufs, Values: lv.members, Order: slices.Clone(order), Groups: slices.Clone(groups), Steps: lv.steps}
	if err := p.place(ctx, opts); err != nil {
		return nil, err
	}
	p.Slots = make([]Slot, len(g.Values))
	for _, v := range g.Values {
		r := lv.root[v.ID]
		low, bytes := extent(v)
		s := Slot{Buffer: -1, Root: r, Offset: lv.rootOff[v.ID], Bytes: bytes, Low: low}
		if b := lv.bufOf[r]; b >= 0 {
			s.Buffer = b
			s.Offset += p.Offsets[b]
		} else {
			s.External = true
		}
		p.Slots[v.ID] = s
	}
	return p, nil
}

// errorsJoinWrap wraps err so that errors.Is finds both err's classes and
// the planner sentinel.
func errorsJoinWrap(err, sentinel error) error {
	return &wrapped{err: err, class: sentinel}
}

type wrapped struct{ err, class error }

func (w *wrapped) Error() string   { return w.err.Error() }
func (w *wrapped) Unwrap() []error { return []error{w.err, w.class} }

// liveRanges is the output of liveness: buffers, and which roots share them.
type liveRanges struct {
	bufs    []Buffer
	members [][]ir.ValueID // per buffer, its root values by first step
	bufOf   []int          // per value ID: its buffer if it is an arena root, else -1
	root    []ir.ValueID   // per value: its root
	rootOff []int64        // per value: byte offset inside its root
	steps   int64          // groups the lifespans are measured in
}

// computeLiveness measures lifespans in the groups of order (groups nil:
// one node per group). Within a group, the nodes touching a root at its
// last group are counted: in place needs the writer to be the only one.
func computeLiveness(g *ir.Graph, order []ir.NodeID, groups []int, opts Options) (*liveRanges, error) {
	nv := len(g.Values)
	steps := int64(len(order))
	grp := func(k int) int64 { return int64(k) }
	if groups != nil {
		grp = func(k int) int64 { return int64(groups[k]) }
		steps = 0
		if len(groups) > 0 {
			steps = int64(groups[len(groups)-1]) + 1
		}
	}
	whole := max(steps, 1)
	lv := &liveRanges{bufOf: make([]int, nv), root: make([]ir.ValueID, nv), rootOff: make([]int64, nv), steps: steps}
	size := make([]int64, nv)
	pinned := make([]bool, nv) // per root: the root or a view of it is pinned
	output := make([]bool, nv) // per root: the root or a view of it is an output
	roots, offs, err := g.Roots()
	if err != nil {
		return nil, fmt.Errorf("planner: %w", errorsJoinWrap(err, ErrGraph))
	}
	for _, v := range g.Values {
		r := roots[v.ID]
		lv.root[v.ID], lv.rootOff[v.ID] = r, offs[v.ID]
		pinned[r] = pinned[r] || v.Flags.Has(ir.FlagPinned)
		output[r] = output[r] || v.Flags.Has(ir.FlagOutput)
		if v.View == nil {
			if size[v.ID], err = v.Bytes(); err != nil {
				return nil, fmt.Errorf("planner: value %d %q: %w", v.ID, v.Name, errorsJoinWrap(err, ErrGraph))
			}
		}
	}
	// inArena: roots that get a buffer.
	inArena := func(r ir.ValueID) bool {
		return g.Values[r].View == nil && (!g.Values[r].IsExternal() || opts.PlaceInputs)
	}
	start := make([]int64, nv)
	last := make([]int64, nv)    // last group that touches the root
	lastBy := make([]int, nv)    // the latest node position touching it at that group
	lastCount := make([]int, nv) // how many nodes touch it at that group
	for i := range last {
		last[i] = -1
	}
	touch := func(r ir.ValueID, i int) {
		switch gi := grp(i); {
		case gi > last[r]:
			last[r], lastBy[r], lastCount[r] = gi, i, 1
		case gi == last[r] && lastBy[r] != i:
			lastBy[r] = i
			lastCount[r]++
		}
	}
	for i, id := range order {
		n := g.Nodes[id]
		for _, o := range n.Outputs {
			r := lv.root[o]
			if o == r {
				start[r] = grp(i)
			}
			touch(r, i)
		}
		if !g.IsViewNode(n) {
			for _, v := range n.Inputs {
				touch(lv.root[v], i)
			}
		}
		for _, v := range n.KeepAlive {
			touch(lv.root[v], i)
		}
	}
	end := func(r ir.ValueID) int64 {
		if pinned[r] || g.Values[r].IsExternal() {
			return whole
		}
		if output[r] {
			return whole
		}
		return max(last[r], start[r]) + 1
	}
	begin := func(r ir.ValueID) int64 {
		if pinned[r] || g.Values[r].IsExternal() {
			return 0
		}
		return start[r]
	}

	// In place: share[o] = r when output o takes input root r's buffer.
	share := make([]ir.ValueID, nv)
	for i := range share {
		share[i] = ir.ValueID(i)
	}
	if !opts.DisableInPlace {
		for i, id := range order {
			n := g.Nodes[id]
			if n.Opaque || len(n.Outputs) != 1 || g.IsViewNode(n) {
				continue
			}
			info, ok := ir.LookupOp(n.Op)
			if !ok || info.InPlace < 0 || info.InPlace >= len(n.Inputs) {
				continue
			}
			o, in := n.Outputs[0], n.Inputs[info.InPlace]
			r := lv.root[in]
			ov, iv := g.Values[o], g.Values[in]
			switch {
			case ov.View != nil || ov.IsExternal() || pinned[o] || !inArena(o):
			case !inArena(r) || pinned[r] || output[r] || g.Values[r].IsExternal():
			case last[r] != grp(i) || lastCount[r] != 1 || lv.rootOff[in] != 0 || size[r] != size[o] || size[o] == 0:
			case iv.View != nil && !iv.View.IsContiguous(iv.Shape, iv.DType.Size()):
			case !sameBytes(iv, size[r]):
			case readsRootElsewhere(n, info.InPlace, lv.root):
			default:
				share[o] = find(share, r)
			}
		}
	}

	align := opts.align()
	bufOfRep := make(map[ir.ValueID]int)
	for i := range lv.bufOf {
		lv.bufOf[i] = -1
	}
	for _, v := range g.Values {
		r := v.ID
		if !inArena(r) {
			continue
		}
		rep := find(share, r)
		b, ok := bufOfRep[rep]
		if !ok {
			b = len(lv.bufs)
			bufOfRep[rep] = b
			lv.bufs = append(lv.bufs, Buffer{ID: int64(rep), Name: g.Values[rep].Name, Start: begin(r), End: end(r), Size: alignUp(size[r], align), Align: align})
			lv.members = append(lv.members, nil)
		}
		bb := &lv.bufs[b]
		bb.Start, bb.End = min(bb.Start, begin(r)), max(bb.End, end(r))
		lv.members[b] = append(lv.members[b], r)
		lv.bufOf[r] = b
	}
	for b, m := range lv.members {
		slices.SortStableFunc(m, func(x, y ir.ValueID) int { return cmp.Compare(begin(x), begin(y)) })
		if len(m) > 1 {
			names := make([]string, len(m))
			for i, v := range m {
				names[i] = g.Values[v].Name
			}
			lv.bufs[b].Name = joinNames(names)
		}
	}
	return lv, nil
}

// find returns the representative of v in the union-find forest parent
// (path halving): in-place chains here, guilband.go's classes.
func find[T ~int | ~int32](parent []T, v T) T {
	for parent[v] != v {
		parent[v] = parent[parent[v]]
		v = parent[v]
	}
	return v
}

// sameBytes reports whether v addresses exactly n bytes densely.
func sameBytes(v *ir.Value, n int64) bool {
	b, err := v.Bytes()
	return err == nil && b == n
}

// readsRootElsewhere reports whether node n reads the root of input k
// through another input value (a different window of the same bytes), which
// would make writing the output over input k unsafe.
func readsRootElsewhere(n *ir.Node, k int, root []ir.ValueID) bool {
	in := n.Inputs[k]
	for j, v := range n.Inputs {
		if j != k && v != in && root[v] == root[in] {
			return true
		}
	}
	return false
}

// extent returns how far below its first element a value's lowest addressed
// byte lies (Low) and the size of the window it addresses (Bytes): the dense
// size for a non-view, the bounding window of a strided view.
func extent(v *ir.Value) (low, bytes int64) {
	if v.View == nil || v.View.StridesBytes == nil {
		b, err := v.Bytes()
		if err != nil {
			return 0, 0
		}
		return 0, b
	}
	elem := v.DType.Size()
	lo, hi := int64(0), elem
	for k, d := range v.Shape {
		if d == 0 {
			return 0, 0
		}
		if k >= len(v.View.StridesBytes) {
			break
		}
		span := (d - 1) * v.View.StridesBytes[k]
		if span < 0 {
			lo += span
		} else {
			hi += span
		}
	}
	return -lo, hi - lo
}

// joinNames names a shared buffer after its members, "a+b+c", in one
// allocation: concatenating name by name copies the growing prefix each
// time, quadratic in a long in-place chain.
func joinNames(names []string) string {
	return strings.Join(names, "+")
}
