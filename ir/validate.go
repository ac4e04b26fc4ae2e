package ir

// Validation: an independent, brute-force-able check of every invariant the
// rest of the pipeline relies on. It never trusts the graph: nil entries,
// negative or out-of-range IDs, cyclic view chains and absurd sizes are all
// reported, never dereferenced.
//
// The checks run in passes; a pass skips what an earlier pass found broken,
// so one bad value gives one error rather than a cascade:
//
//  1. values: dense IDs, dtype, shape and byte size, flags, data length;
//  2. nodes: dense IDs, known op (or Opaque), references in range, outputs
//     not repeated and not external, attribute kinds;
//  3. producers: each value is produced by at most one node and its
//     Producer field names that node; every value is defined (external,
//     produced, or a view);
//  4. views: chains end at a root (no cycle), and every byte a view can
//     address lies inside its root;
//  5. types: for each known op, arity, and the stored output types equal
//     those OpInfo.Infer computes; view-op outputs that are views sit where
//     OpInfo.View says; no node but a pure view writes into a view of an
//     input, weight or constant;
//  6. dependencies: no cycle among nodes (through view chains);
//  7. the explicit schedule, if any, respects every dependency.
//
// View bounds are checked in validate_views.go, passes 6 and 7 in
// validate_order.go.

import (
	"errors"
	"fmt"
	"slices"
)

// Validate checks every invariant of the graph and reports every violation
// at once with errors.Join. Each violation is a *NodeError or *ValueError
// naming the culprit and wrapping one of the package's sentinels (ErrCycle,
// ErrUndefined, ...). A nil result means the graph is well-formed: IDs are
// dense, every reference resolves, the node graph is acyclic, views stay in
// bounds, known ops have the types their shape rules give, and g.Order (if
// set) is a valid schedule. Validate never panics, whatever the graph holds.
func (g *Graph) Validate() error {
	if g == nil {
		return fmt.Errorf("ir: nil graph: %w", ErrUndefined)
	}
	c := &checker{g: g}
	c.values()
	c.nodes()
	c.producers()
	c.views()
	c.types()
	c.externalWrites()
	c.dependencies()
	c.schedule()
	return errors.Join(c.errs...)
}

// checker carries the side tables of one Validate call, indexed by ID.
type checker struct {
	g    *Graph
	errs []error
	// okVal[v]: the value is non-nil with a valid type and size.
	okVal  []bool
	size   []int64 // byte size of each okVal value
	okNode []bool  // non-nil, references in range
	prods  [][]NodeID
	// view chains (viewChains): chainErr[v] is nil when v's chain ends
	// at a root (always for a non-view); root and off are then set.
	chainErr []error
	root     []ValueID
	off      []int64
	cyclic   bool // a node cycle was found; the schedule check is skipped
}

func (c *checker) valueErr(id ValueID, format string, args ...any) {
	name := ""
	if v := c.g.Value(id); v != nil {
		name = v.Name
	}
	c.errs = append(c.errs, &ValueError{Value: id, Name: name, Err: fmt.Errorf(format, args...)})
}

func (c *checker) nodeErr(id NodeID, format string, args ...any) {
	e := &NodeError{Node: id, Err: fmt.Errorf(format, args...)}
	if n := c.g.Node(id); n != nil {
		e.Name, e.Op = n.Name, n.Op
	}
	c.errs = append(c.errs, e)
}

// valueName names a value in a message: 3 "h" or 3 when it has no name.
func (c *checker) valueName(id ValueID) string {
	if v := c.g.Value(id); v != nil && v.Name != "" {
		return fmt.Sprintf("%d %q", id, v.Name)
	}
	return fmt.Sprint(id)
}

const externalFlags = FlagInput | FlagWeight | FlagConstant

