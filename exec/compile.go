package exec

import (
	"errors"
	"fmt"
	"slices"

	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/memranges"
	"github.com/memplan/memplan/planner"
)

// LayoutFromPlan turns a planner graph plan into a Layout: buffer
// ArenaBuffer is the arena (plan.ArenaBytes), and each external root value
// (input, weight, constant) gets a buffer of its own, numbered in ascending
// root ValueID.
func LayoutFromPlan(g *ir.Graph, plan *planner.Plan) (Layout, error) {
	if plan == nil || len(plan.Slots) != len(g.Values) {
		n := -1
		if plan != nil {
			n = len(plan.Slots)
		}
		return Layout{}, fmt.Errorf("exec: plan has %d slots for %d values: %w", n, len(g.Values), ErrProgram)
	}
	lay := Layout{Buffers: []BufferSpec{{Bytes: plan.ArenaBytes, Root: -1}}, Values: make([]Location, len(g.Values))}
	extBuf := map[ir.ValueID]int{}
	var errs []error
	roots := make([]ir.ValueID, 0)
	for _, s := range plan.Slots {
		if s.External {
			if _, ok := extBuf[s.Root]; !ok {
				extBuf[s.Root] = -1
				roots = append(roots, s.Root)
			}
		}
	}
	slices.Sort(roots)
	for _, r := range roots {
		rv := g.Value(r)
		if rv == nil {
			errs = append(errs, fmt.Errorf("exec: plan names root %d, not in the graph: %w", r, ErrProgram))
			continue
		}
		n, err := rv.Bytes()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		extBuf[r] = len(lay.Buffers)
		lay.Buffers = append(lay.Buffers, BufferSpec{Bytes: n, Root: r})
	}
	for id, s := range plan.Slots {
		if s.External {
			lay.Values[id] = Location{Buffer: extBuf[s.Root], OffsetBytes: s.Offset}
		} else {
			lay.Values[id] = Location{Buffer: ArenaBuffer, OffsetBytes: s.Offset}
		}
	}
	return lay, errors.Join(errs...)
}

// ReferenceLayout gives every root value a fresh buffer of its own (views
// share their root's), so nothing is ever reused: the layout of the
// reference run. The arena is empty.
func ReferenceLayout(g *ir.Graph) (Layout, error) {
	lay := Layout{Buffers: []BufferSpec{{Bytes: 0, Root: -1}}, Values: make([]Location, len(g.Values))}
	own := make([]int, len(g.Values))
	var errs []error
	for _, v := range g.Values {
		if v.View != nil {
			continue
		}
		n, err := v.Bytes()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		own[v.ID] = len(lay.Buffers)
		lay.Buffers = append(lay.Buffers, BufferSpec{Bytes: n, Root: v.ID})
	}
	roots, offs, err := g.Roots()
	if err != nil {
		return lay, errors.Join(append(errs, err)...)
	}
	for _, v := range g.Values {
		lay.Values[v.ID] = Location{Buffer: own[roots[v.ID]], OffsetBytes: offs[v.ID]}
	}
	return lay, errors.Join(errs...)
}

// Reference compiles g so that every value has its own fresh buffer and
// every dispatch runs alone (Serial): the run other runs are compared with.
func Reference(g *ir.Graph) (*Program, error) {
	order, err := g.Schedule()
	if err != nil {
		return nil, err
	}
	lay, err := ReferenceLayout(g)
	if err != nil {
		return nil, err
	}
	p, err := Assemble(g, order, lay, Serial, nil)
	if err != nil {
		return nil, err
	}
	p.Barriers = SerialBarriers(len(p.Dispatches))
	return p, nil
}

// SerialBarriers returns a barrier before every dispatch but the first.
func SerialBarriers(n int) []int {
	bs := make([]int, 0, max(n-1, 0))
	for i := 1; i < n; i++ {
		bs = append(bs, i)
	}
	return bs
}

