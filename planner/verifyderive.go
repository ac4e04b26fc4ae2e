package planner

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/memplan/memplan/ir"
)

// What the graph says, re-derived for the verifier
//
// Plan.Verify trusts nothing the planner computed. From the graph and the
// plan's schedule alone it derives, for every value, its root, its byte
// offset inside the root and the window it addresses (views: offset plus
// the extremes of their strides), and for every root its lifespan: from the
// first step (group, for a grouped plan) that writes or reads any value of
// the root (views included) to one past the last, or the whole run for pinned, placed external and
// output roots. It also derives which pairs of roots the graph lets share
// bytes: a node whose op (OpInfo.InPlace) may write its single output over
// input k, where input k is the whole of a contiguous root of the output's
// size that dies at that node (the only node touching it in its last
// group) and is read through no other input, and
// neither root is pinned, an output or external. Everything else live at a
// common step must be disjoint. All arithmetic is overflow-checked: a sum
// or product that leaves int64 is an error, never a wrapped or saturated
// number.

// facts is the verifier's own reading of the graph under a schedule.
type facts struct {
	root      []ir.ValueID // per value
	off       []int64      // per value: byte offset of its first element in its root
	low       []int64      // per value: bytes below its first element it addresses
	bytes     []int64      // per value: window it addresses
	size      []int64      // per root: dense bytes
	first     []int64      // per root: first step touching it (-1 none)
	last      []int64      // per root: last step touching it
	pinned    []bool       // per root: the root or a view of it is pinned
	output    []bool       // per root: the root or a view of it is an output
	inPlaceOf []ir.ValueID // per root: the root whose bytes the graph lets it take, or -1
	steps     int64
}

// addInt64 returns a+b and whether it fits in int64.
func addInt64(a, b int64) (int64, bool) {
	s := a + b
	return s, (a >= 0) != (b >= 0) || (s >= 0) == (a >= 0)
}

// mulInt64 returns n*s for n >= 0 and whether it fits in int64.
func mulInt64(n, s int64) (int64, bool) {
	if n < 0 || s == math.MinInt64 {
		return 0, false
	}
	neg := s < 0
	if neg {
		s = -s
	}
	hi, lo := bits.Mul64(uint64(n), uint64(s))
	if hi != 0 || lo > math.MaxInt64 {
		return 0, false
	}
	if neg {
		return -int64(lo), true
	}
	return int64(lo), true
}

// window returns how far below its first element v addresses bytes and the
// size of the window, overflow-checked.
func window(v *ir.Value) (low, bytes int64, err error) {
	elem := v.DType.Size()
	if v.View == nil || v.View.StridesBytes == nil {
		n, err := v.Bytes()
		return 0, n, err
	}
	if len(v.View.StridesBytes) != len(v.Shape) {
		return 0, 0, fmt.Errorf("%d strides for rank %d", len(v.View.StridesBytes), len(v.Shape))
	}
	lo, hi := int64(0), elem
	for k, d := range v.Shape {
		if d == 0 {
			return 0, 0, nil
		}
		span, ok := mulInt64(d-1, v.View.StridesBytes[k])
		if !ok {
			return 0, 0, fmt.Errorf("dimension %d: %d steps of %d bytes overflow int64", k, d-1, v.View.StridesBytes[k])
		}
		if span < 0 {
			lo, ok = addInt64(lo, span)
		} else {
			hi, ok = addInt64(hi, span)
		}
		if !ok {
			return 0, 0, fmt.Errorf("dimension %d: window overflows int64", k)
		}
	}
	b, ok := addInt64(hi, -lo)
	if !ok {
		return 0, 0, fmt.Errorf("window overflows int64")
	}
	return -lo, b, nil
}

