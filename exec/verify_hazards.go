package exec

import (
	"fmt"
	"slices"

	"github.com/memplan/memplan/ir"
)

// The hazard oracle
//
// Verify does not trust memranges (which built the barriers) to judge its
// own work. From the bindings alone it re-derives every hazard, brute
// force: for every pair of dispatches i < j, every pair of their bindings
// in one buffer whose byte windows meet, with at least one a write, is a
// hazard (read after write, write after read, write after write). Each
// must be ordered: a barrier at some position in (i, j], and when the
// program has Edges, a path of edges from i to j.
//
// Ordering the hazards that exist is not enough: two dispatches swapped
// across a barrier still have every hazard ordered, the wrong way round. So
// the oracle also checks what the order must be. Every value lives in its
// root's storage (the graph's view chains), and a read must see what its
// own root last wrote there: no write of another root may fall over the
// read's bytes between the two (in the same dispatch only in place, over
// exactly the same window). An input, weight or constant counts as written
// before the first dispatch; a graph output is read once more after the
// last.
// The check is quadratic in the roots and the dispatches; it is a test
// oracle, not a fast path.

// access is one binding of one dispatch.
type access struct {
	d     int
	write bool
	b     *Binding
}

// verifyHazards returns every unordered or misordered hazard.
func (p *Program) verifyHazards() []error {
	n := len(p.Dispatches)
	var errs []error
	barrierAt := make([]int, n+1) // barrierAt[k]: barriers at positions <= k
	for _, b := range p.Barriers {
		if b > 0 && b < n {
			barrierAt[b]++
		}
	}
	for k := 1; k <= n; k++ {
		barrierAt[k] += barrierAt[k-1]
	}
	reach := p.edgeReach()
	acc := make([][]access, n)
	for i := range p.Dispatches {
		d := &p.Dispatches[i]
		for k := range d.Inputs {
			acc[i] = append(acc[i], access{i, false, &d.Inputs[k]})
		}
		for k := range d.Outputs {
			acc[i] = append(acc[i], access{i, true, &d.Outputs[k]})
		}
	}
	const maxListed = 100
	more := 0
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			kind := hazardBetween(acc[i], acc[j])
			if kind == "" {
				continue
			}
			var why string
			switch {
			case barrierAt[j]-barrierAt[i] == 0:
				why = "no barrier between them"
			case reach != nil && reach[i][j/64]&(1<<(j%64)) == 0:
				why = "no path of edges between them"
			default:
				continue
			}
			if len(errs) >= maxListed {
				more++
				continue
			}
			errs = append(errs, fmt.Errorf("exec: verify: %s between dispatch %d %q and dispatch %d %q: %s: %w", kind, i, p.Dispatches[i].Name, j, p.Dispatches[j].Name, why, ErrHazard))
		}
	}
	if more > 0 {
		errs = append(errs, fmt.Errorf("exec: verify: %d more unordered hazards: %w", more, ErrHazard))
	}
	return append(errs, p.verifyRootOrder()...)
}

// hazardBetween names the first hazard between an earlier dispatch's
// accesses a and a later one's b ("" when none).
func hazardBetween(a, b []access) string {
	for _, x := range a {
		for _, y := range b {
			if (!x.write && !y.write) || x.b.Buffer != y.b.Buffer || !meets(x.b, y.b) {
				continue
			}
			switch {
			case x.write && y.write:
				return fmt.Sprintf("write after write (values %d, %d)", x.b.Value, y.b.Value)
			case x.write:
				return fmt.Sprintf("read after write (values %d, %d)", x.b.Value, y.b.Value)
			default:
				return fmt.Sprintf("write after read (values %d, %d)", x.b.Value, y.b.Value)
			}
		}
	}
	return ""
}

// meets reports whether two non-empty binding windows share a byte.
func meets(x, y *Binding) bool {
	return x.LoBytes < x.HiBytes && y.LoBytes < y.HiBytes && x.LoBytes < y.HiBytes && y.LoBytes < x.HiBytes
}

