package planner

import (
	"fmt"

	"github.com/memplan/memplan/ir"
)

// Verify checks the plan and reports every violation (errors.Join):
// everything VerifyPlacement checks (buffers sharing a step and a byte,
// misalignment, moved Fixed buffers, negative offsets), a buffer reaching
// past ArenaBytes, and for graph plans (g non-nil):
//
//   - a slot per value whose Root is the value's root in g;
//   - a value's bytes outside its root's buffer (a view outside its root),
//     or outside the arena;
//   - a value without a buffer that is not external, an external slot
//     outside its root's bytes;
//   - a pinned value whose buffer holds another root or whose bytes any
//     other buffer uses at any step;
//   - a buffer not live at a step whose dispatch reads, writes or keeps one
//     of its values, or an output's buffer that dies before the end (steps
//     are groups when p.Groups is set, which must pass CheckGroups).
//
// The checks are pairwise and per step, deliberately independent of the
// liveness and placement code. g may be nil for DSA plans.
func (p *Plan) Verify(g *ir.Graph) error {
	var errs []error
	if err := VerifyPlacement(p.Buffers, p.Offsets); err != nil {
		errs = append(errs, err)
	}
	if len(p.Offsets) != len(p.Buffers) {
		return joinErrors(errs)
	}
	for i, b := range p.Buffers {
		if b.Size > 0 && satAdd(p.Offsets[i], b.Size) > p.ArenaBytes {
			errs = append(errs, fmt.Errorf("planner: buffer %d (id %d) ends at byte %d, past the %d-byte arena: %w", i, b.ID, p.Offsets[i]+b.Size, p.ArenaBytes, ErrOutsideArena))
		}
	}
	if g != nil {
		if p.Groups != nil {
			if err := CheckGroups(g, p.Order, p.Groups); err != nil {
				errs = append(errs, err)
			}
		}
		errs = append(errs, p.verifySlots(g)...)
	}
	return joinErrors(errs)
}

func (p *Plan) verifySlots(g *ir.Graph) []error {
	var errs []error
	if len(p.Slots) != len(g.Values) {
		return []error{fmt.Errorf("planner: %d slots for %d values: %w", len(p.Slots), len(g.Values), ErrLength)}
	}
	roots, _, rerr := g.Roots()
	for _, v := range g.Values {
		s := p.Slots[v.ID]
		name := fmt.Sprintf("value %d %q", v.ID, v.Name)
		var r ir.ValueID
		if rerr == nil {
			r = roots[v.ID]
		}
		if rerr != nil || r != s.Root {
			errs = append(errs, fmt.Errorf("planner: %s: slot root %d, graph root %d: %w", name, s.Root, r, ErrLiveness))
			continue
		}
		lo, hi := s.Offset-s.Low, s.Offset-s.Low+s.Bytes
		if s.Buffer < 0 {
			if !s.External || !g.Values[r].IsExternal() {
				errs = append(errs, fmt.Errorf("planner: %s has no buffer but its root %d is not external: %w", name, r, ErrLiveness))
				continue
			}
			rootBytes, _ := g.Values[r].Bytes()
			if s.Bytes > 0 && (lo < 0 || hi > rootBytes) {
				errs = append(errs, fmt.Errorf("planner: %s addresses [%d, %d) of its external root's %d bytes: %w", name, lo, hi, rootBytes, ErrViewOutsideRoot))
			}
			continue
		}
		if s.Buffer >= len(p.Buffers) {
			errs = append(errs, fmt.Errorf("planner: %s: slot buffer %d of %d: %w", name, s.Buffer, len(p.Buffers), ErrLength))
			continue
		}
		b, off := p.Buffers[s.Buffer], p.Offsets[s.Buffer]
		if s.Bytes > 0 && (lo < off || hi > off+b.Size) {
			errs = append(errs, fmt.Errorf("planner: %s addresses bytes [%d, %d), outside its root's buffer [%d, %d): %w", name, lo, hi, off, off+b.Size, ErrViewOutsideRoot))
		}
		if s.Bytes > 0 && (lo < 0 || hi > p.ArenaBytes) {
			errs = append(errs, fmt.Errorf("planner: %s addresses bytes [%d, %d), outside the %d-byte arena: %w", name, lo, hi, p.ArenaBytes, ErrOutsideArena))
		}
		if v.Flags.Has(ir.FlagOutput) && b.End < p.Steps {
			errs = append(errs, fmt.Errorf("planner: output %s: buffer %d dies at step %d of %d: %w", name, s.Buffer, b.End, p.Steps, ErrLiveness))
		}
		if v.Flags.Has(ir.FlagPinned) {
			errs = append(errs, p.verifyPinned(g, name, s.Buffer, r)...)
		}
	}
	// Every dispatch's values must be live at its step.
	for step, id := range p.Order {
		n := g.Node(id)
		if n == nil {
			errs = append(errs, fmt.Errorf("planner: step %d: node %d not in the graph: %w", step, id, ErrLiveness))
			continue
		}
		var used []ir.ValueID
		if !g.IsViewNode(n) {
			used = append(append(used, n.Inputs...), n.Outputs...)
		}
		used = append(used, n.KeepAlive...)
		for _, v := range used {
			if int(v) >= len(p.Slots) || v < 0 {
				continue
			}
			s := p.Slots[v]
			if s.Buffer < 0 || s.Buffer >= len(p.Buffers) {
				continue
			}
			b := p.Buffers[s.Buffer]
			if t := p.GroupOf(step); t < b.Start || t >= b.End {
				errs = append(errs, fmt.Errorf("planner: step %d (node %d %q, group %d) uses value %d %q but its buffer %d lives [%d, %d): %w", step, id, n.Name, t, v, g.Values[v].Name, s.Buffer, b.Start, b.End, ErrLiveness))
			}
		}
	}
	return errs
}

// verifyPinned checks that buffer b holds only root r and that no other
// buffer ever uses any of its bytes.
func (p *Plan) verifyPinned(g *ir.Graph, name string, b int, r ir.ValueID) []error {
	var errs []error
	if b < len(p.Values) {
		for _, m := range p.Values[b] {
			if m != r {
				errs = append(errs, fmt.Errorf("planner: pinned %s shares buffer %d with value %d %q: %w", name, b, m, g.Values[m].Name, ErrPinnedShared))
			}
		}
	}
	lo, hi := p.Offsets[b], p.Offsets[b]+p.Buffers[b].Size
	for j, o := range p.Buffers {
		if j != b && o.Size > 0 && p.Offsets[j] < hi && lo < p.Offsets[j]+o.Size {
			errs = append(errs, fmt.Errorf("planner: pinned %s: buffer %d bytes [%d, %d) are reused by buffer %d (id %d) at [%d, %d): %w", name, b, lo, hi, j, o.ID, p.Offsets[j], p.Offsets[j]+o.Size, ErrPinnedShared))
		}
	}
	return errs
}
