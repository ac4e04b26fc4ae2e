package onnx

// Data-movement and view ops, whose shape-like tensor inputs (shape, axes,
// pads, slice bounds, clip limits) the importer folds into attributes.

import (
	"fmt"

	"github.com/memplan/memplan/ir"
)

func mapConcat(c *nodeCtx) (mapped, error) {
	ins, err := c.tensorInputs(len(c.n.GetInput()))
	if err != nil {
		return mapped{}, err
	}
	if !c.has("axis") {
		return mapped{}, fmt.Errorf("Concat needs axis: %w", ErrAttr)
	}
	axis, err := c.attrInt("axis", 0)
	return mapped{op: "Concat", attrs: ir.Attrs{"axis": ir.Int(axis)}, inputs: ins}, err
}

func mapSplit(c *nodeCtx) (mapped, error) {
	ins, err := c.tensorInputs(1)
	if err != nil {
		return mapped{}, err
	}
	axis, err := c.attrInt("axis", 0)
	if err != nil {
		return mapped{}, err
	}
	a := ir.Attrs{"axis": ir.Int(axis)}
	var split []int64
	var ok bool
	if c.imp.opset >= 13 {
		split, ok, err = c.intsInput(1, "split")
	} else {
		split, ok, err = c.attrInts("split")
	}
	if err != nil {
		return mapped{}, err
	}
	switch {
	case ok:
		a["split"] = ir.Ints(split...)
	case c.has("num_outputs"):
		n, err := c.attrInt("num_outputs", 0)
		if err != nil {
			return mapped{}, err
		}
		a["num_outputs"] = ir.Int(n)
	default:
		x, err := c.typeOf(0)
		if err != nil {
			return mapped{}, err
		}
		n := int64(len(c.n.GetOutput()))
		if ax := norm(axis, len(x.Shape)); ax < 0 || ax >= len(x.Shape) || x.Shape[ax]%n != 0 {
			return mapped{}, fmt.Errorf("Split of %v into %d equal parts on axis %d: %w", x.Shape, n, axis, ErrAttr)
		}
		a["num_outputs"] = ir.Int(n)
	}
	return mapped{op: "Split", attrs: a, inputs: ins}, nil
}

func mapTranspose(c *nodeCtx) (mapped, error) {
	ins, err := c.tensorInputs(1)
	if err != nil {
		return mapped{}, err
	}
	a := ir.Attrs{}
	perm, ok, err := c.attrInts("perm")
	if ok {
		a["perm"] = ir.Ints(perm...)
	}
	return mapped{op: "Transpose", attrs: a, inputs: ins}, err
}

func mapGather(c *nodeCtx) (mapped, error) {
	ins, err := c.tensorInputs(2)
	if err != nil {
		return mapped{}, err
	}
	axis, err := c.attrInt("axis", 0)
	return mapped{op: "Gather", attrs: ir.Attrs{"axis": ir.Int(axis)}, inputs: ins}, err
}

func mapExpand(c *nodeCtx) (mapped, error) {
	ins, err := c.tensorInputs(2)
	if err != nil {
		return mapped{}, err
	}
	shape, _, err := c.intsInput(1, "Expand shape")
	return mapped{op: "Expand", attrs: ir.Attrs{"shape": ir.Ints(shape...)}, inputs: ins[:1]}, err
}

func mapPad(c *nodeCtx) (mapped, error) {
	ins, err := c.tensorInputs(2)
	if err != nil {
		return mapped{}, err
	}
	if mode, err := c.attrStr("mode", "constant"); err != nil || mode != "constant" {
		return mapped{opaque: "Pad mode " + mode}, err
	}
	x, err := c.typeOf(0)
	if err != nil {
		return mapped{}, err
	}
	pads, _, err := c.intsInput(1, "Pad pads")
	if err != nil {
		return mapped{}, err
	}
	value := 0.0
	if k, err := c.konstInput(2, "Pad constant_value"); err != nil {
		return mapped{}, err
	} else if k != nil {
		if value, err = k.scalar("Pad constant_value"); err != nil {
			return mapped{}, err
		}
	}
	r := len(x.Shape)
	if axes, ok, err := c.intsInput(3, "Pad axes"); err != nil {
		return mapped{}, err
	} else if ok {
		if len(pads) != 2*len(axes) {
			return mapped{}, fmt.Errorf("Pad pads %v for axes %v: %w", pads, axes, ErrAttr)
		}
		full := make([]int64, 2*r)
		for i, ax := range axes {
			d := norm(ax, r)
			if d < 0 || d >= r {
				return mapped{}, fmt.Errorf("Pad axis %d for rank %d: %w", ax, r, ErrAttr)
			}
			full[d], full[d+r] = pads[i], pads[i+len(axes)]
		}
		pads = full
	}
	return mapped{op: "Pad", attrs: ir.Attrs{"pads": ir.Ints(pads...), "value": ir.Float(value)}, inputs: ins[:1]}, nil
}

