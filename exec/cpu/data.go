package cpu

// Data movement: every kernel here builds a strided view of its source with
// the destination's shape and copies element bytes, whatever the dtype.
//
//	Transpose perm [1 0] of x[2 3] (strides [12 4]) = view [3 2] strides [4 12]
//	Slice starts [1] ends [3] steps [1] on axis 0 of x[4 5] = view at +1*20, shape [2 5]
//	Concat axis 1: out[:, 0:3] <- a, out[:, 3:5] <- b (views of out)
//	Gather axis 0, indices [2 0]: out[0] <- x[2], out[1] <- x[0]
//	Pad: fill out with value, then copy x into the interior view of out
//
// The view ops (Reshape, Flatten, Squeeze, Unsqueeze, Identity, same-dtype
// Cast, contiguous Slice) make no dispatch when the planner made them views;
// when a graph materialises them (a copy into a fresh buffer), the kernel
// copies in row-major order.

import "github.com/memplan/memplan/ir"

func init() {
	register(kCopy, "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity")
	register(kCast, "Cast")
	register(kSlice, "Slice")
	register(kTranspose, "Transpose")
	register(kConcat, "Concat")
	register(kSplit, "Split")
	register(kGather, "Gather")
	register(kExpand, "Expand")
	register(kPad, "Pad")
}

func kCopy(c *call) error {
	x, y := c.in(0), c.out(0)
	if x.numel() != y.numel() || x.dt != y.dt {
		return kernelErr(c, "copy %v%v into %v%v", x.dt, x.shape, y.dt, y.shape)
	}
	copyTo(y, x)
	return nil
}

func kCast(c *call) error {
	x, y := c.in(0), c.out(0)
	if x.numel() != y.numel() {
		return kernelErr(c, "cast of %v into %v", x.shape, y.shape)
	}
	switch {
	case x.dt == y.dt:
		copyTo(y, x)
	case isInt(x.dt) && isInt(y.dt):
		storeI(y, loadI(x))
	case isInt(y.dt):
		// float -> integer truncates toward zero; -> bool tests != 0.
		v := loadF(x)
		iv := make([]int64, len(v))
		for i, f := range v {
			switch {
			case y.dt == ir.Bool && f != 0:
				iv[i] = 1
			case y.dt != ir.Bool:
				iv[i] = int64(f)
			}
		}
		storeI(y, iv)
	default:
		storeF(y, loadF(x))
	}
	return nil
}

func kSlice(c *call) error {
	x, y := c.in(0), c.out(0)
	starts, _, steps, err := ir.SliceBounds(x.shape, c.attrs())
	if err != nil {
		return kernelErr(c, "%v", err)
	}
	v := x
	for a := range x.shape {
		v = v.sub(a, starts[a], y.shape[a], steps[a])
	}
	copyTo(y, v)
	return nil
}

func kTranspose(c *call) error {
	x, y := c.in(0), c.out(0)
	perm, err := ir.Perm(x.rank(), c.attrs())
	if err != nil {
		return kernelErr(c, "%v", err)
	}
	v := tensor{buf: x.buf, off: x.off, dt: x.dt, shape: make([]int64, x.rank()), strides: make([]int64, x.rank())}
	for i, p := range perm {
		v.shape[i], v.strides[i] = x.shape[p], x.strides[p]
	}
	copyTo(y, v)
	return nil
}

func kConcat(c *call) error {
	y := c.out(0)
	ax, err := normAxis(c, c.attrs().GetInt("axis", 0), y.rank())
	if err != nil {
		return err
	}
	// Load every input first: an input may share bytes with the output.
	parts := make([]tensor, c.nin())
	at := int64(0)
	for i := range parts {
		x := c.in(i)
		parts[i] = y.sub(ax, at, x.shape[ax], 1)
		at += x.shape[ax]
	}
	if at != y.shape[ax] {
		return kernelErr(c, "inputs fill %d of %d along axis %d", at, y.shape[ax], ax)
	}
	bufs := make([][]byte, c.nin())
	for i := range parts {
		bufs[i] = dense(c.in(i))
	}
	for i, p := range parts {
		scatter(p, bufs[i])
	}
	return nil
}

