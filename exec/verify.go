package exec

import (
	"errors"
	"fmt"

	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/memranges"
)

// Verify checks that a program is safe to run, independently of how it was
// built, and reports every violation: each binding's window lies inside
// its buffer, dispatches are numbered by position, each dispatch runs after
// the dispatches that produce its inputs (through views), barriers are
// strictly increasing inside (0, len(Dispatches)), and every pair of
// dispatches that conflict in memory is separated by a barrier
// (memranges.Verify, an O(n^2) pairwise check), and, when Edges are set,
// ordered by a path of edges (memranges.VerifyEdges). Then, sharing no code
// with memranges (verify_hazards.go): every binding agrees with the
// value's location and that location with the graph (views at their
// base's offset plus the view's, with its strides); every RAW, WAR and WAW
// hazard between two dispatches is ordered by a barrier and, with Edges,
// by a path of edges; and roots sharing bytes are used one after the other
// (ErrHazard).
func (p *Program) Verify() error {
	if p == nil || p.Graph == nil {
		return fmt.Errorf("exec: verify: nil program or graph: %w", ErrProgram)
	}
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("exec: verify: "+format+": %w", append(args, ErrProgram)...))
	}
	g := p.Graph
	pos := make(map[ir.NodeID]int, len(p.Dispatches))
	for i := range p.Dispatches {
		pos[p.Dispatches[i].Node] = i
	}
	for i := range p.Dispatches {
		d := &p.Dispatches[i]
		if d.Index != i {
			bad("dispatch at position %d has Index %d", i, d.Index)
		}
		for _, bs := range [][]Binding{d.Inputs, d.Outputs} {
			for _, b := range bs {
				if b.Buffer < 0 || b.Buffer >= len(p.Buffers) || b.LoBytes < 0 || b.HiBytes > p.Buffers[b.Buffer].Bytes || b.LoBytes > b.HiBytes {
					bad("dispatch %d %q: %v window [%d, %d) outside its buffer", i, d.Name, &b, b.LoBytes, b.HiBytes)
				}
				if lo, hi := window(b.OffsetBytes, b.DType.Size(), b.Shape, b.StridesBytes); len(b.StridesBytes) != len(b.Shape) || lo != b.LoBytes || hi != b.HiBytes {
					bad("dispatch %d %q: %v window [%d, %d) does not match its shape and strides", i, d.Name, &b, b.LoBytes, b.HiBytes)
				}
			}
		}
		for _, b := range d.Inputs {
			for _, prod := range producers(g, b.Value) {
				if j, ok := pos[prod]; ok && j >= i {
					bad("dispatch %d %q reads value %d produced by dispatch %d", i, d.Name, b.Value, j)
				}
			}
		}
	}
	bs := make([]memranges.Barrier, len(p.Barriers))
	for i, b := range p.Barriers {
		bs[i] = memranges.Barrier{Before: b}
	}
	ds := p.Ranges()
	if err := memranges.Verify(ds, bs); err != nil {
		errs = append(errs, fmt.Errorf("exec: verify: %w", err))
	}
	if p.Edges != nil {
		if err := memranges.VerifyEdges(ds, p.Edges); err != nil {
			errs = append(errs, fmt.Errorf("exec: verify: %w", err))
		}
	}
	errs = append(errs, p.verifyLocations()...)
	errs = append(errs, p.verifyHazards()...)
	return errors.Join(errs...)
}

// producers returns the nodes whose outputs v reads through: v's producer
// and, along its view chain, the producers of every base.
func producers(g *ir.Graph, v ir.ValueID) []ir.NodeID {
	var out []ir.NodeID
	seen := map[ir.ValueID]bool{}
	var walk func(id ir.ValueID)
	walk = func(id ir.ValueID) {
		val := g.Value(id)
		if val == nil || seen[id] {
			return
		}
		seen[id] = true
		if n := g.Node(val.Producer); n != nil {
			out = append(out, n.ID)
			if g.IsViewNode(n) {
				for _, in := range n.Inputs {
					walk(in)
				}
			}
		}
		if val.View != nil {
			walk(val.View.Base)
		}
	}
	walk(v)
	return out
}