// Ranges converts the program's dispatches into memranges dispatches: every
// input binding's window read, every output's written, with the program's
// buffer indices as buffer IDs.
func (p *Program) Ranges() []memranges.Dispatch {
	ds := make([]memranges.Dispatch, len(p.Dispatches))
	for i := range p.Dispatches {
		d := &p.Dispatches[i]
		md := memranges.Dispatch{Node: d.Node, Name: d.Name + " (" + d.Op + ")"}
		for _, lists := range []struct {
			bs []Binding
			a  memranges.Access
		}{{d.Inputs, memranges.Read}, {d.Outputs, memranges.Write}} {
			for _, b := range lists.bs {
				if b.HiBytes <= b.LoBytes {
					continue
				}
				md.Uses = append(md.Uses, memranges.Use{
					Range:  memranges.Range{Buf: memranges.BufferID(b.Buffer), Off: b.LoBytes, Len: b.HiBytes - b.LoBytes},
					Access: lists.a,
					Value:  b.Value,
				})
			}
		}
		ds[i] = md
	}
	return ds
}

// Synchronize sets the program's mode and recomputes its barriers: a
// barrier after every dispatch (Serial), memranges' minimal barriers for
// the current order (Inferred), or memranges' reorder followed by its
// barriers (Reordered, which permutes Dispatches and renumbers them). The
// barriers are checked with memranges.Verify. It also fills Edges.
func (p *Program) Synchronize(mode Mode) error {
	switch mode {
	case Serial:
		p.Mode, p.Barriers = Serial, SerialBarriers(len(p.Dispatches))
		p.Edges = memranges.Edges(p.Ranges())
		return nil
	case Inferred, Reordered:
	default:
		return fmt.Errorf("exec: mode %v: %w", mode, ErrMode)
	}
	ds := p.Ranges()
	if mode == Reordered {
		perm, _, err := memranges.Reorder(ds, memranges.ReorderOptions{})
		if err != nil {
			return fmt.Errorf("exec: reorder: %w", err)
		}
		if ds, err = memranges.Permute(ds, perm); err != nil {
			return fmt.Errorf("exec: reorder: %w", err)
		}
		old := p.Dispatches
		p.Dispatches = make([]Dispatch, len(old))
		for k, i := range perm {
			p.Dispatches[k] = old[i]
			p.Dispatches[k].Index = k
		}
	}
	bs := memranges.PlaceBarriers(memranges.Exact, ds)
	if err := memranges.Verify(ds, bs); err != nil {
		return fmt.Errorf("exec: barriers for %v: %w", mode, err)
	}
	p.Mode, p.Barriers = mode, make([]int, len(bs))
	for i, b := range bs {
		p.Barriers[i] = b.Before
	}
	p.Edges = memranges.Edges(ds)
	return nil
}

// CompilePlan builds the program of g under a plan made for the schedule
// order, synchronised in the given mode. A grouped plan (plan.Groups set,
// as the concurrency and balanced objectives make) is valid only for
// orders that run its groups one after another: order must visit the
// plan's groups in nondecreasing order (plan.Order always does).
func CompilePlan(g *ir.Graph, order []ir.NodeID, plan *planner.Plan, mode Mode) (*Program, error) {
	if err := checkGroupOrder(order, plan); err != nil {
		return nil, err
	}
	lay, err := LayoutFromPlan(g, plan)
	if err != nil {
		return nil, err
	}
	p, err := Assemble(g, order, lay, mode, nil)
	if err != nil {
		return nil, err
	}
	if err := p.Synchronize(mode); err != nil {
		return nil, err
	}
	return p, nil
}

// checkGroupOrder reports an order that runs a node of a later group of a
// grouped plan before a node of an earlier one: its lifespans, measured in
// groups, would not hold.
func checkGroupOrder(order []ir.NodeID, plan *planner.Plan) error {
	if plan == nil || plan.Groups == nil {
		return nil
	}
	group := make(map[ir.NodeID]int64, len(plan.Order))
	for k, n := range plan.Order {
		group[n] = plan.GroupOf(k)
	}
	prev := int64(-1)
	for k, n := range order {
		gr, ok := group[n]
		if !ok {
			return fmt.Errorf("exec: order position %d: node %d is not in the plan's order: %w", k, n, ErrProgram)
		}
		if gr < prev {
			return fmt.Errorf("exec: order position %d: node %d of group %d runs after group %d of the grouped plan: %w", k, n, gr, prev, ErrProgram)
		}
		prev = gr
	}
	return nil
}
