package onnx

import (
	"fmt"
	"maps"

	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/onnx/onnxpb"
)

// nodeCtx imports one ONNX node.
type nodeCtx struct {
	imp   *importer
	idx   int
	n     *onnxpb.NodeProto
	attrs map[string]*onnxpb.AttributeProto
}

// mapped is an ONNX node translated to an ir op: the op, its attributes and
// the ONNX names of the inputs that stay tensors. opaque, when set, says why
// the node is imported as an opaque op instead.
type mapped struct {
	op     string
	attrs  ir.Attrs
	inputs []string
	opaque string
	chain  bool // a binary op applied left to right over more than two inputs
}

func (c *nodeCtx) run() error {
	for _, a := range c.n.GetAttribute() {
		c.attrs[a.GetName()] = a
	}
	for _, in := range c.n.GetInput() {
		if in == "" {
			continue
		}
		if _, ok := c.imp.ents[in]; !ok {
			return fmt.Errorf("input %q is not defined by any graph input, initializer or earlier node: %w", in, ErrUndefined)
		}
	}
	if len(c.n.GetOutput()) == 0 {
		return fmt.Errorf("node has no outputs: %w", ErrAttr)
	}
	if d := c.n.GetDomain(); d != "" && d != "ai.onnx" {
		return c.opaque(d+"."+c.n.GetOpType(), "")
	}
	if done, err := c.special(); done || err != nil {
		return err
	}
	if c.n.GetOpType() == "Identity" && len(c.n.GetInput()) == 1 && len(c.n.GetOutput()) == 1 {
		// Identity of a weight or constant names the same tensor: alias it,
		// so the value keeps its flag and data and no node appears.
		if e := c.imp.ents[c.input(0)]; e != nil && e.flags != 0 {
			return c.imp.define(c.output(0), e)
		}
	}
	fn, ok := mappers[c.n.GetOpType()]
	if !ok {
		return c.opaque(c.n.GetOpType(), "")
	}
	m, err := fn(c)
	if err != nil {
		return err
	}
	if m.opaque != "" {
		return c.opaque(c.n.GetOpType(), m.opaque)
	}
	return c.apply(m, c.n.GetOutput())
}

func (c *nodeCtx) define(name string, e *entry) error {
	if name == "" {
		return nil
	}
	if err := c.imp.define(name, e); err != nil {
		return err
	}
	if e.typed {
		return c.imp.checkDeclared(name, e.typ)
	}
	return nil
}

func (c *nodeCtx) defineKonst(name string, k *konst) error {
	return c.define(name, &entry{typ: k.typ(), typed: true, k: k, flags: ir.FlagConstant, id: -1})
}

// apply folds or emits a mapped node. Binary ops with more than two inputs
// (ONNX's variadic Max, Min, Sum) become a left-leaning chain.
func (c *nodeCtx) apply(m mapped, outs []string) error {
	if m.chain && len(m.inputs) > 2 {
		acc := m.inputs[0]
		for j := 1; j < len(m.inputs); j++ {
			name := fmt.Sprintf("%s/chain%d", outs[0], j)
			if j == len(m.inputs)-1 {
				name = outs[0]
			}
			if err := c.apply(mapped{op: m.op, attrs: m.attrs, inputs: []string{acc, m.inputs[j]}}, []string{name}); err != nil {
				return err
			}
			acc = name
		}
		return nil
	}
	info, ok := ir.LookupOp(m.op)
	if !ok {
		return fmt.Errorf("internal mapping to unknown ir op %q: %w", m.op, ErrAttr)
	}
	if len(m.inputs) < info.MinInputs || len(m.inputs) > info.MaxInputs {
		return fmt.Errorf("%d tensor inputs, %s takes %d..%d: %w", len(m.inputs), m.op, info.MinInputs, info.MaxInputs, ErrAttr)
	}
	types := make([]ir.TensorType, len(m.inputs))
	known := make([]*konst, len(m.inputs))
	allKnown := true
	for i, name := range m.inputs {
		e := c.imp.ents[name]
		if e == nil || !e.typed {
			return fmt.Errorf("input %q has no known type: %w", name, ErrNoShape)
		}
		types[i], known[i] = e.typ, e.k
		allKnown = allKnown && e.k != nil
	}
	outTypes, err := info.Infer(types, m.attrs)
	if err != nil {
		return fmt.Errorf("%s %v: %w", m.op, types, err)
	}
	if len(outTypes) < len(outs) {
		// Optional trailing outputs (BatchNormalization's statistics,
		// Dropout's mask, MaxPool's indices) may be named but unread.
		for _, o := range outs[len(outTypes):] {
			if o != "" && c.imp.uses[o] > 0 {
				return fmt.Errorf("%d outputs, %s gives %d (output %q is read): %w", len(outs), m.op, len(outTypes), o, ErrAttr)
			}
		}
		outs = outs[:len(outTypes)]
	}
	if allKnown && foldOps[m.op] && c.smallEnough(outTypes) && foldable(outTypes[0].DType) {
		ks, err := evalOp(m.op, m.attrs, known, outTypes)
		if err != nil {
			return err
		}
		return c.defineKonst(outs[0], ks[0])
	}
	ids := make([]ir.ValueID, len(m.inputs))
	for i, name := range m.inputs {
		if ids[i], err = c.imp.value(name); err != nil {
			return err
		}
	}
	res := c.imp.b.OpN(m.op, m.attrs, ids...)
	if len(res) != len(outTypes) {
		return fmt.Errorf("%s: builder: %w", m.op, c.imp.b.Err())
	}
	for i, id := range res {
		name := ""
		if i < len(outs) {
			name = outs[i]
		}
		if name == "" {
			name = fmt.Sprintf("%s/unused%d", outs[0], i)
		}
		c.imp.b.Name(id, name)
		if err := c.define(name, &entry{typ: outTypes[i], typed: true, id: id}); err != nil {
			return err
		}
	}
	c.imp.fixes = append(c.imp.fixes, fix{out: res[0], name: c.nodeName()})
	return nil
}