func (c *checker) values() {
	g := c.g
	c.okVal = make([]bool, len(g.Values))
	c.size = make([]int64, len(g.Values))
	for i, v := range g.Values {
		id := ValueID(i)
		if v == nil {
			c.valueErr(id, "nil value: %w", ErrUndefined)
			continue
		}
		if v.ID != id {
			c.valueErr(id, "id %d at index %d: %w", v.ID, i, ErrID)
		}
		size, err := ByteSize(v.DType, v.Shape)
		if err != nil {
			c.valueErr(id, "%w", err)
		} else {
			c.okVal[i], c.size[i] = true, size
		}
		if v.Flags >= 1<<len(flagNames) {
			c.valueErr(id, "unknown flag bits %#x: %w", uint8(v.Flags), ErrFlags)
		}
		if ext := v.Flags & externalFlags; ext&(ext-1) != 0 {
			c.valueErr(id, "flags %v: at most one of input, weight, constant: %w", v.Flags, ErrFlags)
		}
		if v.Flags.Has(FlagPinned) && v.PinReason == "" {
			c.valueErr(id, "pinned without a reason: %w", ErrFlags)
		}
		if !v.Flags.Has(FlagPinned) && v.PinReason != "" {
			c.valueErr(id, "pin reason %q but not pinned: %w", v.PinReason, ErrFlags)
		}
		if v.Data != nil {
			if v.Flags&(FlagWeight|FlagConstant) == 0 {
				c.valueErr(id, "data on a value that is neither weight nor constant: %w", ErrFlags)
			} else if c.okVal[i] && int64(len(v.Data)) != size {
				c.valueErr(id, "%d bytes of data for a %d-byte %v: %w", len(v.Data), size, v.Type(), ErrShape)
			}
		}
		if v.View != nil && v.Flags&externalFlags != 0 {
			c.valueErr(id, "a view cannot be %v (its storage is its base's): %w", v.Flags&externalFlags, ErrFlags)
		}
		if v.View != nil && v.Data != nil {
			c.valueErr(id, "a view cannot carry data: %w", ErrFlags)
		}
	}
}

func (c *checker) nodes() {
	g := c.g
	c.okNode = make([]bool, len(g.Nodes))
	c.prods = make([][]NodeID, len(g.Values))
	for i, n := range g.Nodes {
		id := NodeID(i)
		if n == nil {
			c.nodeErr(id, "nil node: %w", ErrUndefined)
			continue
		}
		ok := true
		if n.ID != id {
			c.nodeErr(id, "id %d at index %d: %w", n.ID, i, ErrID)
		}
		if n.Op == "" {
			c.nodeErr(id, "no op: %w", ErrUnknownOp)
		} else if _, known := LookupOp(n.Op); !known && !n.Opaque {
			c.nodeErr(id, "op %q is not in the core set and the node is not opaque: %w", n.Op, ErrUnknownOp)
		}
		for _, ref := range []struct {
			what string
			ids  []ValueID
		}{{"input", n.Inputs}, {"output", n.Outputs}, {"keep-alive", n.KeepAlive}} {
			for j, v := range ref.ids {
				if c.g.Value(v) == nil {
					c.nodeErr(id, "%s %d: value %d is not defined (%d values): %w", ref.what, j, v, len(g.Values), ErrUndefined)
					ok = false
				}
			}
		}
		if len(n.Outputs) == 0 {
			c.nodeErr(id, "no outputs: %w", ErrArity)
		}
		for j, o := range n.Outputs {
			v := g.Value(o)
			if v == nil {
				continue
			}
			if slices.Contains(n.Outputs[:j], o) {
				c.nodeErr(id, "output %d repeats value %s: %w", j, c.valueName(o), ErrRedefined)
				continue
			}
			if v.Flags&externalFlags != 0 {
				c.nodeErr(id, "output %d is %s, which is %v: a node cannot write it: %w", j, c.valueName(o), v.Flags&externalFlags, ErrFlags)
			}
			c.prods[o] = append(c.prods[o], id)
		}
		for _, k := range n.Attrs.Keys() {
			if a := n.Attrs[k]; a.Kind < AttrInt || a.Kind > AttrString {
				c.nodeErr(id, "attribute %q has kind %d: %w", k, a.Kind, ErrAttr)
			}
		}
		c.okNode[i] = ok
	}
}

func (c *checker) producers() {
	g := c.g
	for i, v := range g.Values {
		if v == nil {
			continue
		}
		id := ValueID(i)
		ps := c.prods[i]
		switch {
		case len(ps) > 1:
			c.valueErr(id, "produced by nodes %v: %w", ps, ErrRedefined)
		case len(ps) == 1 && v.Producer != ps[0]:
			c.valueErr(id, "Producer is %d but node %d produces it: %w", v.Producer, ps[0], ErrRedefined)
		case len(ps) == 0 && v.Producer != NoNode:
			c.valueErr(id, "Producer is %d but no node lists it as an output: %w", v.Producer, ErrUndefined)
		case len(ps) == 0 && v.View == nil && v.Flags&externalFlags == 0:
			c.valueErr(id, "never defined: no node produces it and it is not an input, weight, constant or view: %w", ErrUndefined)
		}
	}
}

