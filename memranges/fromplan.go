package memranges

import (
	"errors"
	"fmt"
	"sort"

	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/planner"
)

// Dispatches from a plan.
//
// Every scheduled node that is not a pure view node (ir's IsViewNode: all
// its outputs are views, so it launches nothing) becomes one dispatch. It
// reads the windows of its inputs and writes the windows of its outputs, in
// the plan's coordinates: the arena is buffer 0, with the absolute offsets
// of planner.Slot; each external root (an input, weight or constant, and
// the views of it) is its own buffer, numbered from 1 in ascending root
// value ID. A window is exactly the bytes the value can address: its own
// range for a view, the bounding window [Offset-Low, Offset-Low+Bytes) for
// a strided one. Keep-alive values are not accesses. The result is
// deterministic: uses follow the node's input then output order, with
// exact repeats dropped.
//
//	arena  0      64     128    192
//	       |  h   |  y   |           h = MatMul(x, w); y = Relu(h)
//	#0 MatMul: read buf1[0,64) read buf2[0,1024) write buf0[0,64)
//	           (x: f32[1 16] in buffer 1; w: f32[16 16] in buffer 2)
//	#1 Relu:   read buf0[0,64) write buf0[64,128)
//
// BuildOptions.WholeRoot widens every window to its root's whole slot, as
// llama.cpp does; with Mode GGML it reproduces ggml's barriers on the same
// plan, for comparison.

// BuildOptions tunes FromPlan.
type BuildOptions struct {
	// WholeRoot replaces every view's window by its root's whole extent
	// (ggml-compatible).
	WholeRoot bool
}

// BufferInfo describes one buffer of a Stream.
type BufferInfo struct {
	Name  string     // "arena", or the external root's value name
	Root  ir.ValueID // the external root, or -1 for the arena
	Bytes int64      // the extent the stream addresses: max end of its uses
}

// Stream is a list of dispatches in schedule order and the buffers their
// ranges name (Buffers is indexed by BufferID).
type Stream struct {
	Dispatches []Dispatch
	Buffers    []BufferInfo
}

// FromPlan derives the dispatches of graph g run in order (p.Order when
// order is nil) under plan p. It returns every inconsistency it finds
// between the graph, the order and the plan, joined.
func FromPlan(g *ir.Graph, order []ir.NodeID, p *planner.Plan, opts BuildOptions) (*Stream, error) {
	if g == nil || p == nil {
		return nil, fmt.Errorf("memranges: nil graph or plan: %w", ErrPlan)
	}
	if len(p.Slots) != len(g.Values) {
		return nil, fmt.Errorf("memranges: plan has %d slots for %d values of graph %q: %w", len(p.Slots), len(g.Values), g.Name, ErrPlan)
	}
	if order == nil {
		order = p.Order
	}
	// External roots get buffer IDs in ascending root ID.
	extID := map[ir.ValueID]BufferID{}
	var roots []ir.ValueID
	var errs []error
	for id, s := range p.Slots {
		if !s.External {
			continue
		}
		if g.Value(s.Root) == nil {
			errs = append(errs, fmt.Errorf("memranges: value %d %q: external root %d out of range: %w", id, g.Values[id].Name, s.Root, ErrPlan))
			continue
		}
		if _, ok := extID[s.Root]; !ok {
			extID[s.Root] = 0
			roots = append(roots, s.Root)
		}
	}
	sort.Slice(roots, func(i, j int) bool { return roots[i] < roots[j] })
	st := &Stream{Buffers: []BufferInfo{{Name: "arena", Root: -1}}}
	for _, r := range roots {
		extID[r] = BufferID(len(st.Buffers))
		st.Buffers = append(st.Buffers, BufferInfo{Name: g.Values[r].Name, Root: r})
	}
	if len(st.Buffers) > int(MaxBufferID) {
		return nil, fmt.Errorf("memranges: %d external buffers exceed %d: %w", len(roots), MaxBufferID, ErrPlan)
	}
	window := func(v ir.ValueID) (Range, error) {
		s := p.Slots[v]
		if opts.WholeRoot && g.Value(s.Root) != nil {
			s = p.Slots[s.Root]
		}
		r := Range{Off: s.Offset - s.Low, Len: s.Bytes}
		if s.External {
			r.Buf = extID[s.Root]
		}
		if !r.Valid() {
			return r, fmt.Errorf("memranges: value %d %q: slot %+v gives invalid range %v: %w", v, g.Values[v].Name, p.Slots[v], r, ErrRange)
		}
		return r, nil
	}
	for k, id := range order {
		n := g.Node(id)
		if n == nil {
			errs = append(errs, fmt.Errorf("memranges: order position %d: node %d out of range: %w", k, id, ErrOrder))
			continue
		}
		if g.IsViewNode(n) {
			continue
		}
		d := Dispatch{Node: n.ID, Name: fmt.Sprintf("%s (%s)", n.Name, n.Op)}
		for _, list := range []struct {
			vs []ir.ValueID
			a  Access
		}{{n.Inputs, Read}, {n.Outputs, Write}} {
			for _, v := range list.vs {
				if g.Value(v) == nil {
					errs = append(errs, fmt.Errorf("memranges: node %d %q: value %d out of range: %w", n.ID, n.Name, v, ErrPlan))
					continue
				}
				r, err := window(v)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				u := Use{Range: r, Access: list.a, Value: v}
				if !hasUse(d.Uses, u) {
					d.Uses = append(d.Uses, u)
				}
				b := &st.Buffers[r.Buf]
				b.Bytes = max(b.Bytes, r.End())
			}
		}
		st.Dispatches = append(st.Dispatches, d)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return st, nil
}

func hasUse(us []Use, u Use) bool {
	for _, x := range us {
		if x.Range == u.Range && x.Access == u.Access {
			return true
		}
	}
	return false
}