func mapSlice(c *nodeCtx) (mapped, error) {
	ins, err := c.tensorInputs(3)
	if err != nil {
		return mapped{}, err
	}
	a := ir.Attrs{}
	for i, k := range []string{"starts", "ends", "axes", "steps"} {
		v, ok, err := c.intsInput(1+i, "Slice "+k)
		if err != nil {
			return mapped{}, err
		}
		if ok {
			a[k] = ir.Ints(v...)
		}
	}
	return mapped{op: "Slice", attrs: a, inputs: ins[:1]}, nil
}

func mapCast(c *nodeCtx) (mapped, error) {
	ins, err := c.tensorInputs(1)
	if err != nil {
		return mapped{}, err
	}
	if !c.has("to") {
		return mapped{}, fmt.Errorf("Cast needs to: %w", ErrAttr)
	}
	to, err := c.attrInt("to", 0)
	if err != nil {
		return mapped{}, err
	}
	dt, err := DType(int32(to))
	if err != nil {
		return mapped{}, err
	}
	return mapped{op: "Cast", attrs: ir.Attrs{"to": ir.Str(dt.String())}, inputs: ins}, nil
}

func mapReshape(c *nodeCtx) (mapped, error) {
	ins, err := c.tensorInputs(2)
	if err != nil {
		return mapped{}, err
	}
	shape, _, err := c.intsInput(1, "Reshape shape")
	if err != nil {
		return mapped{}, err
	}
	if az, err := c.attrInt("allowzero", 0); err != nil {
		return mapped{}, err
	} else if az != 0 {
		for _, d := range shape {
			if d == 0 {
				return mapped{opaque: "Reshape with allowzero and a zero dimension"}, nil
			}
		}
	}
	return mapped{op: "Reshape", attrs: ir.Attrs{"shape": ir.Ints(shape...)}, inputs: ins[:1]}, nil
}

func mapFlatten(c *nodeCtx) (mapped, error) {
	ins, err := c.tensorInputs(1)
	if err != nil {
		return mapped{}, err
	}
	axis, err := c.attrInt("axis", 1)
	return mapped{op: "Flatten", attrs: ir.Attrs{"axis": ir.Int(axis)}, inputs: ins}, err
}

// mapAxesOp: Squeeze and Unsqueeze take axes as an attribute before opset
// 13 and as input 1 from it on.
func mapAxesOp(op string, required bool) mapper {
	return func(c *nodeCtx) (mapped, error) {
		ins, err := c.tensorInputs(1)
		if err != nil {
			return mapped{}, err
		}
		var axes []int64
		var ok bool
		if c.imp.opset >= 13 {
			axes, ok, err = c.intsInput(1, op+" axes")
		} else {
			axes, ok, err = c.attrInts("axes")
		}
		if err != nil {
			return mapped{}, err
		}
		if required && !ok {
			return mapped{}, fmt.Errorf("%s needs axes: %w", op, ErrAttr)
		}
		a := ir.Attrs{}
		if ok {
			a["axes"] = ir.Ints(axes...)
		}
		return mapped{op: op, attrs: a, inputs: ins}, nil
	}
}

// mapDropout: inference only, Dropout is the identity.
func mapDropout(c *nodeCtx) (mapped, error) {
	ins, err := c.tensorInputs(1)
	if err != nil {
		return mapped{}, err
	}
	if c.extraUsed(1) {
		return mapped{opaque: "Dropout mask output"}, nil
	}
	if k, err := c.konstInput(2, "Dropout training_mode"); err != nil {
		return mapped{opaque: "Dropout with a computed training_mode"}, nil
	} else if k != nil && k.len() == 1 && k.i(0) != 0 {
		return mapped{opaque: "Dropout in training mode"}, nil
	}
	return mapped{op: "Identity", attrs: ir.Attrs{}, inputs: ins}, nil
}

// mapClip: min and max are inputs 1 and 2 (optional).
func mapClip(c *nodeCtx) (mapped, error) {
	ins, err := c.tensorInputs(1)
	if err != nil {
		return mapped{}, err
	}
	a := ir.Attrs{}
	for i, k := range []string{"min", "max"} {
		kv, err := c.konstInput(1+i, "Clip "+k)
		if err != nil {
			return mapped{}, err
		}
		if kv == nil {
			continue // ir's default: unbounded
		}
		v, err := kv.scalar("Clip " + k)
		if err != nil {
			return mapped{}, err
		}
		a[k] = ir.Float(v)
	}
	return mapped{op: "Clip", attrs: a, inputs: ins}, nil
}
