package onnx

// Mapping ONNX ops onto memplan's core ops. Each mapper reads the node's
// attributes, folds the tensor inputs that memplan keeps as attributes
// (Reshape's shape, Slice's bounds, Pad's pads, Clip's limits, axes lists)
// and names the inputs that stay tensors. A node whose attributes ask for
// something the core op cannot do (Pad in reflect mode, MaxPool's indices
// output, a 3-D convolution) maps to opaque with the reason.

import (
	"fmt"

	"github.com/memplan/memplan/ir"
)

type mapper func(c *nodeCtx) (mapped, error)

var mappers = map[string]mapper{}

func init() {
	for _, op := range []string{"Relu", "Sigmoid", "Tanh", "Erf", "Sqrt", "Neg", "Exp", "Log", "Abs", "Sin", "Cos", "Reciprocal", "HardSwish", "Identity", "GlobalAveragePool"} {
		mappers[op] = direct(op, 1)
	}
	for _, op := range []string{"Add", "Sub", "Mul", "Div", "Equal", "Less", "Greater", "MatMul"} {
		mappers[op] = direct(op, 2)
	}
	mappers["Where"] = direct("Where", 3)
	mappers["Max"] = variadic("Max")
	mappers["Min"] = variadic("Min")
	mappers["Sum"] = variadic("Add")
	mappers["Pow"] = mapPow
	mappers["HardSigmoid"] = mapHardSigmoid
	mappers["Gelu"] = mapGelu
	mappers["Gemm"] = mapGemm
	mappers["Conv"] = mapConv
	mappers["ConvTranspose"] = mapConvTranspose
	mappers["BatchNormalization"] = mapBatchNorm
	mappers["LayerNormalization"] = mapLayerNorm
	mappers["Softmax"] = mapSoftmax("Softmax")
	mappers["LogSoftmax"] = mapSoftmax("LogSoftmax")
	mappers["ReduceMean"] = mapReduce("ReduceMean", 18)
	mappers["ReduceSum"] = mapReduce("ReduceSum", 13)
	mappers["ReduceMax"] = mapReduce("ReduceMax", 18)
	mappers["MaxPool"] = mapPool("MaxPool")
	mappers["AveragePool"] = mapPool("AveragePool")
	mappers["Concat"] = mapConcat
	mappers["Split"] = mapSplit
	mappers["Transpose"] = mapTranspose
	mappers["Gather"] = mapGather
	mappers["Expand"] = mapExpand
	mappers["Pad"] = mapPad
	mappers["Slice"] = mapSlice
	mappers["Cast"] = mapCast
	mappers["Reshape"] = mapReshape
	mappers["Flatten"] = mapFlatten
	mappers["Squeeze"] = mapAxesOp("Squeeze", false)
	mappers["Unsqueeze"] = mapAxesOp("Unsqueeze", true)
	mappers["Dropout"] = mapDropout
	mappers["Clip"] = mapClip
}

// tensorInputs returns the node's first n input names, requiring the
// non-optional ones.
func (c *nodeCtx) tensorInputs(n int) ([]string, error) {
	if len(c.n.GetInput()) < n {
		return nil, fmt.Errorf("%d inputs, want %d: %w", len(c.n.GetInput()), n, ErrAttr)
	}
	ins := c.n.GetInput()[:n]
	for i, in := range ins {
		if in == "" {
			return nil, fmt.Errorf("input %d is required: %w", i, ErrAttr)
		}
	}
	return append([]string{}, ins...), nil
}

func direct(op string, n int) mapper {
	return func(c *nodeCtx) (mapped, error) {
		ins, err := c.tensorInputs(n)
		return mapped{op: op, attrs: ir.Attrs{}, inputs: ins}, err
	}
}

func variadic(op string) mapper {
	return func(c *nodeCtx) (mapped, error) {
		ins, err := c.tensorInputs(max(1, len(c.n.GetInput())))
		if len(ins) == 1 {
			return mapped{op: "Identity", attrs: ir.Attrs{}, inputs: ins}, err
		}
		return mapped{op: op, attrs: ir.Attrs{}, inputs: ins, chain: true}, err
	}
}

