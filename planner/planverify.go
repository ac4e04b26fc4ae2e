package planner

import (
	"fmt"
	"math"

	"github.com/memplan/memplan/ir"
)

// Verify checks the plan and reports every violation (errors.Join):
// everything VerifyPlacement checks (buffers sharing a step and a byte,
// misalignment, moved Fixed buffers, negative offsets, ends past int64), a
// buffer reaching past ArenaBytes, and for graph plans (g non-nil) what
// the graph itself says, re-derived without the liveness or placement code
// (verifyderive.go):
//
//   - the schedule is one of g's, the grouping (if any) passes
//     CheckGroups; a slot per value;
//   - each root value's bytes lie at the start of the buffer its slot
//     names, inside it and inside the arena; the buffer lists the root and
//     lives whenever the root does; a root with no buffer is external;
//   - each value's slot (root, buffer, offset, window, external) equals the
//     one derived from its root's place and its view chain, and its window
//     lies inside its root;
//   - no two roots live at a common step share a byte, unless the graph
//     lets one be computed in place over the other and the plan gives both
//     the same window (ErrOverlap; also ErrPinnedShared when one is pinned).
//
// Lifespans are in groups when p.Groups is set (steps otherwise): two roots
// whose group ranges meet must not share a byte. g may be nil for DSA
// plans.
func (p *Plan) Verify(g *ir.Graph) error {
	var errs []error
	if err := VerifyPlacement(p.Buffers, p.Offsets); err != nil {
		errs = append(errs, err)
	}
	if len(p.Offsets) != len(p.Buffers) {
		return joinErrors(errs)
	}
	for i, b := range p.Buffers {
		if b.Size > 0 && (p.Offsets[i] > p.ArenaBytes || b.Size > p.ArenaBytes-p.Offsets[i]) {
			errs = append(errs, fmt.Errorf("planner: buffer %d (id %d) bytes %s end past the %d-byte arena: %w", i, b.ID, byteRange(p.Offsets[i], b.Size), p.ArenaBytes, ErrOutsideArena))
		}
	}
	if g != nil {
		errs = append(errs, p.verifyGraph(g)...)
	}
	return joinErrors(errs)
}

// verifyGraph checks the slots and the sharing of a graph plan against the
// facts derived from g.
func (p *Plan) verifyGraph(g *ir.Graph) []error {
	if len(p.Slots) != len(g.Values) {
		return []error{fmt.Errorf("planner: %d slots for %d values: %w", len(p.Slots), len(g.Values), ErrLength)}
	}
	f, err := deriveFacts(g, p.Order, p.Groups)
	if err != nil {
		return []error{err}
	}
	var errs []error
	if p.Steps != f.steps {
		errs = append(errs, fmt.Errorf("planner: plan says %d steps, its schedule has %d groups: %w", p.Steps, f.steps, ErrLiveness))
	}
	n := len(g.Values)
	rootAt := make([]int64, n) // a placed root's first byte in the arena
	placed := make([]bool, n)
	for _, v := range g.Values {
		if v.View == nil {
			errs = p.verifyRoot(g, f, v, rootAt, placed, errs)
		}
	}
	for _, v := range g.Values {
		errs = p.verifySlot(g, f, v, rootAt, placed, errs)
	}
	errs = append(errs, p.verifyMembers(g, f)...)
	return append(errs, p.verifySharing(g, f, rootAt, placed)...)
}