// edgeReach returns, per dispatch, the bit set of dispatches its edges reach
// (nil when the program has no Edges). Edges that do not point forward are
// left out (and so order nothing).
func (p *Program) edgeReach() [][]uint64 {
	if p.Edges == nil {
		return nil
	}
	n := len(p.Dispatches)
	words := (n + 63) / 64
	reach := make([][]uint64, n)
	for i := range reach {
		reach[i] = make([]uint64, words)
	}
	succ := make([][]int, n)
	for _, e := range p.Edges {
		if e.From >= 0 && e.To < n && e.From < e.To {
			succ[e.From] = append(succ[e.From], e.To)
		}
	}
	for i := n - 1; i >= 0; i-- {
		for _, k := range succ[i] {
			reach[i][k/64] |= 1 << (k % 64)
			for w := range reach[k] {
				reach[i][w] |= reach[k][w]
			}
		}
	}
	return reach
}

// verifyRootOrder checks that every read sees the bytes its own root last
// wrote: between the last write of a read's root over the read's window
// (before the read; the upload, for an input, weight or constant) and the
// read, no dispatch writes another root over those bytes. A dispatch that
// reads one root and writes another over the same bytes (in place) must
// use exactly the same window for both. Graph outputs are read once more
// after the last dispatch.
func (p *Program) verifyRootOrder() []error {
	g := p.Graph
	n := len(p.Dispatches)
	root := make([]ir.ValueID, len(g.Values))
	for i := range g.Values {
		r, steps := ir.ValueID(i), 0
		for g.Values[r].View != nil && steps <= len(g.Values) {
			r, steps = g.Values[r].View.Base, steps+1
			if g.Value(r) == nil {
				return []error{fmt.Errorf("exec: verify: value %d: broken view chain: %w", i, ErrProgram)}
			}
		}
		root[i] = r
	}
	valid := func(b *Binding) bool { return g.Value(b.Value) != nil && b.LoBytes < b.HiBytes }
	writes := make([][]*Binding, n)
	for i := range p.Dispatches {
		for k := range p.Dispatches[i].Outputs {
			if b := &p.Dispatches[i].Outputs[k]; valid(b) {
				writes[i] = append(writes[i], b)
			}
		}
	}
	var errs []error
	const maxListed = 100
	check := func(j int, r *Binding) {
		a := root[r.Value]
		last := -1 // the upload, for external roots and anything never written
		for k := j - 1; k >= 0 && last < 0; k-- {
			for _, w := range writes[k] {
				if root[w.Value] == a && w.Buffer == r.Buffer && meets(w, r) {
					last = k
					break
				}
			}
		}
		for k := last + 1; k <= j && k < n && len(errs) < maxListed; k++ {
			for _, w := range writes[k] {
				if root[w.Value] == a || w.Buffer != r.Buffer || !meets(w, r) {
					continue
				}
				if k == j && w.OffsetBytes == r.OffsetBytes && w.LoBytes == r.LoBytes && w.HiBytes == r.HiBytes && slices.Equal(w.StridesBytes, r.StridesBytes) {
					continue // in place: the kernel reads each element before writing it
				}
				reader := "the graph's caller after the run"
				if j < n {
					reader = fmt.Sprintf("dispatch %d %q", j, p.Dispatches[j].Name)
				}
				errs = append(errs, fmt.Errorf("exec: verify: %s reads value %d %q (last written by dispatch %d), but dispatch %d %q writes value %d %q over its bytes in between: %w",
					reader, r.Value, g.Values[r.Value].Name, last, k, p.Dispatches[k].Name, w.Value, g.Values[w.Value].Name, ErrHazard))
			}
		}
	}
	for j := range p.Dispatches {
		for k := range p.Dispatches[j].Inputs {
			if b := &p.Dispatches[j].Inputs[k]; valid(b) {
				check(j, b)
			}
		}
	}
	for _, v := range g.Values {
		if b := &p.Values[v.ID]; v.Flags.Has(ir.FlagOutput) && valid(b) {
			check(n, b)
		}
	}
	return errs
}

