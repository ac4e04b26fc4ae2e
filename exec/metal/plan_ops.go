package metal

// Launch planning for the ops with structure: matrix products,
// convolutions, pooling, row kernels (softmax, norms, reductions) and data
// movement. See plan.go for the launch model.

import (
	"math"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/ir"
)

// withUnit inserts a dimension of size 1 (stride 0) at position at.
func (o operand) withUnit(at int) operand {
	shape := append(append(append([]int64{}, o.shape[:at]...), 1), o.shape[at:]...)
	strides := append(append(append([]int64{}, o.strides[:at]...), 0), o.strides[at:]...)
	return operand{b: o.b, shape: shape, strides: strides}
}

// batchDesc describes a matrix operand [batch..., R, C] over the logical
// batch shape: batch dimensions broadcast, the last two kept.
func batchDesc(o operand, batch []int64) (tensorDesc, error) {
	r := len(o.shape)
	head := operand{b: o.b, shape: o.shape[:r-2], strides: o.strides[:r-2]}
	hd, err := head.broadcastTo(batch)
	if err != nil {
		return hd, err
	}
	shape := append(append([]int64{}, batch...), o.shape[r-2:]...)
	strides := make([]int64, 0, len(shape))
	for k := range batch {
		strides = append(strides, int64(hd.Strides[k]))
	}
	strides = append(strides, o.strides[r-2:]...)
	return desc(o.b.Value, shape, strides)
}

func broadcastShapes(a, b []int64) ([]int64, bool) {
	n := max(len(a), len(b))
	out := make([]int64, n)
	for k := 0; k < n; k++ {
		da, db := int64(1), int64(1)
		if i := k - (n - len(a)); i >= 0 {
			da = a[i]
		}
		if i := k - (n - len(b)); i >= 0 {
			db = b[i]
		}
		switch {
		case da == db || db == 1:
			out[k] = da
		case da == 1:
			out[k] = db
		default:
			return nil, false
		}
	}
	return out, true
}

func (p *planState) matmul() error {
	in := p.d.Inputs
	out := p.d.Outputs[0]
	if err := p.requireF32(append([]exec.Binding{out}, in...)...); err != nil {
		return err
	}
	ops, err := p.operands(append(append([]exec.Binding{}, in...), out)...)
	if err != nil {
		return err
	}
	a, b, o := ops[0], ops[1], ops[len(ops)-1]
	if len(a.shape) == 0 || len(b.shape) == 0 {
		return p.errorf(ErrUnsupported, "scalar operand")
	}
	args := matmulParams{Alpha: 1}
	dropM, dropN := false, false
	if len(a.shape) == 1 {
		a, dropM = a.withUnit(0), true
	}
	if len(b.shape) == 1 {
		b, dropN = b.withUnit(1), true
	}
	if p.d.Op == "Gemm" {
		if len(a.shape) != 2 || len(b.shape) != 2 {
			return p.errorf(ErrUnsupported, "Gemm needs 2-D operands")
		}
		if p.d.Attrs.GetInt("transA", 0) != 0 {
			a.shape[0], a.shape[1], a.strides[0], a.strides[1] = a.shape[1], a.shape[0], a.strides[1], a.strides[0]
		}
		if p.d.Attrs.GetInt("transB", 0) != 0 {
			b.shape[0], b.shape[1], b.strides[0], b.strides[1] = b.shape[1], b.shape[0], b.strides[1], b.strides[0]
		}
		args.Alpha = float32(p.d.Attrs.GetFloat("alpha", 1))
		args.Beta = float32(p.d.Attrs.GetFloat("beta", 1))
	}
	ra, rb := len(a.shape), len(b.shape)
	m, k, n := a.shape[ra-2], a.shape[ra-1], b.shape[rb-1]
	if b.shape[rb-2] != k {
		return p.errorf(ErrUnsupported, "inner dimensions %d and %d differ", k, b.shape[rb-2])
	}
	batch, ok := broadcastShapes(a.shape[:ra-2], b.shape[:rb-2])
	if !ok {
		return p.errorf(ErrUnsupported, "batch shapes %v and %v do not broadcast", a.shape[:ra-2], b.shape[:rb-2])
	}
	logical := append(append([]int64{}, batch...), m, n)
	if dropM {
		o = o.withUnit(len(batch))
	}
	if dropN {
		o = o.withUnit(len(logical) - 1)
	}
	if numel(o.shape) != numel(logical) || len(o.shape) != len(logical) {
		return p.errorf(ErrUnsupported, "output shape %v, want %v", out.Shape, logical)
	}
	args.M, args.N, args.K = int32(m), int32(n), int32(k)
	args.Total = int32(numel(logical))
	if args.A, err = batchDesc(a, batch); err != nil {
		return p.errorf(err, "input A")
	}
	if args.B, err = batchDesc(b, batch); err != nil {
		return p.errorf(err, "input B")
	}
	if args.Out, err = o.own(); err != nil {
		return p.errorf(err, "output")
	}
	binds := []exec.Binding{in[0], in[1], in[0], out}
	if len(in) == 3 {
		args.HasC = 1
		if args.C, err = ops[2].broadcastTo(logical); err != nil {
			return p.errorf(err, "input C")
		}
		binds[2] = in[2]
	} else {
		// Nothing is read through index 3; bind A again so every index the
		// kernel declares is bound.
		args.C = args.Out
		args.Beta = 0
	}
	p.add("matmul_f32", args, int64(args.Total), binds, false, false, false, true)
	return nil
}