// mapPow casts a known exponent of another dtype (ONNX allows f32^i64) to
// the base's dtype, as memplan's binary ops take one dtype.
func mapPow(c *nodeCtx) (mapped, error) {
	ins, err := c.tensorInputs(2)
	if err != nil {
		return mapped{}, err
	}
	base, _ := c.typeOf(0)
	exp := c.imp.ents[ins[1]]
	if exp.typed && exp.typ.DType != base.DType {
		if exp.k == nil || !foldable(base.DType) {
			return mapped{opaque: fmt.Sprintf("Pow of %v to a computed %v exponent", base.DType, exp.typ.DType)}, nil
		}
		k, _ := newKonst(base.DType, exp.k.shape)
		for i := range k.len() {
			copyElem(k, i, exp.k, i)
		}
		name := ins[1] + "/as_" + base.DType.String()
		if c.imp.ents[name] == nil {
			if err := c.defineKonst(name, k); err != nil {
				return mapped{}, err
			}
		}
		ins[1] = name
	}
	return mapped{op: "Pow", attrs: ir.Attrs{}, inputs: ins}, nil
}

func mapHardSigmoid(c *nodeCtx) (mapped, error) {
	ins, err := c.tensorInputs(1)
	if err != nil {
		return mapped{}, err
	}
	alpha, err1 := c.attrFloat("alpha", 0.2)
	beta, err2 := c.attrFloat("beta", 0.5)
	return mapped{op: "HardSigmoid", attrs: ir.Attrs{"alpha": ir.Float(alpha), "beta": ir.Float(beta)}, inputs: ins}, firstErr(err, err1, err2)
}

