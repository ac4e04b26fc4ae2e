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
// root's storage (the graph's view chains), and two roots whose windows
// meet in one buffer may share those bytes only one after the other: every
// dispatch touching one must come before every dispatch touching the
// other, the two meeting at most in one dispatch that reads the first and
// writes the second over exactly the same window (in place). A graph
// output is read after the last dispatch, so its root lives to the end; an
// input, weight or constant is uploaded before the first dispatch and
// serves every run, so it lives throughout.
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

// verifyRootOrder checks that roots sharing bytes are used one after the
// other in the program's order.
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
	// Per root: first and last dispatch touching it, and its byte window
	// (the union of its bindings') per buffer.
	type life struct {
		first, last int
		buf         int
		lo, hi      int64
		used        bool
	}
	lives := make([]life, len(g.Values))
	for i := range p.Dispatches {
		d := &p.Dispatches[i]
		for _, bs := range [][]Binding{d.Inputs, d.Outputs} {
			for k := range bs {
				b := &bs[k]
				if b.LoBytes >= b.HiBytes || g.Value(b.Value) == nil {
					continue
				}
				l := &lives[root[b.Value]]
				if !l.used {
					*l = life{first: i, last: i, buf: b.Buffer, lo: b.LoBytes, hi: b.HiBytes, used: true}
					continue
				}
				l.last = i
				l.lo, l.hi = min(l.lo, b.LoBytes), max(l.hi, b.HiBytes)
			}
		}
	}
	for _, v := range g.Values {
		l := &lives[root[v.ID]]
		if !l.used {
			continue
		}
		if v.Flags.Has(ir.FlagOutput) || v.IsExternal() {
			l.last = n // read back after the run; external data serves every run
		}
		if v.IsExternal() {
			l.first = -1 // uploaded before the run
		}
	}
	var rs []ir.ValueID
	for r := range lives {
		if lives[r].used {
			rs = append(rs, ir.ValueID(r))
		}
	}
	slices.Sort(rs)
	var errs []error
	for x, a := range rs {
		for _, b := range rs[x+1:] {
			la, lb := &lives[a], &lives[b]
			if la.buf != lb.buf || la.lo >= lb.hi || lb.lo >= la.hi {
				continue
			}
			if la.last < lb.first || lb.last < la.first {
				continue
			}
			if la.last == lb.first && p.inPlaceAt(la.last, root, a, b) || lb.last == la.first && p.inPlaceAt(lb.last, root, b, a) {
				continue
			}
			errs = append(errs, fmt.Errorf("exec: verify: values %d %q (dispatches %d..%d) and %d %q (dispatches %d..%d) share bytes of buffer %d but their uses interleave: %w",
				a, g.Values[a].Name, la.first, la.last, b, g.Values[b].Name, lb.first, lb.last, la.buf, ErrHazard))
		}
	}
	return errs
}

// inPlaceAt reports whether dispatch k reads root from and writes root to
// over exactly the same windows: every binding of one that meets a binding
// of the other has the same offset and window.
func (p *Program) inPlaceAt(k int, root []ir.ValueID, from, to ir.ValueID) bool {
	if k < 0 || k >= len(p.Dispatches) {
		return false
	}
	d := &p.Dispatches[k]
	wrote := false
	for i := range d.Outputs {
		w := &d.Outputs[i]
		if root[w.Value] != to {
			continue
		}
		wrote = true
		for j := range d.Inputs {
			r := &d.Inputs[j]
			if root[r.Value] == from && meets(r, w) && (r.OffsetBytes != w.OffsetBytes || r.LoBytes != w.LoBytes || r.HiBytes != w.HiBytes || !slices.Equal(r.StridesBytes, w.StridesBytes)) {
				return false
			}
		}
	}
	return wrote
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
