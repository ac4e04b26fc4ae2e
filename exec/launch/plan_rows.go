package launch

// Launch planning for the row kernels (softmax, layer and RMS norm,
// reductions) and batch norm. A row kernel sees X as [Rows, Cols] through a
// permuted descriptor: softmax moves its axis last, a reduction moves the
// reduced axes last, a norm flattens the axes from its axis on.

import (
	"github.com/memplan/memplan/exec"
)

// rows binds a row kernel: x, scale, bias (x again when absent), out.
func (p *planState) rows(a RowParams, x, scale, bias, out exec.Binding) {
	p.add("rows_f32", a, int64(a.Rows), []exec.Binding{x, scale, bias, out}, false, false, false, true)
}

func (p *planState) softmax() error {
	in, out := p.d.Inputs[0], p.d.Outputs[0]
	ops, err := p.f32Operands(in, out)
	if err != nil {
		return err
	}
	rank := len(in.Shape)
	axis, ok := normAxis(p.d.Attrs.GetInt("axis", -1), rank)
	if !ok {
		return p.errorf(ErrUnsupported, "axis %d of rank %d", p.d.Attrs.GetInt("axis", -1), rank)
	}
	perm := make([]int, 0, rank)
	for k := 0; k < rank; k++ {
		if k != axis {
			perm = append(perm, k)
		}
	}
	perm = append(perm, axis)
	a := RowParams{Op: RowSoftmax, Cols: int32(in.Shape[axis])}
	if p.d.Op == "LogSoftmax" {
		a.Op = RowLogSoftmax
	}
	if a.Cols > 0 {
		a.Rows = int32(Numel(in.Shape) / in.Shape[axis])
	}
	if a.X, err = ops[0].permuted(perm); err != nil {
		return p.errorf(err, "input")
	}
	if a.Out, err = ops[1].permuted(perm); err != nil {
		return p.errorf(err, "output")
	}
	a.Scale, a.Bias = a.X, a.X
	p.rows(a, in, in, in, out)
	return nil
}

func (p *planState) norm() error {
	in := p.d.Inputs
	out := p.d.Outputs[0]
	ops, err := p.f32Operands(append(append([]exec.Binding{}, in...), out)...)
	if err != nil {
		return err
	}
	rank := len(in[0].Shape)
	a := RowParams{Op: RowLayerNorm, Eps: float32(p.d.Attrs.GetFloat("epsilon", 1e-5))}
	if p.d.Op == "RMSNorm" {
		a.Op, a.Eps = RowRMSNorm, float32(p.d.Attrs.GetFloat("epsilon", 1e-6))
	}
	axis, ok := normAxis(p.d.Attrs.GetInt("axis", -1), rank)
	if !ok {
		return p.errorf(ErrUnsupported, "axis %d of rank %d", p.d.Attrs.GetInt("axis", -1), rank)
	}
	a.Rows, a.Cols = int32(Numel(in[0].Shape[:axis])), int32(Numel(in[0].Shape[axis:]))
	if a.X, err = ops[0].own(); err != nil {
		return p.errorf(err, "input")
	}
	if a.Scale, err = ops[1].broadcastTo(in[0].Shape); err != nil {
		return p.errorf(err, "scale")
	}
	if a.Out, err = ops[len(ops)-1].own(); err != nil {
		return p.errorf(err, "output")
	}
	bias := in[1]
	a.Bias = a.Scale
	if len(in) == 3 {
		a.HasBias, bias = 1, in[2]
		if a.Bias, err = ops[2].broadcastTo(in[0].Shape); err != nil {
			return p.errorf(err, "bias")
		}
	}
	p.rows(a, in[0], in[1], bias, out)
	return nil
}

func (p *planState) reduce() error {
	in, out := p.d.Inputs[0], p.d.Outputs[0]
	ops, err := p.f32Operands(in, out)
	if err != nil {
		return err
	}
	rank := len(in.Shape)
	reduced := make([]bool, rank)
	axes := p.d.Attrs.GetInts("axes", nil)
	for _, ax := range axes {
		k, ok := normAxis(ax, rank)
		if !ok {
			return p.errorf(ErrUnsupported, "axis %d of rank %d", ax, rank)
		}
		reduced[k] = true
	}
	var perm []int
	for k := 0; k < rank; k++ {
		if len(axes) > 0 && !reduced[k] {
			perm = append(perm, k)
		}
	}
	kept := len(perm)
	for k := 0; k < rank; k++ {
		if len(axes) == 0 || reduced[k] {
			perm = append(perm, k)
		}
	}
	a := RowParams{Op: map[string]int32{"ReduceSum": RowReduceSum, "ReduceMean": RowReduceMean, "ReduceMax": RowReduceMax}[p.d.Op]}
	var rows int64 = 1
	for _, k := range perm[:kept] {
		rows *= in.Shape[k]
	}
	a.Rows, a.Cols = int32(rows), 1
	for _, k := range perm[kept:] {
		a.Cols *= int32(in.Shape[k])
	}
	if Numel(out.Shape) != rows {
		return p.errorf(ErrUnsupported, "output has %d elements, want %d", Numel(out.Shape), rows)
	}
	if a.X, err = ops[0].permuted(perm); err != nil {
		return p.errorf(err, "input")
	}
	if a.Out, err = ops[1].own(); err != nil {
		return p.errorf(err, "output")
	}
	a.Scale, a.Bias = a.X, a.X
	p.rows(a, in, in, in, out)
	return nil
}

// channelDesc describes a per-channel operand [C] over x's shape.
func channelDesc(o operand, shape []int64) (Tensor, error) {
	strides := make([]int64, len(shape))
	if len(o.shape) != 1 || len(shape) < 2 || o.shape[0] != shape[1] {
		return Tensor{}, ErrUnsupported
	}
	strides[1] = o.strides[0]
	return desc(o.b.Value, shape, strides)
}

func (p *planState) batchnorm() error {
	in := p.d.Inputs
	out := p.d.Outputs[0]
	ops, err := p.f32Operands(append(append([]exec.Binding{}, in...), out)...)
	if err != nil {
		return err
	}
	a := BatchNormParams{N: int32(Numel(out.Shape)), Eps: float32(p.d.Attrs.GetFloat("epsilon", 1e-5))}
	if a.X, err = ops[0].own(); err != nil {
		return p.errorf(err, "input")
	}
	for i, t := range []*Tensor{&a.Scale, &a.Bias, &a.Mean, &a.Var} {
		if *t, err = channelDesc(ops[i+1], in[0].Shape); err != nil {
			return p.errorf(err, "input %d is not per channel", i+1)
		}
	}
	if a.Out, err = ops[5].own(); err != nil {
		return p.errorf(err, "output")
	}
	p.add("batchnorm_f32", a, int64(a.N), []exec.Binding{in[0], in[1], in[2], in[3], in[4], out}, false, false, false, false, false, true)
	return nil
}