// deriveFacts reads g under the plan's schedule. It fails only when the
// graph itself cannot be read (a broken view chain, an overflowing window,
// a bad schedule); those are reported as ErrGraph.
func deriveFacts(g *ir.Graph, order []ir.NodeID, groups []int) (*facts, error) {
	n := len(g.Values)
	f := &facts{
		root: make([]ir.ValueID, n), off: make([]int64, n), low: make([]int64, n), bytes: make([]int64, n),
		size: make([]int64, n), first: make([]int64, n), last: make([]int64, n),
		pinned: make([]bool, n), output: make([]bool, n), inPlaceOf: make([]ir.ValueID, n),
		steps: int64(len(order)),
	}
	if err := g.CheckSchedule(order); err != nil {
		return nil, fmt.Errorf("planner: the plan's schedule: %w", errorsJoinWrap(err, ErrGraph))
	}
	grp := func(k int) int64 { return int64(k) }
	if groups != nil {
		if err := CheckGroups(g, order, groups); err != nil {
			return nil, err
		}
		grp = func(k int) int64 { return int64(groups[k]) }
		f.steps = 0
		if len(groups) > 0 {
			f.steps = int64(groups[len(groups)-1]) + 1
		}
	}
	// Roots and offsets: each chain walked once, resolved prefixes reused.
	done := make([]uint8, n) // 0 new, 1 on the path, 2 resolved
	var path []ir.ValueID
	for i := range g.Values {
		path = path[:0]
		cur := ir.ValueID(i)
		for done[cur] != 2 {
			if done[cur] == 1 {
				return nil, fmt.Errorf("planner: value %d: view chain returns to itself: %w", i, ErrGraph)
			}
			done[cur] = 1
			path = append(path, cur)
			v := g.Values[cur]
			if v.View == nil {
				f.root[cur], f.off[cur], done[cur] = cur, 0, 2
				path = path[:len(path)-1]
				break
			}
			if g.Value(v.View.Base) == nil {
				return nil, fmt.Errorf("planner: value %d: view of value %d, not in the graph: %w", cur, v.View.Base, ErrGraph)
			}
			cur = v.View.Base
		}
		for k := len(path) - 1; k >= 0; k-- {
			p := path[k]
			o, ok := addInt64(f.off[cur], g.Values[p].View.OffsetBytes)
			if !ok {
				return nil, fmt.Errorf("planner: value %d %q: view offset overflows int64: %w", p, g.Values[p].Name, ErrGraph)
			}
			f.root[p], f.off[p], done[p] = f.root[cur], o, 2
			cur = p
		}
	}
	for _, v := range g.Values {
		var err error
		if f.low[v.ID], f.bytes[v.ID], err = window(v); err != nil {
			return nil, fmt.Errorf("planner: value %d %q: %v: %w", v.ID, v.Name, err, ErrGraph)
		}
		r := f.root[v.ID]
		if v.View == nil {
			f.size[r] = f.bytes[v.ID]
		}
		f.pinned[r] = f.pinned[r] || v.Flags.Has(ir.FlagPinned)
		f.output[r] = f.output[r] || v.Flags.Has(ir.FlagOutput)
		f.first[v.ID], f.last[v.ID], f.inPlaceOf[v.ID] = -1, -1, -1
	}
	// touchers[r]: how many scheduled nodes touch root r in its last group
	// (at, the latest of them, counts each node once).
	touchers, at := make([]int, n), make([]int, n)
	touch := func(v ir.ValueID, k int) {
		r, t := f.root[v], grp(k)
		if f.first[r] < 0 {
			f.first[r] = t
		}
		switch {
		case t > f.last[r]:
			f.last[r], touchers[r], at[r] = t, 1, k
		case t == f.last[r] && at[r] != k:
			touchers[r]++
			at[r] = k
		}
	}
	for k, id := range order {
		nd := g.Nodes[id]
		for _, o := range nd.Outputs {
			touch(o, k)
		}
		if !g.IsViewNode(nd) {
			for _, v := range nd.Inputs {
				touch(v, k)
			}
		}
		for _, v := range nd.KeepAlive {
			touch(v, k)
		}
	}
	for k, id := range order {
		f.deriveInPlace(g, g.Nodes[id], grp(k), touchers)
	}
	return f, nil
}

// deriveInPlace records the in-place pair node nd (in group t) allows, if
// any: the input's root must die in t, touched there by nd alone.
func (f *facts) deriveInPlace(g *ir.Graph, nd *ir.Node, t int64, touchers []int) {
	if nd.Opaque || len(nd.Outputs) != 1 || g.IsViewNode(nd) {
		return
	}
	info, ok := ir.LookupOp(nd.Op)
	if !ok || info.InPlace < 0 || info.InPlace >= len(nd.Inputs) {
		return
	}
	o, in := nd.Outputs[0], nd.Inputs[info.InPlace]
	r := f.root[in]
	ov, iv, rv := g.Values[o], g.Values[in], g.Values[r]
	switch {
	case ov.View != nil || ov.IsExternal() || f.pinned[o] || r == o:
		return
	case rv.IsExternal() || f.pinned[r] || f.output[r] || f.last[r] != t || touchers[r] != 1:
		return
	case f.off[in] != 0 || f.low[in] != 0 || f.bytes[in] != f.size[r] || f.size[r] != f.size[o] || f.size[o] == 0:
		return
	case iv.View != nil && !iv.View.IsContiguous(iv.Shape, iv.DType.Size()):
		return
	}
	for j, v := range nd.Inputs {
		if j != info.InPlace && v != in && f.root[v] == r {
			return
		}
	}
	f.inPlaceOf[o] = r
}

// lifespan returns root r's derived steps (groups) [start, end). External roots
// matter only when the plan puts them in the arena, where they live for the
// whole run.
func (f *facts) lifespan(g *ir.Graph, r ir.ValueID) (start, end int64) {
	whole := max(f.steps, 1)
	if f.pinned[r] || g.Values[r].IsExternal() {
		return 0, whole
	}
	if f.first[r] < 0 { // no step writes or reads it: it occupies nothing
		return 0, 0
	}
	if f.output[r] {
		return f.first[r], whole
	}
	return f.first[r], f.last[r] + 1
}
