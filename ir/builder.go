package ir

import (
	"errors"
	"fmt"
	"strings"
)

// Builder assembles a graph one value and node at a time, inferring every
// output type from the op's shape rule. Errors are collected, not returned
// per call, so construction code reads straight; Build reports them all
// together with the graph's validation.
//
//	b := ir.NewBuilder("mlp")
//	x := b.Input("x", ir.F32, 1, 784)
//	w := b.Weight("w1", ir.F32, 784, 128)
//	h := b.Op("Relu", nil, b.Op("MatMul", nil, x, w))
//	b.Output(h)
//	g, err := b.Build()
type Builder struct {
	g    *Graph
	errs []error
}

// NewBuilder starts an empty graph with the given name.
func NewBuilder(name string) *Builder {
	return &Builder{g: &Graph{Name: name}}
}

// Err returns the errors collected so far, joined, or nil.
func (b *Builder) Err() error { return errors.Join(b.errs...) }

func (b *Builder) addValue(name string, t TensorType, f Flags) ValueID {
	id := ValueID(len(b.g.Values))
	if name == "" {
		name = fmt.Sprintf("v%d", id)
	}
	b.g.Values = append(b.g.Values, &Value{ID: id, Name: name, DType: t.DType, Shape: t.Shape.Clone(), Flags: f, Producer: NoNode})
	return id
}

func (b *Builder) external(name string, dt DType, data []byte, f Flags, dims []int64) ValueID {
	id := b.addValue(name, TensorType{dt, Shape(dims)}, f)
	v := b.g.Values[id]
	if data != nil {
		v.Data = append([]byte{}, data...)
		if n, err := v.Bytes(); err == nil && n != int64(len(data)) {
			b.errs = append(b.errs, &ValueError{Value: id, Name: v.Name, Err: fmt.Errorf("data has %d bytes, %v needs %d: %w", len(data), v.Type(), n, ErrShape)})
		}
	}
	return id
}

// Input adds a graph input of the given type.
func (b *Builder) Input(name string, dt DType, dims ...int64) ValueID {
	return b.external(name, dt, nil, FlagInput, dims)
}

// Weight adds a weight known only by its shape.
func (b *Builder) Weight(name string, dt DType, dims ...int64) ValueID {
	return b.external(name, dt, nil, FlagWeight, dims)
}

// WeightData adds a weight with its raw little-endian bytes.
func (b *Builder) WeightData(name string, dt DType, data []byte, dims ...int64) ValueID {
	return b.external(name, dt, data, FlagWeight, dims)
}

// Constant adds a constant with its raw little-endian bytes.
func (b *Builder) Constant(name string, dt DType, data []byte, dims ...int64) ValueID {
	return b.external(name, dt, data, FlagConstant, dims)
}

func (b *Builder) valid(ids []ValueID) bool {
	for _, id := range ids {
		if b.g.Value(id) == nil {
			b.errs = append(b.errs, fmt.Errorf("ir: builder: value %d: %w", id, ErrUndefined))
			return false
		}
	}
	return true
}

func (b *Builder) addNode(op string, a Attrs, in []ValueID, opaque bool) *Node {
	id := NodeID(len(b.g.Nodes))
	n := &Node{ID: id, Name: fmt.Sprintf("%s_%d", strings.ToLower(op), id), Op: op, Inputs: append([]ValueID{}, in...), Attrs: a, Opaque: opaque}
	b.g.Nodes = append(b.g.Nodes, n)
	return n
}

// Op adds a node and returns its first output (see OpN).
func (b *Builder) Op(op string, a Attrs, in ...ValueID) ValueID {
	outs := b.OpN(op, a, in...)
	if len(outs) == 0 {
		return -1
	}
	return outs[0]
}