// verifyRoot checks root v's buffer and records where its bytes start.
func (p *Plan) verifyRoot(g *ir.Graph, f *facts, v *ir.Value, rootAt []int64, placed []bool, errs []error) []error {
	r, s := v.ID, p.Slots[v.ID]
	name := fmt.Sprintf("value %d %q", r, v.Name)
	if s.Buffer < 0 {
		if !v.IsExternal() {
			errs = append(errs, fmt.Errorf("planner: %s has no buffer but is not external: %w", name, ErrLiveness))
		}
		return errs
	}
	if s.Buffer >= len(p.Buffers) {
		return append(errs, fmt.Errorf("planner: %s: slot buffer %d of %d: %w", name, s.Buffer, len(p.Buffers), ErrLength))
	}
	b, off := p.Buffers[s.Buffer], p.Offsets[s.Buffer]
	rootAt[r], placed[r] = off, true
	size := f.size[r]
	if size > b.Size {
		errs = append(errs, fmt.Errorf("planner: %s needs %d bytes, its buffer %d has %d: %w", name, size, s.Buffer, b.Size, ErrViewOutsideRoot))
	}
	if size > 0 && (off < 0 || off > p.ArenaBytes || size > p.ArenaBytes-off) {
		errs = append(errs, fmt.Errorf("planner: %s bytes %s are outside the %d-byte arena: %w", name, byteRange(off, size), p.ArenaBytes, ErrOutsideArena))
	}
	if start, end := f.lifespan(g, r); start < end && (start < b.Start || end > b.End) {
		errs = append(errs, fmt.Errorf("planner: %s lives [%d, %d) but its buffer %d lives [%d, %d): %w", name, start, end, s.Buffer, b.Start, b.End, ErrLiveness))
	}
	return errs
}

// verifySlot compares value v's slot with the one derived from its root's
// place and its view chain.
func (p *Plan) verifySlot(g *ir.Graph, f *facts, v *ir.Value, rootAt []int64, placed []bool, errs []error) []error {
	s, r := p.Slots[v.ID], f.root[v.ID]
	name := fmt.Sprintf("value %d %q", v.ID, v.Name)
	if f.bytes[v.ID] > 0 && (f.off[v.ID] < f.low[v.ID] || f.bytes[v.ID] > f.size[r] || f.off[v.ID]-f.low[v.ID] > f.size[r]-f.bytes[v.ID]) {
		errs = append(errs, fmt.Errorf("planner: %s addresses bytes [%d, +%d) of its root's %d: %w", name, f.off[v.ID]-f.low[v.ID], f.bytes[v.ID], f.size[r], ErrViewOutsideRoot))
	}
	want := Slot{Buffer: -1, Root: r, Offset: f.off[v.ID], Bytes: f.bytes[v.ID], Low: f.low[v.ID], External: !placed[r]}
	if placed[r] {
		want.Buffer = p.Slots[r].Buffer
		o, ok := addInt64(rootAt[r], f.off[v.ID])
		if !ok {
			return append(errs, fmt.Errorf("planner: %s: root offset %d + view offset %d overflows int64: %w", name, rootAt[r], f.off[v.ID], ErrOutsideArena))
		}
		want.Offset = o
	}
	if s != want {
		var err error = ErrSlot
		lo, ok := addInt64(s.Offset, -max(s.Low, -math.MaxInt64))
		if placed[r] && (!ok || !inside(lo, s.Bytes, rootAt[r], f.size[r])) {
			err = fmt.Errorf("%w, %w", ErrSlot, ErrViewOutsideRoot)
		}
		errs = append(errs, fmt.Errorf("planner: %s: slot %+v, the graph and its root's place give %+v: %w", name, s, want, err))
	}
	return errs
}

