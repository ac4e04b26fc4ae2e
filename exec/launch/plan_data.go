package launch

// Launch planning for data movement: copies in logical order (reshape,
// transpose, expand, slice, and one launch per piece of Concat and Split),
// gather, constant pad and dtype casts.

import (
	"math"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/ir"
)

// copyLaunch adds one copy of n elements.
func (p *planState) copyLaunch(in, out exec.Binding, a CopyParams) error {
	kernel, err := p.sizeKernel("copy", out.DType)
	if err != nil {
		return err
	}
	p.add(kernel, a, int64(a.N), []exec.Binding{in, out}, false, true)
	return nil
}

// simpleCopy copies in to out in logical flat order, in described by inDesc.
func (p *planState) simpleCopy(inDesc func(operand) (Tensor, error), base int64) error {
	in, out := p.d.Inputs[0], p.d.Outputs[0]
	if in.DType.Size() != out.DType.Size() {
		return p.errorf(ErrUnsupported, "%v to %v", in.DType, out.DType)
	}
	ops, err := p.operands(in, out)
	if err != nil {
		return err
	}
	a := CopyParams{N: int32(Numel(out.Shape)), InBase: int32(base)}
	if a.In, err = inDesc(ops[0]); err != nil {
		return p.errorf(err, "input")
	}
	if a.Out, err = ops[1].own(); err != nil {
		return p.errorf(err, "output")
	}
	if Numel(out.Shape) != a.In.Numel() {
		return p.errorf(ErrUnsupported, "input has %d elements, output %d", a.In.Numel(), Numel(out.Shape))
	}
	return p.copyLaunch(in, out, a)
}

func (p *planState) reshape() error {
	return p.simpleCopy(operand.own, 0)
}

func (p *planState) transpose() error {
	rank := len(p.d.Inputs[0].Shape)
	perm64 := p.d.Attrs.GetInts("perm", nil)
	perm := make([]int, rank)
	for k := range perm {
		perm[k] = rank - 1 - k
		if perm64 != nil {
			if len(perm64) != rank || perm64[k] < 0 || perm64[k] >= int64(rank) {
				return p.errorf(ErrUnsupported, "perm %v for rank %d", perm64, rank)
			}
			perm[k] = int(perm64[k])
		}
	}
	return p.simpleCopy(func(o operand) (Tensor, error) { return o.permuted(perm) }, 0)
}

func (p *planState) expand() error {
	out := p.d.Outputs[0].Shape
	return p.simpleCopy(func(o operand) (Tensor, error) { return o.broadcastTo(out) }, 0)
}

func (p *planState) slice() error {
	in, out := p.d.Inputs[0], p.d.Outputs[0]
	rank := len(in.Shape)
	starts := p.d.Attrs.GetInts("starts", nil)
	axes := p.d.Attrs.GetInts("axes", nil)
	steps := p.d.Attrs.GetInts("steps", nil)
	if axes == nil {
		for k := range starts {
			axes = append(axes, int64(k))
		}
	}
	if len(axes) != len(starts) || steps != nil && len(steps) != len(starts) || len(out.Shape) != rank {
		return p.errorf(ErrUnsupported, "starts %v axes %v steps %v", starts, axes, steps)
	}
	start := make([]int64, rank)
	step := make([]int64, rank)
	for k := range step {
		step[k] = 1
	}
	for i, ax := range axes {
		k, ok := normAxis(ax, rank)
		if !ok {
			return p.errorf(ErrUnsupported, "axis %d of rank %d", ax, rank)
		}
		if steps != nil {
			step[k] = steps[i]
		}
		dim, s := in.Shape[k], starts[i]
		if s < 0 {
			s += dim
		}
		hi := dim
		if step[k] < 0 {
			hi = dim - 1
		}
		start[k] = min(max(s, 0), hi)
		if step[k] == 0 {
			return p.errorf(ErrUnsupported, "step 0 on axis %d", k)
		}
	}
	var base int64
	o, err := operandOf(in)
	if err != nil {
		return p.errorf(err, "input")
	}
	for k := range start {
		if out.Shape[k] > 0 {
			base += start[k] * o.strides[k]
		}
	}
	return p.simpleCopy(func(o operand) (Tensor, error) {
		strides := make([]int64, rank)
		for k := range strides {
			strides[k] = o.strides[k] * step[k]
		}
		return desc(o.b.Value, out.Shape, strides)
	}, base)
}

func (p *planState) concat() error {
	out := p.d.Outputs[0]
	ops, err := p.operands(out)
	if err != nil {
		return err
	}
	axis, ok := normAxis(p.d.Attrs.GetInt("axis", 0), len(out.Shape))
	if !ok {
		return p.errorf(ErrUnsupported, "axis %d", p.d.Attrs.GetInt("axis", 0))
	}
	var at int64
	for i, in := range p.d.Inputs {
		if in.DType.Size() != out.DType.Size() || len(in.Shape) != len(out.Shape) {
			return p.errorf(ErrUnsupported, "input %d is %v%v", i, in.DType, in.Shape)
		}
		io, err := p.operands(in)
		if err != nil {
			return err
		}
		a := CopyParams{N: int32(Numel(in.Shape)), OutBase: int32(at * ops[0].strides[axis])}
		if a.In, err = io[0].own(); err != nil {
			return p.errorf(err, "input %d", i)
		}
		if a.Out, err = desc(out.Value, in.Shape, ops[0].strides); err != nil {
			return p.errorf(err, "output")
		}
		if a.N > 0 {
			if err := p.copyLaunch(in, out, a); err != nil {
				return err
			}
		}
		at += in.Shape[axis]
	}
	if at != out.Shape[axis] {
		return p.errorf(ErrUnsupported, "inputs cover %d of %d along axis %d", at, out.Shape[axis], axis)
	}
	return nil
}