func (c *nodeCtx) smallEnough(ts []ir.TensorType) bool {
	for _, t := range ts {
		if n, err := t.Shape.NumElements(); err != nil || n > c.imp.opts.FoldLimit {
			return false
		}
	}
	return true
}

// nodeName is the ONNX node's name, or Op_index when the file gives none.
func (c *nodeCtx) nodeName() string {
	if c.n.GetName() != "" {
		return c.n.GetName()
	}
	return fmt.Sprintf("%s_%d", c.n.GetOpType(), c.idx)
}

// opaque imports the node as an op outside the core set, typed from the
// file's value_info. reason, when set, says why a core op could not be mapped.
//
// A control-flow op (If, Loop, Scan) reads, inside its subgraphs, values of
// the enclosing graph that are not among its inputs; they become extra
// inputs of the opaque node, so the planner keeps them alive until it runs.
func (c *nodeCtx) opaque(op, reason string) error {
	var ids []ir.ValueID
	seen := map[string]bool{}
	for _, in := range append(append([]string{}, c.n.GetInput()...), outerRefs(c.n, c.imp.ents)...) {
		if in == "" || seen[in] {
			continue
		}
		seen[in] = true
		id, err := c.imp.value(in)
		if err != nil {
			return err
		}
		ids = append(ids, id)
	}
	var types []ir.TensorType
	var names []string
	for _, o := range c.n.GetOutput() {
		if o == "" {
			continue
		}
		t, ok := c.imp.declared[o]
		if !ok {
			return fmt.Errorf("op %s is imported as opaque, but output %q has no static shape in value_info: %w", op, o, ErrNoShape)
		}
		types, names = append(types, t), append(names, o)
	}
	if len(types) == 0 {
		return fmt.Errorf("no named outputs: %w", ErrAttr)
	}
	res := c.imp.b.Opaque(op, types, ids...)
	if len(res) != len(types) {
		return fmt.Errorf("builder: %w", c.imp.b.Err())
	}
	for i, id := range res {
		c.imp.b.Name(id, names[i])
		if err := c.define(names[i], &entry{typ: types[i], typed: true, id: id}); err != nil {
			return err
		}
	}
	attrs := c.plainAttrs()
	if reason != "" {
		attrs["memplan_reason"] = ir.Str(reason)
	}
	c.imp.fixes = append(c.imp.fixes, fix{out: res[0], name: c.nodeName(), attrs: attrs})
	return nil
}

// plainAttrs converts the node's int, float and string attributes (lists
// too) to ir attributes; tensors and graphs are left out.
func (c *nodeCtx) plainAttrs() ir.Attrs {
	out := ir.Attrs{}
	for _, a := range c.n.GetAttribute() {
		switch a.GetType() {
		case onnxpb.AttributeProto_INT:
			out[a.GetName()] = ir.Int(a.GetI())
		case onnxpb.AttributeProto_INTS:
			out[a.GetName()] = ir.Ints(a.GetInts()...)
		case onnxpb.AttributeProto_FLOAT:
			out[a.GetName()] = ir.Float(float64(a.GetF()))
		case onnxpb.AttributeProto_FLOATS:
			fs := make([]float64, len(a.GetFloats()))
			for i, f := range a.GetFloats() {
				fs[i] = float64(f)
			}
			out[a.GetName()] = ir.Floats(fs...)
		case onnxpb.AttributeProto_STRING:
			out[a.GetName()] = ir.Str(string(a.GetS()))
		}
	}
	return out
}

// outerRefs lists, in first-use order, the names that the node's subgraph
// attributes (at any depth) read without defining, and that the enclosing
// graph defines.
func outerRefs(n *onnxpb.NodeProto, outer map[string]*entry) []string {
	var refs []string
	seen := map[string]bool{}
	var walk func(g *onnxpb.GraphProto, defined map[string]bool)
	walk = func(g *onnxpb.GraphProto, parent map[string]bool) {
		defined := maps.Clone(parent)
		for _, v := range g.GetInput() {
			defined[v.GetName()] = true
		}
		for _, t := range g.GetInitializer() {
			defined[t.GetName()] = true
		}
		for _, sn := range g.GetNode() {
			for _, in := range sn.GetInput() {
				if in != "" && !defined[in] && !seen[in] && outer[in] != nil {
					seen[in] = true
					refs = append(refs, in)
				}
			}
			for _, a := range sn.GetAttribute() {
				for _, sub := range append([]*onnxpb.GraphProto{a.GetG()}, a.GetGraphs()...) {
					if sub != nil {
						walk(sub, defined)
					}
				}
			}
			for _, o := range sn.GetOutput() {
				defined[o] = true
			}
		}
		for _, o := range g.GetOutput() {
			if name := o.GetName(); !defined[name] && !seen[name] && outer[name] != nil {
				seen[name] = true
				refs = append(refs, name)
			}
		}
	}
	for _, a := range n.GetAttribute() {
		for _, sub := range append([]*onnxpb.GraphProto{a.GetG()}, a.GetGraphs()...) {
			if sub != nil {
				walk(sub, map[string]bool{})
			}
		}
	}
	return refs
}