// verifySharing checks that no two placed roots live at a common step share
// a byte, except in-place pairs the graph allows that sit in one window.
func (p *Plan) verifySharing(g *ir.Graph, f *facts, rootAt []int64, placed []bool) []error {
	n := len(g.Values)
	// class[r]: the in-place chain r belongs to (union-find over allowed,
	// same-window pairs).
	class := make([]ir.ValueID, n)
	for i := range class {
		class[i] = ir.ValueID(i)
	}
	findClass := func(v ir.ValueID) ir.ValueID {
		for class[v] != v {
			class[v] = class[class[v]]
			v = class[v]
		}
		return v
	}
	for o, r := range f.inPlaceOf {
		if r >= 0 && placed[o] && placed[r] && rootAt[o] == rootAt[r] && f.size[o] == f.size[r] {
			class[findClass(ir.ValueID(o))] = findClass(r)
		}
	}
	idx := make([]int, n) // class representative -> span index
	for i := range idx {
		idx[i] = -1
	}
	var spans []span
	var reps []ir.ValueID // per span: the first root of the class
	var pinned []bool
	for _, v := range g.Values {
		r := v.ID
		if v.View != nil || !placed[r] || f.size[r] == 0 {
			continue
		}
		start, end := f.lifespan(g, r)
		if start >= end {
			continue
		}
		c := findClass(r)
		if idx[c] < 0 {
			idx[c] = len(spans)
			spans = append(spans, span{Start: start, End: end, Lo: rootAt[r], Size: f.size[r]})
			reps = append(reps, r)
			pinned = append(pinned, false)
		}
		sp := &spans[idx[c]]
		sp.Start, sp.End = min(sp.Start, start), max(sp.End, end)
		pinned[idx[c]] = pinned[idx[c]] || f.pinned[r]
	}
	pairs, more := sweepConflicts(spans, maxOverlapErrors)
	var errs []error
	for _, c := range pairs {
		a, b := &spans[c.Earlier], &spans[c.Later]
		ra, rb := reps[c.Earlier], reps[c.Later]
		var err error = ErrOverlap
		if pinned[c.Earlier] || pinned[c.Later] {
			err = fmt.Errorf("%w, %w", ErrOverlap, ErrPinnedShared)
		}
		errs = append(errs, fmt.Errorf("planner: value %d %q (bytes %s, live [%d, %d)) and value %d %q (bytes %s, live [%d, %d)) share bytes at a common step: %w",
			ra, g.Values[ra].Name, byteRange(a.Lo, a.Size), a.Start, a.End, rb, g.Values[rb].Name, byteRange(b.Lo, b.Size), b.Start, b.End, err))
	}
	if more > 0 {
		errs = append(errs, fmt.Errorf("planner: %d more values share bytes with a live one, not listed: %w", more, ErrOverlap))
	}
	return errs
}

// inside reports whether [lo, lo+n) lies within [base, base+size), exactly.
func inside(lo, n, base, size int64) bool {
	if n <= 0 {
		return true
	}
	return lo >= base && n <= size && uint64(lo)-uint64(base) <= uint64(size-n)
}

// verifyMembers checks that every root a buffer lists names that buffer in
// its slot, and that a buffer holding a pinned root holds nothing else.
func (p *Plan) verifyMembers(g *ir.Graph, f *facts) []error {
	if p.Values == nil {
		return nil
	}
	if len(p.Values) != len(p.Buffers) {
		return []error{fmt.Errorf("planner: %d member lists for %d buffers: %w", len(p.Values), len(p.Buffers), ErrLength)}
	}
	var errs []error
	listed := make([]bool, len(g.Values))
	for b, ms := range p.Values {
		for _, m := range ms {
			if g.Value(m) != nil {
				listed[m] = true
			}
			if g.Value(m) == nil || g.Values[m].View != nil || p.Slots[m].Buffer != b {
				errs = append(errs, fmt.Errorf("planner: buffer %d lists value %d, whose slot is elsewhere or which is not a root: %w", b, m, ErrLiveness))
				continue
			}
			if f.pinned[m] && len(ms) > 1 {
				errs = append(errs, fmt.Errorf("planner: buffer %d holds pinned value %d %q and %d other values: %w", b, m, g.Values[m].Name, len(ms)-1, ErrPinnedShared))
			}
		}
	}
	for _, v := range g.Values {
		if s := p.Slots[v.ID]; v.View == nil && s.Buffer >= 0 && s.Buffer < len(p.Buffers) && !listed[v.ID] {
			errs = append(errs, fmt.Errorf("planner: value %d %q is in buffer %d, which does not list it: %w", v.ID, v.Name, s.Buffer, ErrLiveness))
		}
	}
	return errs
}