// spatial reads a per-spatial-dimension attribute for a 2-D kernel, padding
// a 1-D convolution's values with the identity for the inserted H axis.
func spatial(a ir.Attrs, name string, rank int, def int64) ([2]int64, bool) {
	v := a.GetInts(name, nil)
	if v == nil {
		return [2]int64{def, def}, true
	}
	if len(v) != rank {
		return [2]int64{}, false
	}
	if rank == 1 {
		return [2]int64{def, v[0]}, true
	}
	return [2]int64{v[0], v[1]}, true
}

// pads2d reads ONNX pads [begins..., ends...] as top, left, bottom, right.
func pads2d(a ir.Attrs, rank int) ([4]int64, bool) {
	v := a.GetInts("pads", nil)
	switch {
	case v == nil:
		return [4]int64{}, true
	case len(v) != 2*rank:
		return [4]int64{}, false
	case rank == 1:
		return [4]int64{0, v[0], 0, v[1]}, true
	}
	return [4]int64{v[0], v[1], v[2], v[3]}, true
}

// as4d turns a rank-3 [N,C,L] operand into [N,C,1,L].
func as4d(o operand) operand {
	if len(o.shape) == 3 {
		return o.withUnit(2)
	}
	return o
}

func (p *planState) conv() error {
	in := p.d.Inputs
	out := p.d.Outputs[0]
	if err := p.requireF32(append([]exec.Binding{out}, in...)...); err != nil {
		return err
	}
	ops, err := p.operands(append(append([]exec.Binding{}, in...), out)...)
	if err != nil {
		return err
	}
	r := len(ops[0].shape) - 2
	if r != 1 && r != 2 || len(ops[1].shape) != r+2 || len(out.Shape) != r+2 {
		return p.errorf(ErrUnsupported, "%d spatial dimensions", r)
	}
	x, w, o := as4d(ops[0]), as4d(ops[1]), as4d(ops[len(ops)-1])
	st, ok1 := spatial(p.d.Attrs, "strides", r, 1)
	dl, ok2 := spatial(p.d.Attrs, "dilations", r, 1)
	pd, ok3 := pads2d(p.d.Attrs, r)
	if !ok1 || !ok2 || !ok3 {
		return p.errorf(ErrUnsupported, "strides, dilations or pads of the wrong length")
	}
	g := p.d.Attrs.GetInt("group", 1)
	a := convParams{
		N: int32(x.shape[0]), C: int32(x.shape[1]), H: int32(x.shape[2]), W: int32(x.shape[3]),
		M: int32(o.shape[1]), OH: int32(o.shape[2]), OW: int32(o.shape[3]),
		KH: int32(w.shape[2]), KW: int32(w.shape[3]),
		SH: int32(st[0]), SW: int32(st[1]), PT: int32(pd[0]), PL: int32(pd[1]),
		DH: int32(dl[0]), DW: int32(dl[1]), Group: int32(g),
		Total: int32(numel(o.shape)),
	}
	if g < 1 || x.shape[1]%g != 0 || o.shape[1]%g != 0 {
		return p.errorf(ErrUnsupported, "group %d does not divide channels %d and %d", g, x.shape[1], o.shape[1])
	}
	if a.X, err = x.own(); err != nil {
		return p.errorf(err, "input")
	}
	if a.Wt, err = w.own(); err != nil {
		return p.errorf(err, "weight")
	}
	if a.Out, err = o.own(); err != nil {
		return p.errorf(err, "output")
	}
	binds := []exec.Binding{in[0], in[1], in[1], out}
	a.Bias = a.Out
	if len(in) == 3 {
		a.HasBias = 1
		if a.Bias, err = ops[2].own(); err != nil {
			return p.errorf(err, "bias")
		}
		binds[2] = in[2]
	}
	kernel := "conv2d_f32"
	if p.d.Op == "ConvTranspose" {
		kernel = "convtranspose2d_f32"
	}
	p.add(kernel, a, numel(o.shape), binds, false, false, false, true)
	return nil
}