func (p *planState) split() error {
	in := p.d.Inputs[0]
	ops, err := p.operands(in)
	if err != nil {
		return err
	}
	axis, ok := normAxis(p.d.Attrs.GetInt("axis", 0), len(in.Shape))
	if !ok {
		return p.errorf(ErrUnsupported, "axis %d", p.d.Attrs.GetInt("axis", 0))
	}
	var at int64
	for j, out := range p.d.Outputs {
		if in.DType.Size() != out.DType.Size() || len(in.Shape) != len(out.Shape) {
			return p.errorf(ErrUnsupported, "output %d is %v%v", j, out.DType, out.Shape)
		}
		oo, err := p.operands(out)
		if err != nil {
			return err
		}
		a := CopyParams{N: int32(Numel(out.Shape)), InBase: int32(at * ops[0].strides[axis])}
		if a.In, err = desc(in.Value, out.Shape, ops[0].strides); err != nil {
			return p.errorf(err, "input")
		}
		if a.Out, err = oo[0].own(); err != nil {
			return p.errorf(err, "output %d", j)
		}
		if a.N > 0 {
			if err := p.copyLaunch(in, out, a); err != nil {
				return err
			}
		}
		at += out.Shape[axis]
	}
	if at > in.Shape[axis] {
		return p.errorf(ErrUnsupported, "outputs cover %d of %d along axis %d", at, in.Shape[axis], axis)
	}
	return nil
}

func (p *planState) gather() error {
	x, idx, out := p.d.Inputs[0], p.d.Inputs[1], p.d.Outputs[0]
	if idx.DType != ir.I64 && idx.DType != ir.I32 {
		return p.errorf(ErrUnsupported, "indices are %v", idx.DType)
	}
	kernel, err := p.sizeKernel("gather", out.DType)
	if err != nil {
		return err
	}
	ops, err := p.operands(x, idx, out)
	if err != nil {
		return err
	}
	axis, ok := normAxis(p.d.Attrs.GetInt("axis", 0), len(x.Shape))
	if !ok || len(out.Shape) != len(x.Shape)-1+len(idx.Shape) {
		return p.errorf(ErrUnsupported, "axis %d, shapes %v %v -> %v", p.d.Attrs.GetInt("axis", 0), x.Shape, idx.Shape, out.Shape)
	}
	a := GatherParams{N: int32(Numel(out.Shape)), Axis: int32(axis), IdxRank: int32(len(idx.Shape)), AxisLen: int32(x.Shape[axis])}
	if idx.DType == ir.I64 {
		a.IdxI64 = 1
	}
	if a.X, err = ops[0].own(); err != nil {
		return p.errorf(err, "data")
	}
	if a.Idx, err = ops[1].own(); err != nil {
		return p.errorf(err, "indices")
	}
	if a.Out, err = ops[2].own(); err != nil {
		return p.errorf(err, "output")
	}
	p.add(kernel, a, int64(a.N), []exec.Binding{x, idx, out}, false, false, true)
	return nil
}

func (p *planState) pad() error {
	in, out := p.d.Inputs[0], p.d.Outputs[0]
	ops, err := p.f32Operands(in, out)
	if err != nil {
		return err
	}
	rank := len(in.Shape)
	pads := p.d.Attrs.GetInts("pads", nil)
	if len(pads) != 2*rank || len(out.Shape) != rank {
		return p.errorf(ErrUnsupported, "pads %v for rank %d", pads, rank)
	}
	if mode := p.d.Attrs.GetStr("mode", "constant"); mode != "constant" {
		return p.errorf(ErrUnsupported, "mode %q", mode)
	}
	a := PadParams{N: int32(Numel(out.Shape)), Value: float32(p.d.Attrs.GetFloat("value", 0))}
	for k := 0; k < rank; k++ {
		if pads[k] > math.MaxInt32 || pads[k] < math.MinInt32 {
			return p.errorf(ErrTooLarge, "pad %d", pads[k])
		}
		a.Begin[k] = int32(pads[k])
	}
	if a.In, err = ops[0].own(); err != nil {
		return p.errorf(err, "input")
	}
	if a.Out, err = ops[1].own(); err != nil {
		return p.errorf(err, "output")
	}
	p.add("pad_f32", a, int64(a.N), []exec.Binding{in, out}, false, true)
	return nil
}

func castCode(dt ir.DType) int32 {
	switch dt {
	case ir.F32:
		return CastF32
	case ir.F16:
		return CastF16
	case ir.I64:
		return CastI64
	case ir.I32:
		return CastI32
	case ir.I8:
		return CastI8
	case ir.U8:
		return CastU8
	case ir.Bool:
		return CastBool
	}
	return -1
}

func (p *planState) cast() error {
	in, out := p.d.Inputs[0], p.d.Outputs[0]
	if in.DType == out.DType {
		return p.reshape()
	}
	from, to := castCode(in.DType), castCode(out.DType)
	if from < 0 || to < 0 {
		return p.errorf(ErrUnsupported, "cast %v to %v", in.DType, out.DType)
	}
	ops, err := p.operands(in, out)
	if err != nil {
		return err
	}
	a := CastParams{N: int32(Numel(out.Shape)), From: from, To: to}
	if a.In, err = ops[0].own(); err != nil {
		return p.errorf(err, "input")
	}
	if a.Out, err = ops[1].own(); err != nil {
		return p.errorf(err, "output")
	}
	p.add("cast_any", a, int64(a.N), []exec.Binding{in, out}, false, true)
	return nil
}