// verifyLocations checks that the program's bindings say what the graph
// says: one dispatch per node that is not a pure view, with the node's op
// and operands in order; each binding equal to its value's location; each
// view at its base's buffer and offset plus the view's, with the view's
// strides; each other value dense; each external root in the arena (placed
// inputs) or at the start of a buffer of its own.
func (p *Program) verifyLocations() []error {
	g := p.Graph
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("exec: verify: "+format+": %w", append(args, ErrProgram)...))
	}
	if len(p.Values) != len(g.Values) {
		bad("%d locations for %d values", len(p.Values), len(g.Values))
		return errs
	}
	seen := make([]int, len(g.Nodes))
	for i := range p.Dispatches {
		d := &p.Dispatches[i]
		n := g.Node(d.Node)
		if n == nil {
			bad("dispatch %d names node %d, not in the graph", i, d.Node)
			continue
		}
		seen[n.ID]++
		if d.Op != n.Op || len(d.Inputs) != len(n.Inputs) || len(d.Outputs) != len(n.Outputs) {
			bad("dispatch %d %q: op %s with %d inputs and %d outputs, node %d is %s with %d and %d", i, d.Name, d.Op, len(d.Inputs), len(d.Outputs), n.ID, n.Op, len(n.Inputs), len(n.Outputs))
			continue
		}
		for _, side := range []struct {
			bs  []Binding
			ids []ir.ValueID
		}{{d.Inputs, n.Inputs}, {d.Outputs, n.Outputs}} {
			for k := range side.bs {
				b := &side.bs[k]
				if b.Value != side.ids[k] {
					bad("dispatch %d %q: operand %d binds value %d, the node's is %d", i, d.Name, k, b.Value, side.ids[k])
					continue
				}
				if !sameBinding(b, &p.Values[b.Value]) {
					bad("dispatch %d %q: operand %d %v differs from its value's location %v", i, d.Name, k, b, &p.Values[b.Value])
				}
			}
		}
	}
	for _, n := range g.Nodes {
		if want := 1; g.IsViewNode(n) {
			if seen[n.ID] != 0 {
				bad("pure view node %d %q is dispatched", n.ID, n.Name)
			}
		} else if seen[n.ID] != want {
			bad("node %d %q is dispatched %d times", n.ID, n.Name, seen[n.ID])
		}
	}
	for _, v := range g.Values {
		loc := &p.Values[v.ID]
		if loc.DType != v.DType || !slices.Equal(loc.Shape, v.Shape) {
			bad("value %d %q bound as %v%v, the graph says %v", v.ID, v.Name, loc.DType, loc.Shape, v.Type())
			continue
		}
		if v.View == nil {
			if !slices.Equal(loc.StridesBytes, ir.ContiguousStrides(v.Shape, v.DType.Size())) {
				bad("value %d %q: strides %v, not dense", v.ID, v.Name, loc.StridesBytes)
			}
			if v.IsExternal() && loc.Buffer != ArenaBuffer && (loc.Buffer < 0 || loc.Buffer >= len(p.Buffers) || p.Buffers[loc.Buffer].Root != v.ID || loc.OffsetBytes != 0) {
				bad("external value %d %q at %v, neither in the arena nor at the start of its own buffer", v.ID, v.Name, loc)
			}
			continue
		}
		base := g.Value(v.View.Base)
		if base == nil {
			bad("value %d %q: view of value %d, not in the graph", v.ID, v.Name, v.View.Base)
			continue
		}
		bl := &p.Values[base.ID]
		want := v.View.StridesBytes
		if want == nil {
			want = ir.ContiguousStrides(v.Shape, v.DType.Size())
		}
		if loc.Buffer != bl.Buffer || loc.OffsetBytes != bl.OffsetBytes+v.View.OffsetBytes || !slices.Equal(loc.StridesBytes, want) {
			bad("view %d %q at %v strides %v, its base %d at %v gives offset %+d strides %v", v.ID, v.Name, loc, loc.StridesBytes, base.ID, bl, v.View.OffsetBytes, want)
		}
	}
	return errs
}

// sameBinding reports whether two bindings name the same bytes the same way.
func sameBinding(a, b *Binding) bool {
	return a.Value == b.Value && a.Buffer == b.Buffer && a.OffsetBytes == b.OffsetBytes && a.DType == b.DType &&
		slices.Equal(a.Shape, b.Shape) && slices.Equal(a.StridesBytes, b.StridesBytes) && a.LoBytes == b.LoBytes && a.HiBytes == b.HiBytes
}