func (p *planState) pool() error {
	in, out := p.d.Inputs[0], p.d.Outputs[0]
	if err := p.requireF32(in, out); err != nil {
		return err
	}
	ops, err := p.operands(in, out)
	if err != nil {
		return err
	}
	r := len(in.Shape) - 2
	if r != 1 && r != 2 || len(out.Shape) != r+2 {
		return p.errorf(ErrUnsupported, "%d spatial dimensions", r)
	}
	x, o := as4d(ops[0]), as4d(ops[1])
	a := poolParams{Mode: poolAvg, H: int32(x.shape[2]), W: int32(x.shape[3]), Total: int32(numel(o.shape))}
	if p.d.Op == "GlobalAveragePool" {
		a.KH, a.KW, a.SH, a.SW, a.DH, a.DW = a.H, a.W, 1, 1, 1, 1
	} else {
		ks, ok0 := spatial(p.d.Attrs, "kernel_shape", r, 1)
		st, ok1 := spatial(p.d.Attrs, "strides", r, 1)
		dl, ok2 := spatial(p.d.Attrs, "dilations", r, 1)
		pd, ok3 := pads2d(p.d.Attrs, r)
		if p.d.Attrs.GetInts("kernel_shape", nil) == nil || !ok0 || !ok1 || !ok2 || !ok3 {
			return p.errorf(ErrUnsupported, "kernel_shape, strides, dilations or pads missing or of the wrong length")
		}
		a.KH, a.KW, a.SH, a.SW = int32(ks[0]), int32(ks[1]), int32(st[0]), int32(st[1])
		a.DH, a.DW = int32(dl[0]), int32(dl[1])
		a.PT, a.PL, a.PB, a.PR = int32(pd[0]), int32(pd[1]), int32(pd[2]), int32(pd[3])
		if p.d.Op == "MaxPool" {
			a.Mode = poolMax
		}
		a.IncludePad = int32(p.d.Attrs.GetInt("count_include_pad", 0))
	}
	if a.X, err = x.own(); err != nil {
		return p.errorf(err, "input")
	}
	if a.Out, err = o.own(); err != nil {
		return p.errorf(err, "output")
	}
	p.add("pool2d_f32", a, numel(o.shape), []exec.Binding{in, out}, false, true)
	return nil
}

// rows binds a row kernel: x, scale, bias (x again when absent), out.
func (p *planState) rows(a rowParams, x, scale, bias, out exec.Binding) {
	p.add("rows_f32", a, int64(a.Rows), []exec.Binding{x, scale, bias, out}, false, false, false, true)
}