func mapGelu(c *nodeCtx) (mapped, error) {
	ins, err := c.tensorInputs(1)
	if err != nil {
		return mapped{}, err
	}
	ap, err := c.attrStr("approximate", "none")
	return mapped{op: "Gelu", attrs: ir.Attrs{"approximate": ir.Str(ap)}, inputs: ins}, err
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// optionalInputs appends the inputs from index from on that are present,
// stopping at the first absent one.
func (c *nodeCtx) optionalInputs(ins []string, from, to int) []string {
	for i := from; i < to; i++ {
		if c.input(i) == "" {
			break
		}
		ins = append(ins, c.input(i))
	}
	return ins
}

func mapGemm(c *nodeCtx) (mapped, error) {
	ins, err := c.tensorInputs(2)
	if err != nil {
		return mapped{}, err
	}
	ins = c.optionalInputs(ins, 2, 3)
	a := ir.Attrs{}
	for _, k := range []string{"transA", "transB"} {
		v, err := c.attrInt(k, 0)
		if err != nil {
			return mapped{}, err
		}
		a[k] = ir.Int(v)
	}
	for _, k := range []string{"alpha", "beta"} {
		v, err := c.attrFloat(k, 1)
		if err != nil {
			return mapped{}, err
		}
		a[k] = ir.Float(v)
	}
	return mapped{op: "Gemm", attrs: a, inputs: ins}, nil
}

// window reads the 2-D sliding-window attributes shared by Conv and the
// pools, resolving auto_pad to explicit pads [top, left, bottom, right].
// kernel is the window's extent (from kernel_shape or the weight).
func (c *nodeCtx) window(a ir.Attrs, x ir.Shape, kernel []int64, withDilations bool) (string, error) {
	if len(x) != 4 || len(kernel) != 2 {
		return fmt.Sprintf("only 2-D windows are supported (input %v, kernel %v)", x, kernel), nil
	}
	strides, ok, err := c.attrInts("strides")
	if err != nil {
		return "", err
	}
	if !ok {
		strides = []int64{1, 1}
	}
	dil, ok, err := c.attrInts("dilations")
	if err != nil {
		return "", err
	}
	if !ok {
		dil = []int64{1, 1}
	}
	pads, ok, err := c.attrInts("pads")
	if err != nil {
		return "", err
	}
	if !ok {
		pads = []int64{0, 0, 0, 0}
	}
	if len(strides) != 2 || len(dil) != 2 || len(pads) != 4 {
		return "", fmt.Errorf("strides %v, dilations %v, pads %v: want 2, 2 and 4 entries: %w", strides, dil, pads, ErrAttr)
	}
	autoPad, err := c.attrStr("auto_pad", "NOTSET")
	if err != nil {
		return "", err
	}
	switch autoPad {
	case "NOTSET":
	case "VALID":
		pads = []int64{0, 0, 0, 0}
	case "SAME_UPPER", "SAME_LOWER":
		// Output extent ceil(in/stride); the padding that achieves it is
		// split evenly, the odd element going to the end (UPPER) or the
		// beginning (LOWER).
		for i := range 2 {
			if strides[i] < 1 {
				return "", fmt.Errorf("strides %v: %w", strides, ErrAttr)
			}
			out := (x[2+i] + strides[i] - 1) / strides[i]
			total := max(0, (out-1)*strides[i]+(kernel[i]-1)*dil[i]+1-x[2+i])
			lo := total / 2
			if autoPad == "SAME_LOWER" {
				lo = total - total/2
			}
			pads[i], pads[i+2] = lo, total-lo
		}
	default:
		return "", fmt.Errorf("auto_pad %q: %w", autoPad, ErrAttr)
	}
	a["strides"], a["pads"] = ir.Ints(strides...), ir.Ints(pads...)
	if withDilations {
		a["dilations"] = ir.Ints(dil...)
	} else if dil[0] != 1 || dil[1] != 1 {
		return fmt.Sprintf("dilations %v", dil), nil
	}
	return "", nil
}

func mapConv(c *nodeCtx) (mapped, error) {
	ins, err := c.tensorInputs(2)
	if err != nil {
		return mapped{}, err
	}
	ins = c.optionalInputs(ins, 2, 3)
	x, err := c.typeOf(0)
	if err != nil {
		return mapped{}, err
	}
	w, err := c.typeOf(1)
	if err != nil {
		return mapped{}, err
	}
	group, err := c.attrInt("group", 1)
	if err != nil {
		return mapped{}, err
	}
	a := ir.Attrs{"group": ir.Int(group)}
	if len(w.Shape) != 4 {
		return mapped{opaque: fmt.Sprintf("only 2-D convolutions are supported (weight %v)", w.Shape)}, nil
	}
	reason, err := c.window(a, x.Shape, w.Shape[2:], true)
	return mapped{op: "Conv", attrs: a, inputs: ins, opaque: reason}, err
}

func mapConvTranspose(c *nodeCtx) (mapped, error) {
	ins, err := c.tensorInputs(2)
	if err != nil {
		return mapped{}, err
	}
	ins = c.optionalInputs(ins, 2, 3)
	x, err := c.typeOf(0)
	if err != nil {
		return mapped{}, err
	}
	w, err := c.typeOf(1)
	if err != nil {
		return mapped{}, err
	}
	if c.has("output_shape") {
		return mapped{opaque: "ConvTranspose with output_shape"}, nil
	}
	if ap, _ := c.attrStr("auto_pad", "NOTSET"); ap != "NOTSET" && ap != "VALID" {
		return mapped{opaque: "ConvTranspose with auto_pad " + ap}, nil
	}
	if len(w.Shape) != 4 {
		return mapped{opaque: fmt.Sprintf("only 2-D transposed convolutions are supported (weight %v)", w.Shape)}, nil
	}
	group, err := c.attrInt("group", 1)
	if err != nil {
		return mapped{}, err
	}
	a := ir.Attrs{"group": ir.Int(group)}
	if op, ok, err := c.attrInts("output_padding"); err != nil {
		return mapped{}, err
	} else if ok {
		a["output_padding"] = ir.Ints(op...)
	}
	reason, err := c.window(a, x.Shape, w.Shape[2:], true)
	return mapped{op: "ConvTranspose", attrs: a, inputs: ins, opaque: reason}, err
}

func mapBatchNorm(c *nodeCtx) (mapped, error) {
	ins, err := c.tensorInputs(5)
	if err != nil {
		return mapped{}, err
	}
	if tm, err := c.attrInt("training_mode", 0); err != nil || tm != 0 {
		return mapped{opaque: "BatchNormalization in training mode"}, err
	}
	if c.extraUsed(1) {
		return mapped{opaque: "BatchNormalization running statistics outputs"}, nil
	}
	eps, err := c.attrFloat("epsilon", 1e-5)
	return mapped{op: "BatchNorm", attrs: ir.Attrs{"epsilon": ir.Float(eps)}, inputs: ins}, err
}

func mapLayerNorm(c *nodeCtx) (mapped, error) {
	ins, err := c.tensorInputs(2)
	if err != nil {
		return mapped{}, err
	}
	ins = c.optionalInputs(ins, 2, 3)
	if c.extraUsed(1) {
		return mapped{opaque: "LayerNormalization mean / inverse std outputs"}, nil
	}
	axis, err1 := c.attrInt("axis", -1)
	eps, err2 := c.attrFloat("epsilon", 1e-5)
	return mapped{op: "LayerNorm", attrs: ir.Attrs{"axis": ir.Int(axis), "epsilon": ir.Float(eps)}, inputs: ins}, firstErr(err1, err2)
}

// mapSoftmax: from opset 13 the axis is the one reduced over (default -1);
// before, the input was flattened to 2-D at the axis (default 1), which is
// the same thing only when the axis is the last one.
func mapSoftmax(op string) mapper {
	return func(c *nodeCtx) (mapped, error) {
		ins, err := c.tensorInputs(1)
		if err != nil {
			return mapped{}, err
		}
		x, err := c.typeOf(0)
		if err != nil {
			return mapped{}, err
		}
		def := int64(-1)
		if c.imp.opset < 13 {
			def = 1
		}
		axis, err := c.attrInt("axis", def)
		if err != nil {
			return mapped{}, err
		}
		if c.imp.opset < 13 && norm(axis, len(x.Shape)) != len(x.Shape)-1 {
			return mapped{opaque: fmt.Sprintf("%s before opset 13 on axis %d of rank %d (coerced to 2-D)", op, axis, len(x.Shape))}, nil
		}
		return mapped{op: op, attrs: ir.Attrs{"axis": ir.Int(axis)}, inputs: ins}, nil
	}
}

// mapReduce: axes are an attribute before inputFrom and input 1 from it on.
func mapReduce(op string, inputFrom int64) mapper {
	return func(c *nodeCtx) (mapped, error) {
		ins, err := c.tensorInputs(1)
		if err != nil {
			return mapped{}, err
		}
		var axes []int64
		if c.imp.opset >= inputFrom {
			axes, _, err = c.intsInput(1, "axes")
		} else {
			axes, _, err = c.attrInts("axes")
		}
		if err != nil {
			return mapped{}, err
		}
		keep, err1 := c.attrInt("keepdims", 1)
		noop, err2 := c.attrInt("noop_with_empty_axes", 0)
		if err := firstErr(err1, err2); err != nil {
			return mapped{}, err
		}
		if len(axes) == 0 && noop != 0 {
			return mapped{op: "Identity", attrs: ir.Attrs{}, inputs: ins}, nil
		}
		a := ir.Attrs{"keepdims": ir.Int(keep)}
		if len(axes) > 0 {
			a["axes"] = ir.Ints(axes...)
		}
		return mapped{op: op, attrs: a, inputs: ins}, nil
	}
}

func mapPool(op string) mapper {
	return func(c *nodeCtx) (mapped, error) {
		ins, err := c.tensorInputs(1)
		if err != nil {
			return mapped{}, err
		}
		x, err := c.typeOf(0)
		if err != nil {
			return mapped{}, err
		}
		if c.extraUsed(1) {
			return mapped{opaque: op + " indices output"}, nil
		}
		if so, err := c.attrInt("storage_order", 0); err != nil || so != 0 {
			return mapped{opaque: op + " with column-major storage_order"}, err
		}
		ks, ok, err := c.attrInts("kernel_shape")
		if err != nil {
			return mapped{}, err
		}
		if !ok {
			return mapped{}, fmt.Errorf("%s needs kernel_shape: %w", op, ErrAttr)
		}
		ceil, err := c.attrInt("ceil_mode", 0)
		if err != nil {
			return mapped{}, err
		}
		a := ir.Attrs{"kernel_shape": ir.Ints(ks...), "ceil_mode": ir.Int(ceil)}
		if op == "AveragePool" {
			cip, err := c.attrInt("count_include_pad", 0)
			if err != nil {
				return mapped{}, err
			}
			a["count_include_pad"] = ir.Int(cip)
		}
		reason, err := c.window(a, x.Shape, ks, true)
		return mapped{op: op, attrs: a, inputs: ins, opaque: reason}, err
	}
}

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
