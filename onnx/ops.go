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
	mappers["RMSNormalization"] = mapRMSNorm
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

func mapRMSNorm(c *nodeCtx) (mapped, error) {
	ins, err := c.tensorInputs(2)
	if err != nil {
		return mapped{}, err
	}
	axis, err1 := c.attrInt("axis", -1)
	eps, err2 := c.attrFloat("epsilon", 1e-5)
	return mapped{op: "RMSNorm", attrs: ir.Attrs{"axis": ir.Int(axis), "epsilon": ir.Float(eps)}, inputs: ins}, firstErr(err1, err2)
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
