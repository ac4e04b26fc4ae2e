package onnx

// Ops that make values known at import time and have no ir counterpart:
// Constant, Shape, Size, Range, Not (on a known input) and ConstantOfShape
// (which becomes an Expand of its one-element value, folded when small).

import (
	"fmt"
	"math"

	"github.com/memplan/memplan/ir"
)

// special handles the ops that produce values known at import time and have
// no ir counterpart: Constant, Shape, Size, Range, Not, ConstantOfShape.
func (c *nodeCtx) special() (bool, error) {
	out := c.output(0)
	switch c.n.GetOpType() {
	case "Constant":
		t, err := c.constantValue()
		if err != nil {
			return true, err
		}
		t.Name = out
		e := c.imp.tensorEntry(t, ir.FlagConstant)
		if t.Data == nil {
			return true, fmt.Errorf("constant %q has no data: %w", out, ErrTensor)
		}
		return true, c.define(out, e)
	case "Shape", "Size":
		t, err := c.typeOf(0)
		if err != nil {
			return true, err
		}
		if c.n.GetOpType() == "Size" {
			n, _ := t.Shape.NumElements()
			return true, c.defineKonst(out, &konst{dt: ir.I64, shape: ir.Shape{}, ints: []int64{n}})
		}
		start, err := c.attrInt("start", 0)
		if err != nil {
			return true, err
		}
		end, err := c.attrInt("end", math.MaxInt64)
		if err != nil {
			return true, err
		}
		return true, c.defineKonst(out, shapeKonst(t, start, end))
	case "Range":
		k, err := c.foldRange()
		if err != nil || k == nil {
			return k != nil || err != nil, err
		}
		return true, c.defineKonst(out, k)
	case "Not":
		in, err := c.konstInput(0, "Not input")
		if err != nil || in == nil {
			return false, nil // not known: opaque (Not is outside the core set)
		}
		k, _ := newKonst(ir.Bool, in.shape)
		for i := range k.ints {
			k.ints[i] = b2i(in.ints[i] == 0)
		}
		return true, c.defineKonst(out, k)
	case "ConstantOfShape":
		return true, c.constantOfShape()
	}
	return false, nil
}

// constantValue decodes the one value attribute of a Constant node.
func (c *nodeCtx) constantValue() (*Tensor, error) {
	for _, a := range c.n.GetAttribute() {
		switch a.GetName() {
		case "value":
			if a.GetT() == nil {
				return nil, fmt.Errorf("attribute value holds no tensor: %w", ErrAttr)
			}
			return DecodeTensor(a.GetT())
		case "value_float":
			return konstTensor(&konst{dt: ir.F32, shape: ir.Shape{}, floats: []float64{float64(a.GetF())}}), nil
		case "value_floats":
			k := &konst{dt: ir.F32, shape: ir.Shape{int64(len(a.GetFloats()))}}
			for _, f := range a.GetFloats() {
				k.floats = append(k.floats, float64(f))
			}
			return konstTensor(k), nil
		case "value_int":
			return konstTensor(&konst{dt: ir.I64, shape: ir.Shape{}, ints: []int64{a.GetI()}}), nil
		case "value_ints":
			return konstTensor(&konst{dt: ir.I64, shape: ir.Shape{int64(len(a.GetInts()))}, ints: append([]int64{}, a.GetInts()...)}), nil
		}
	}
	return nil, fmt.Errorf("Constant needs a value, value_float(s) or value_int(s) attribute: %w", ErrAttr)
}

func konstTensor(k *konst) *Tensor {
	return &Tensor{DType: k.dt, Shape: k.shape, Data: k.bytes()}
}

// foldRange evaluates Range(start, limit, delta) on known scalars; nil, nil
// when they are not known (the node then goes opaque).
func (c *nodeCtx) foldRange() (*konst, error) {
	var ks [3]*konst
	for i := range ks {
		k, err := c.konstInput(i, "Range operand")
		if err != nil || k == nil {
			return nil, nil
		}
		if k.len() != 1 {
			return nil, fmt.Errorf("Range operand %d has shape %v, want a scalar: %w", i, k.shape, ErrAttr)
		}
		ks[i] = k
	}
	start, limit, delta := ks[0].f(0), ks[1].f(0), ks[2].f(0)
	if delta == 0 || math.IsNaN(start+limit+delta) {
		return nil, fmt.Errorf("Range(%v, %v, %v): %w", start, limit, delta, ErrFold)
	}
	n := math.Max(math.Ceil((limit-start)/delta), 0)
	if n > float64(c.imp.opts.FoldLimit) {
		return nil, fmt.Errorf("Range of %v elements exceeds the fold limit %d: %w", n, c.imp.opts.FoldLimit, ErrFold)
	}
	k, err := newKonst(ks[0].dt, ir.Shape{int64(n)})
	if err != nil {
		return nil, err
	}
	for i := range int(n) {
		if k.dt.IsFloat() {
			k.setF(i, start+float64(i)*delta)
		} else {
			k.setI(i, ks[0].ints[0]+int64(i)*ks[2].ints[0])
		}
	}
	return k, nil
}

// constantOfShape becomes Expand of a one-element constant, which folds
// when the result is small and is a real node when it is not.
func (c *nodeCtx) constantOfShape() error {
	shape, ok, err := c.intsInput(0, "ConstantOfShape shape")
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("ConstantOfShape needs a shape: %w", ErrNotConstant)
	}
	val := &Tensor{DType: ir.F32, Shape: ir.Shape{1}, Data: make([]byte, 4)}
	if a := c.attrs["value"]; a != nil {
		if val, err = DecodeTensor(a.GetT()); err != nil {
			return err
		}
		if n, _ := val.Shape.NumElements(); n != 1 || val.Data == nil {
			return fmt.Errorf("ConstantOfShape value has shape %v, want one element: %w", val.Shape, ErrAttr)
		}
	}
	val.Shape = ir.Shape{1}
	scalar := c.output(0) + "/value"
	if err := c.define(scalar, c.imp.tensorEntry(val, ir.FlagConstant)); err != nil {
		return err
	}
	if len(shape) == 0 { // a scalar result: Reshape the one element to []
		return c.apply(mapped{op: "Reshape", attrs: ir.Attrs{"shape": ir.Ints()}, inputs: []string{scalar}}, c.n.GetOutput())
	}
	return c.apply(mapped{op: "Expand", attrs: ir.Attrs{"shape": ir.Ints(shape...)}, inputs: []string{scalar}}, c.n.GetOutput())
}