// OpN adds a node of a core op and returns all its outputs, typed by the
// op's shape rule. When the op's View rule says this instance is a pure view,
// the output is a View of input 0. On error it records the error and returns
// nil.
func (b *Builder) OpN(op string, a Attrs, in ...ValueID) []ValueID {
	info, ok := LookupOp(op)
	if !ok {
		b.errs = append(b.errs, fmt.Errorf("ir: builder: %q: %w", op, ErrUnknownOp))
		return nil
	}
	if !b.valid(in) {
		return nil
	}
	types := make([]TensorType, len(in))
	for i, id := range in {
		types[i] = b.g.Values[id].Type()
	}
	n := b.addNode(op, a, in, false)
	if len(in) < info.MinInputs || len(in) > info.MaxInputs {
		b.errs = append(b.errs, &NodeError{Node: n.ID, Name: n.Name, Op: op, Err: fmt.Errorf("%d inputs, want %d..%d: %w", len(in), info.MinInputs, info.MaxInputs, ErrArity)})
		return nil
	}
	outs, err := info.Infer(types, a)
	if err != nil {
		b.errs = append(b.errs, &NodeError{Node: n.ID, Name: n.Name, Op: op, Err: err})
		return nil
	}
	var view *View
	if info.View != nil {
		if off, ok := info.View(types, a); ok {
			view = &View{Base: in[0], OffsetBytes: off}
		}
	}
	return b.finishNode(n, outs, view)
}

func (b *Builder) finishNode(n *Node, outs []TensorType, view *View) []ValueID {
	ids := make([]ValueID, len(outs))
	for i, t := range outs {
		name := n.Name
		if len(outs) > 1 {
			name = fmt.Sprintf("%s:%d", n.Name, i)
		}
		ids[i] = b.addValue(name, t, 0)
		v := b.g.Values[ids[i]]
		v.Producer = n.ID
		v.View = view
	}
	n.Outputs = ids
	return ids
}

// Opaque adds a node of an op outside the core set whose output types are
// given. It can be planned but not run.
func (b *Builder) Opaque(op string, outs []TensorType, in ...ValueID) []ValueID {
	if !b.valid(in) {
		return nil
	}
	return b.finishNode(b.addNode(op, nil, in, true), outs, nil)
}

// View adds a value that is a byte window of base: it starts offsetBytes
// after base's start and has the given type; stridesBytes nil means
// contiguous. No node produces it.
func (b *Builder) View(name string, base ValueID, offsetBytes int64, dt DType, shape Shape, stridesBytes []int64) ValueID {
	if !b.valid([]ValueID{base}) {
		return -1
	}
	id := b.addValue(name, TensorType{dt, shape}, 0)
	var st []int64
	if stridesBytes != nil {
		st = append([]int64{}, stridesBytes...)
	}
	b.g.Values[id].View = &View{Base: base, OffsetBytes: offsetBytes, StridesBytes: st}
	return id
}

// Name renames a value (and, for a node's only output, the node) and returns it.
func (b *Builder) Name(v ValueID, name string) ValueID {
	if !b.valid([]ValueID{v}) {
		return v
	}
	val := b.g.Values[v]
	val.Name = name
	if p := b.g.Node(val.Producer); p != nil && len(p.Outputs) == 1 {
		p.Name = name
	}
	return v
}

// Output marks values as graph outputs.
func (b *Builder) Output(vs ...ValueID) {
	if b.valid(vs) {
		for _, v := range vs {
			b.g.Values[v].Flags |= FlagOutput
		}
	}
}

// Pin marks a value as pinned: the planner never shares its storage. The
// reason is printed by reports.
func (b *Builder) Pin(v ValueID, reason string) {
	if b.valid([]ValueID{v}) {
		b.g.Values[v].Flags |= FlagPinned
		b.g.Values[v].PinReason = reason
	}
}

// KeepAlive makes the node that produces at hold the values keep alive: a
// real use at that node's step, so liveness extends their ranges to it.
func (b *Builder) KeepAlive(at ValueID, keep ...ValueID) {
	if !b.valid(append([]ValueID{at}, keep...)) {
		return
	}
	p := b.g.Node(b.g.Values[at].Producer)
	if p == nil {
		b.errs = append(b.errs, &ValueError{Value: at, Name: b.g.Values[at].Name, Err: fmt.Errorf("keep-alive anchor has no producer node: %w", ErrUndefined)})
		return
	}
	p.KeepAlive = append(p.KeepAlive, keep...)
}

// SetOrder sets an explicit schedule; Build checks it.
func (b *Builder) SetOrder(order []NodeID) { b.g.Order = append([]NodeID{}, order...) }

// Build returns the graph, or every construction and validation error joined.
func (b *Builder) Build() (*Graph, error) {
	if len(b.errs) > 0 {
		return nil, b.Err()
	}
	if err := b.g.Validate(); err != nil {
		return nil, err
	}
	return b.g, nil
}
