package arenamap

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/memranges"
	"github.com/memplan/memplan/planner"
)

// FromBuffers builds a Map of a placed DSA instance: block i is bufs[i] at
// offsets[i], with ID i, named by the buffer's Name or "buffer <ID>".
func FromBuffers(title string, bufs []planner.Buffer, offsets []int64) (*Map, error) {
	if len(offsets) != len(bufs) {
		return nil, fmt.Errorf("arenamap: %d offsets for %d buffers: %w", len(offsets), len(bufs), ErrMap)
	}
	m := &Map{Title: title, Blocks: make([]Block, len(bufs))}
	for i, b := range bufs {
		name := b.Name
		if name == "" {
			name = "buffer " + strconv.FormatInt(b.ID, 10)
		}
		m.Blocks[i] = Block{ID: int64(i), Name: name, Start: b.Start, End: b.End, Offset: offsets[i], Size: b.Size, Producer: "-"}
	}
	m.LowerBoundBytes = planner.LowerBound(bufs)
	m.ArenaBytes = planner.ArenaSize(bufs, offsets)
	return m, m.Validate()
}

// FromPlan builds a Map of a plan. Block i is p.Buffers[i]; for graph plans
// (g not nil and p.Values set) it is named by the values it holds and
// coloured by the op kind of the node that produced the first of them
// ("input" for values no node produces).
func FromPlan(title string, p *planner.Plan, g *ir.Graph) (*Map, error) {
	if p == nil {
		return nil, fmt.Errorf("arenamap: nil plan %q: %w", title, ErrMap)
	}
	m, err := FromBuffers(title, p.Buffers, p.Offsets)
	if err != nil {
		return nil, err
	}
	m.ArenaBytes, m.LowerBoundBytes, m.Steps = p.ArenaBytes, p.LowerBoundBytes, p.Steps
	if g == nil || len(p.Values) != len(p.Buffers) {
		return m, nil
	}
	for i, vs := range p.Values {
		if len(vs) == 0 {
			continue
		}
		names := make([]string, 0, len(vs))
		for _, v := range vs {
			if int(v) >= 0 && int(v) < len(g.Values) {
				names = append(names, g.Values[v].Name)
			}
		}
		b := &m.Blocks[i]
		if len(names) > 0 {
			b.Name = strings.Join(names, " = ")
		}
		b.Kind, b.Producer = producer(g, vs[0])
	}
	return m, nil
}

// producer names the node that produced v and its op kind.
func producer(g *ir.Graph, v ir.ValueID) (kind, name string) {
	if int(v) < 0 || int(v) >= len(g.Values) {
		return "", "?"
	}
	n := g.Values[v].Producer
	if n == ir.NoNode || int(n) >= len(g.Nodes) {
		return "input", "(none)"
	}
	node := g.Nodes[n]
	kind = ir.KindOpaque.String()
	if info, ok := ir.LookupOp(node.Op); ok {
		kind = info.Kind.String()
	}
	return kind, node.Name + " (" + node.Op + ")"
}

// BarrierSteps maps barriers placed on a dispatch list to schedule steps:
// a barrier before dispatch ds[b.Before] sits before the step of that
// dispatch's node in order. Barriers whose dispatch has no node in order
// (synthetic streams) are dropped. The result is ascending.
func BarrierSteps(order []ir.NodeID, ds []memranges.Dispatch, bs []memranges.Barrier) []int64 {
	step := make(map[ir.NodeID]int64, len(order))
	for i, n := range order {
		step[n] = int64(i)
	}
	var out []int64
	for _, b := range bs {
		if b.Before < 0 || b.Before >= len(ds) {
			continue
		}
		if s, ok := step[ds[b.Before].Node]; ok {
			if len(out) == 0 || out[len(out)-1] != s {
				out = append(out, s)
			}
		}
	}
	return out
}
