package launch

// Launch planning for matrix products, convolutions and pooling: one
// thread per output element, operands described over the output's logical
// shape (see plan.go for the launch model).

import (
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
func batchDesc(o operand, batch []int64) (Tensor, error) {
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
	ops, err := p.f32Operands(append(append([]exec.Binding{}, in...), out)...)
	if err != nil {
		return err
	}
	a, b, o := ops[0], ops[1], ops[len(ops)-1]
	if len(a.shape) == 0 || len(b.shape) == 0 {
		return p.errorf(ErrUnsupported, "scalar operand")
	}
	args := MatMulParams{Alpha: 1}
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
	if Numel(o.shape) != Numel(logical) || len(o.shape) != len(logical) {
		return p.errorf(ErrUnsupported, "output shape %v, want %v", out.Shape, logical)
	}
	args.M, args.N, args.K = int32(m), int32(n), int32(k)
	args.Total = int32(Numel(logical))
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
	ops, err := p.f32Operands(append(append([]exec.Binding{}, in...), out)...)
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
	a := ConvParams{
		N: int32(x.shape[0]), C: int32(x.shape[1]), H: int32(x.shape[2]), W: int32(x.shape[3]),
		M: int32(o.shape[1]), OH: int32(o.shape[2]), OW: int32(o.shape[3]),
		KH: int32(w.shape[2]), KW: int32(w.shape[3]),
		SH: int32(st[0]), SW: int32(st[1]), PT: int32(pd[0]), PL: int32(pd[1]),
		DH: int32(dl[0]), DW: int32(dl[1]), Group: int32(g),
		Total: int32(Numel(o.shape)),
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
	p.add(kernel, a, Numel(o.shape), binds, false, false, false, true)
	return nil
}

func (p *planState) pool() error {
	in, out := p.d.Inputs[0], p.d.Outputs[0]
	ops, err := p.f32Operands(in, out)
	if err != nil {
		return err
	}
	r := len(in.Shape) - 2
	if r != 1 && r != 2 || len(out.Shape) != r+2 {
		return p.errorf(ErrUnsupported, "%d spatial dimensions", r)
	}
	x, o := as4d(ops[0]), as4d(ops[1])
	a := PoolParams{Mode: PoolAvg, H: int32(x.shape[2]), W: int32(x.shape[3]), Total: int32(Numel(o.shape))}
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
			a.Mode = PoolMax
		}
		a.IncludePad = int32(p.d.Attrs.GetInt("count_include_pad", 0))
	}
	if a.X, err = x.own(); err != nil {
		return p.errorf(err, "input")
	}
	if a.Out, err = o.own(); err != nil {
		return p.errorf(err, "output")
	}
	p.add("pool2d_f32", a, Numel(o.shape), []exec.Binding{in, out}, false, true)
	return nil
}