func (p *planState) softmax() error {
	in, out := p.d.Inputs[0], p.d.Outputs[0]
	if err := p.requireF32(in, out); err != nil {
		return err
	}
	ops, err := p.operands(in, out)
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
	a := rowParams{Op: rowSoftmax, Cols: int32(in.Shape[axis])}
	if p.d.Op == "LogSoftmax" {
		a.Op = rowLogSoftmax
	}
	if a.Cols > 0 {
		a.Rows = int32(numel(in.Shape) / in.Shape[axis])
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
	if err := p.requireF32(append([]exec.Binding{out}, in...)...); err != nil {
		return err
	}
	ops, err := p.operands(append(append([]exec.Binding{}, in...), out)...)
	if err != nil {
		return err
	}
	rank := len(in[0].Shape)
	a := rowParams{Op: rowLayerNorm, Eps: float32(p.d.Attrs.GetFloat("epsilon", 1e-5))}
	if p.d.Op == "RMSNorm" {
		a.Op, a.Eps = rowRMSNorm, float32(p.d.Attrs.GetFloat("epsilon", 1e-6))
	}
	axis, ok := normAxis(p.d.Attrs.GetInt("axis", -1), rank)
	if !ok {
		return p.errorf(ErrUnsupported, "axis %d of rank %d", p.d.Attrs.GetInt("axis", -1), rank)
	}
	a.Rows, a.Cols = int32(numel(in[0].Shape[:axis])), int32(numel(in[0].Shape[axis:]))
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
	if err := p.requireF32(in, out); err != nil {
		return err
	}
	ops, err := p.operands(in, out)
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
	a := rowParams{Op: map[string]int32{"ReduceSum": rowReduceSum, "ReduceMean": rowReduceMean, "ReduceMax": rowReduceMax}[p.d.Op]}
	var rows int64 = 1
	for _, k := range perm[:kept] {
		rows *= in.Shape[k]
	}
	a.Rows, a.Cols = int32(rows), 1
	for _, k := range perm[kept:] {
		a.Cols *= int32(in.Shape[k])
	}
	if numel(out.Shape) != rows {
		return p.errorf(ErrUnsupported, "output has %d elements, want %d", numel(out.Shape), rows)
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
func channelDesc(o operand, shape []int64) (tensorDesc, error) {
	strides := make([]int64, len(shape))
	if len(o.shape) != 1 || len(shape) < 2 || o.shape[0] != shape[1] {
		return tensorDesc{}, ErrUnsupported
	}
	strides[1] = o.strides[0]
	return desc(o.b.Value, shape, strides)
}

func (p *planState) batchnorm() error {
	in := p.d.Inputs
	out := p.d.Outputs[0]
	if err := p.requireF32(append([]exec.Binding{out}, in...)...); err != nil {
		return err
	}
	ops, err := p.operands(append(append([]exec.Binding{}, in...), out)...)
	if err != nil {
		return err
	}
	a := batchnormParams{N: int32(numel(out.Shape)), Eps: float32(p.d.Attrs.GetFloat("epsilon", 1e-5))}
	if a.X, err = ops[0].own(); err != nil {
		return p.errorf(err, "input")
	}
	for i, t := range []*tensorDesc{&a.Scale, &a.Bias, &a.Mean, &a.Var} {
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

// copyLaunch adds one copy of n elements.
func (p *planState) copyLaunch(in, out exec.Binding, a copyParams) error {
	kernel, err := p.sizeKernel("copy", out.DType)
	if err != nil {
		return err
	}
	p.add(kernel, a, int64(a.N), []exec.Binding{in, out}, false, true)
	return nil
}

// simpleCopy copies in to out in logical flat order, in described by inDesc.
func (p *planState) simpleCopy(inDesc func(operand) (tensorDesc, error), base int64) error {
	in, out := p.d.Inputs[0], p.d.Outputs[0]
	if in.DType.Size() != out.DType.Size() {
		return p.errorf(ErrUnsupported, "%v to %v", in.DType, out.DType)
	}
	ops, err := p.operands(in, out)
	if err != nil {
		return err
	}
	a := copyParams{N: int32(numel(out.Shape)), InBase: int32(base)}
	if a.In, err = inDesc(ops[0]); err != nil {
		return p.errorf(err, "input")
	}
	if a.Out, err = ops[1].own(); err != nil {
		return p.errorf(err, "output")
	}
	if numel(out.Shape) != a.In.numel() {
		return p.errorf(ErrUnsupported, "input has %d elements, output %d", a.In.numel(), numel(out.Shape))
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
	return p.simpleCopy(func(o operand) (tensorDesc, error) { return o.permuted(perm) }, 0)
}

func (p *planState) expand() error {
	out := p.d.Outputs[0].Shape
	return p.simpleCopy(func(o operand) (tensorDesc, error) { return o.broadcastTo(out) }, 0)
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
	return p.simpleCopy(func(o operand) (tensorDesc, error) {
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
		a := copyParams{N: int32(numel(in.Shape)), OutBase: int32(at * ops[0].strides[axis])}
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
		a := copyParams{N: int32(numel(out.Shape)), InBase: int32(at * ops[0].strides[axis])}
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
	a := gatherParams{N: int32(numel(out.Shape)), Axis: int32(axis), IdxRank: int32(len(idx.Shape)), AxisLen: int32(x.Shape[axis])}
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
	if err := p.requireF32(in, out); err != nil {
		return err
	}
	ops, err := p.operands(in, out)
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
	a := padParams{N: int32(numel(out.Shape)), Value: float32(p.d.Attrs.GetFloat("value", 0))}
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
		return castF32
	case ir.F16:
		return castF16
	case ir.I64:
		return castI64
	case ir.I32:
		return castI32
	case ir.I8:
		return castI8
	case ir.U8:
		return castU8
	case ir.Bool:
		return castBool
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
	a := castParams{N: int32(numel(out.Shape)), From: from, To: to}
	if a.In, err = ops[0].own(); err != nil {
		return p.errorf(err, "input")
	}
	if a.Out, err = ops[1].own(); err != nil {
		return p.errorf(err, "output")
	}
	p.add("cast_any", a, int64(a.N), []exec.Binding{in, out}, false, true)
	return nil
}