func (c *checker) types() {
	g := c.g
	for i, n := range g.Nodes {
		if n == nil || !c.okNode[i] || n.Opaque {
			continue
		}
		info, known := LookupOp(n.Op)
		if !known {
			continue
		}
		id := NodeID(i)
		if errs := checkAttrs(info, n.Attrs); len(errs) > 0 {
			for _, e := range errs {
				c.nodeErr(id, "%w", e)
			}
			continue
		}
		if len(n.Inputs) < info.MinInputs || len(n.Inputs) > info.MaxInputs {
			c.nodeErr(id, "%d inputs, %s takes %d to %d: %w", len(n.Inputs), n.Op, info.MinInputs, info.MaxInputs, ErrArity)
			continue
		}
		in := make([]TensorType, len(n.Inputs))
		typed := true
		for j, v := range n.Inputs {
			typed = typed && c.okVal[v]
			in[j] = g.Values[v].Type()
		}
		for _, o := range n.Outputs {
			typed = typed && c.okVal[o]
		}
		if !typed {
			continue // reported with the value
		}
		out, err := info.Infer(in, n.Attrs)
		if err != nil {
			c.nodeErr(id, "%w", err)
			continue
		}
		if len(out) != len(n.Outputs) {
			c.nodeErr(id, "%d outputs, %s gives %d: %w", len(n.Outputs), n.Op, len(out), ErrArity)
			continue
		}
		for j, o := range n.Outputs {
			if got := g.Values[o].Type(); got.DType != out[j].DType || !got.Shape.Equal(out[j].Shape) {
				c.nodeErr(id, "output %d (value %s) is %v, %s gives %v: %w", j, c.valueName(o), got, n.Op, out[j], ErrTypeMismatch)
			}
		}
		c.viewOp(id, n, info, in)
	}
}

// viewOp checks that a view op's output, when it is a view, is the window
// OpInfo.View describes: input 0 at the given offset, contiguous.
func (c *checker) viewOp(id NodeID, n *Node, info *OpInfo, in []TensorType) {
	if info.View == nil || len(n.Outputs) != 1 || len(n.Inputs) == 0 {
		return
	}
	out := c.g.Values[n.Outputs[0]]
	if out.View == nil {
		return // a copy: allowed
	}
	off, ok := info.View(in, n.Attrs)
	switch {
	case !ok:
		c.nodeErr(id, "output %s is a view, but this %s is not a pure view: %w", c.valueName(out.ID), n.Op, ErrViewBounds)
	case out.View.Base != n.Inputs[0] || out.View.OffsetBytes != off || !out.View.IsContiguous(out.Shape, out.DType.Size()):
		c.nodeErr(id, "output %s views value %d at +%d (strides %v), %s gives value %d at +%d, contiguous: %w",
			c.valueName(out.ID), out.View.Base, out.View.OffsetBytes, out.View.StridesBytes, n.Op, n.Inputs[0], off, ErrViewBounds)
	}
}

// externalWrites reports nodes whose output is a view into the storage of
// an input, weight or constant: the caller owns that memory and a node may
// not write it. A pure view op (a Reshape of a weight, say) writes nothing
// and is allowed.
func (c *checker) externalWrites() {
	g := c.g
	for i, n := range g.Nodes {
		if n == nil || !c.okNode[i] {
			continue
		}
		for j, o := range n.Outputs {
			v := g.Values[o]
			if v.View == nil || c.chainErr[o] != nil {
				continue
			}
			root := g.Values[c.root[o]]
			if root.Flags&externalFlags == 0 || c.isPureView(n) {
				continue
			}
			c.nodeErr(NodeID(i), "output %d (value %s) is a view into %v value %s: a node cannot write it: %w",
				j, c.valueName(o), root.Flags&externalFlags, c.valueName(root.ID), ErrFlags)
		}
	}
}

// isPureView reports whether n is an instance of a view op that OpInfo.View
// accepts: it only renames its input's storage.
func (c *checker) isPureView(n *Node) bool {
	info, ok := LookupOp(n.Op)
	if !ok || n.Opaque || info.View == nil || len(n.Inputs) == 0 {
		return false
	}
	in := make([]TensorType, len(n.Inputs))
	for j, v := range n.Inputs {
		if !c.okVal[v] {
			return false
		}
		in[j] = c.g.Values[v].Type()
	}
	_, pure := info.View(in, n.Attrs)
	return pure
}