func kSplit(c *call) error {
	x := c.in(0)
	ax, err := normAxis(c, c.attrs().GetInt("axis", 0), x.rank())
	if err != nil {
		return err
	}
	at := int64(0)
	srcs := make([][]byte, len(c.d.Outputs))
	for i := range c.d.Outputs {
		y := c.out(i)
		srcs[i] = dense(x.sub(ax, at, y.shape[ax], 1))
		at += y.shape[ax]
	}
	if at != x.shape[ax] {
		return kernelErr(c, "outputs take %d of %d along axis %d", at, x.shape[ax], ax)
	}
	for i := range c.d.Outputs {
		scatter(c.out(i), srcs[i])
	}
	return nil
}

func kGather(c *call) error {
	x, ind, y := c.in(0), c.in(1), c.out(0)
	ax, err := normAxis(c, c.attrs().GetInt("axis", 0), x.rank())
	if err != nil {
		return err
	}
	idx := loadI(ind)
	d := x.shape[ax]
	e := x.dt.Size()
	outer := numel(x.shape[:ax])
	out := make([]byte, 0, y.numel()*e)
	for o := int64(0); o < outer; o++ {
		// x[o, :, ...] with axis ax: walk the outer index as a view.
		for _, i := range idx {
			if i < 0 {
				i += d
			}
			if i < 0 || i >= d {
				return kernelErr(c, "index %d out of range [0, %d)", i, d)
			}
			out = append(out, dense(gatherSlab(x, ax, o, i))...)
		}
	}
	if int64(len(out)) != y.numel()*e {
		return kernelErr(c, "output %v does not hold the gathered %d bytes", y.shape, len(out))
	}
	scatter(y, out)
	return nil
}

// gatherSlab returns the view x[o0, .., i, ...] where o is the flat index
// over the axes before ax and i the index on ax.
func gatherSlab(x tensor, ax int, o, i int64) tensor {
	off := x.off + i*x.strides[ax]
	for a := ax - 1; a >= 0; a-- {
		off += (o % x.shape[a]) * x.strides[a]
		o /= x.shape[a]
	}
	return tensor{buf: x.buf, off: off, dt: x.dt, shape: x.shape[ax+1:], strides: x.strides[ax+1:]}
}

func kExpand(c *call) error {
	x, y := c.in(0), c.out(0)
	if x.rank() > y.rank() {
		return kernelErr(c, "cannot expand %v to %v", x.shape, y.shape)
	}
	copyTo(y, x.broadcastTo(y.shape))
	return nil
}

func kPad(c *call) error {
	x, y := c.in(0), c.out(0)
	pads := c.attrs().GetInts("pads", nil)
	r := x.rank()
	if len(pads) != 2*r {
		return kernelErr(c, "pads %v for rank %d", pads, r)
	}
	src := dense(x) // read before the output (which may overlap) is written
	e := y.dt.Size()
	fill := make([]byte, e)
	setF(fill, y.dt, c.attrs().GetFloat("value", 0))
	y.forEach(func(_, p int64) { copy(y.buf[p:p+e], fill) })
	// Interior: negative pads crop the source.
	srcT := tensor{buf: src, off: 0, dt: x.dt, shape: x.shape, strides: ir.ContiguousStrides(x.shape, e)}
	dst := y
	for a := 0; a < r; a++ {
		b, en := pads[a], pads[a+r]
		n := x.shape[a] + min(b, 0) + min(en, 0)
		if n <= 0 {
			return nil
		}
		srcT = srcT.sub(a, max(-b, 0), n, 1)
		dst = dst.sub(a, max(b, 0), n, 1)
	}
	copyTo(dst, srcT)
	return nil
}

// dense returns t's elements as contiguous bytes in row-major order.
func dense(t tensor) []byte {
	e := t.dt.Size()
	out := make([]byte, t.numel()*e)
	if t.contiguous() {
		copy(out, t.buf[t.off:t.off+int64(len(out))])
		return out
	}
	t.forEach(func(k, p int64) { copy(out[k*e:(k+1)*e], t.buf[p:p+e]) })
	return out
}

// scatter writes contiguous row-major bytes through t's strides.
func scatter(t tensor, src []byte) {
	e := t.dt.Size()
	if t.contiguous() {
		copy(t.buf[t.off:t.off+int64(len(src))], src)
		return
	}
	t.forEach(func(k, p int64) { copy(t.buf[p:p+e], src[k*e:(k+1)*e]) })
}
