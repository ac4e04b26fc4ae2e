package ir

// Shape rules of the sliding-window ops (Conv, ConvTranspose, MaxPool,
// AveragePool, GlobalAveragePool). A window of extent k with dilation d
// covers (k-1)*d+1 input elements; over an input of n elements padded by
// pb and pe, stride s gives (n+pb+pe-((k-1)*d+1))/s+1 outputs (one more with
// ceil_mode when the last window still starts inside the input). Example:
// n=32, k=3, d=1, pads 1+1, s=2 -> (32+2-3)/2+1 = 16.

// maxWindowAttr bounds strides, pads, dilations and kernel extents, so that
// window arithmetic on extents up to MaxBytes cannot overflow int64.
const maxWindowAttr = 1 << 14

// spatial holds 2-D window parameters: strides, pads [top, left, bottom,
// right] and dilations.
type spatial struct {
	strides, pads, dilations [4]int64
}

func spatialAttrs(a Attrs) (spatial, error) {
	var sp spatial
	get := func(name string, n int, def int64, dst []int64, minV int64) error {
		v := a.GetInts(name, nil)
		if v == nil {
			for i := range dst[:n] {
				dst[i] = def
			}
			return nil
		}
		if len(v) != n {
			return attrErr("%s has %d entries, want %d", name, len(v), n)
		}
		for i, x := range v {
			if x < minV || x > maxWindowAttr {
				return attrErr("%s[%d] = %d, want in [%d, %d]", name, i, x, minV, maxWindowAttr)
			}
			dst[i] = x
		}
		return nil
	}
	if err := get("strides", 2, 1, sp.strides[:], 1); err != nil {
		return sp, err
	}
	if err := get("pads", 4, 0, sp.pads[:], 0); err != nil {
		return sp, err
	}
	if err := get("dilations", 2, 1, sp.dilations[:], 1); err != nil {
		return sp, err
	}
	return sp, nil
}

// windowOut is the output extent of a sliding window over n elements.
func windowOut(n, k, stride, padBegin, padEnd, dil int64, ceil bool) (int64, error) {
	if k > maxWindowAttr {
		return 0, shapeErr("window %d larger than %d", k, maxWindowAttr)
	}
	eff := (k-1)*dil + 1
	span := n + padBegin + padEnd - eff
	if k < 1 || span < 0 {
		return 0, shapeErr("window %d (dilation %d) larger than padded input %d", k, dil, n+padBegin+padEnd)
	}
	out := span/stride + 1
	if ceil && span%stride != 0 {
		out++
		// The last window must start inside the input or the begin padding.
		if (out-1)*stride >= n+padBegin {
			out--
		}
	}
	return out, nil
}

// convInputs checks what Conv and ConvTranspose share: input and weight
// (and bias) of one dtype, input and weight 4-D; it returns their shapes.
func convInputs(op string, in []TensorType) (x, w Shape, err error) {
	if err := need(in, 2); err != nil {
		return nil, nil, err
	}
	if err := sameDType(in...); err != nil {
		return nil, nil, err
	}
	x, w = in[0].Shape, in[1].Shape
	if len(x) != 4 || len(w) != 4 {
		return nil, nil, shapeErr("%s needs 4-D input and weight, have %v and %v", op, x, w)
	}
	return x, w, nil
}

func inferConv(in []TensorType, a Attrs) ([]TensorType, error) {
	x, w, err := convInputs("Conv", in)
	if err != nil {
		return nil, err
	}
	g := a.GetInt("group", 1)
	if g < 1 || g > max(x[1], 1) || x[1]%g != 0 || w[0]%g != 0 || w[1]*g != x[1] {
		return nil, shapeErr("Conv group %d: input channels %d, weight %v", g, x[1], w)
	}
	sp, err := spatialAttrs(a)
	if err != nil {
		return nil, err
	}
	if ks := a.GetInts("kernel_shape", nil); ks != nil && (len(ks) != 2 || ks[0] != w[2] || ks[1] != w[3]) {
		return nil, attrErr("kernel_shape %v does not match weight %v", ks, w)
	}
	h, err := windowOut(x[2], w[2], sp.strides[0], sp.pads[0], sp.pads[2], sp.dilations[0], false)
	if err != nil {
		return nil, err
	}
	wd, err := windowOut(x[3], w[3], sp.strides[1], sp.pads[1], sp.pads[3], sp.dilations[1], false)
	if err != nil {
		return nil, err
	}
	if len(in) == 3 && !in[2].Shape.Equal(Shape{w[0]}) {
		return nil, shapeErr("Conv bias %v, want [%d]", in[2].Shape, w[0])
	}
	return one(TensorType{in[0].DType, Shape{x[0], w[0], h, wd}})
}

func inferConvTranspose(in []TensorType, a Attrs) ([]TensorType, error) {
	x, w, err := convInputs("ConvTranspose", in)
	if err != nil {
		return nil, err
	}
	g := a.GetInt("group", 1)
	if g < 1 || g > max(x[1], 1) || w[0] != x[1] || x[1]%g != 0 || w[2] > maxWindowAttr || w[3] > maxWindowAttr {
		return nil, shapeErr("ConvTranspose group %d: input channels %d, weight %v", g, x[1], w)
	}
	sp, err := spatialAttrs(a)
	if err != nil {
		return nil, err
	}
	op := a.GetInts("output_padding", []int64{0, 0})
	if len(op) != 2 {
		return nil, attrErr("output_padding has %d entries, want 2", len(op))
	}
	for i := range 2 {
		// strides*(extent-1) must not overflow: extents are at most MaxBytes.
		if x[2+i] > MaxBytes/maxWindowAttr || op[i] < 0 || op[i] > maxWindowAttr {
			return nil, shapeErr("ConvTranspose input %v or output_padding %v too large", x, op)
		}
	}
	var outHW [2]int64
	for i := range 2 {
		outHW[i] = sp.strides[i]*(x[2+i]-1) + op[i] + (w[2+i]-1)*sp.dilations[i] + 1 - sp.pads[i] - sp.pads[i+2]
		if outHW[i] < 1 || op[i] < 0 || op[i] >= max(sp.strides[i], sp.dilations[i]) {
			return nil, shapeErr("ConvTranspose output extent %d (output_padding %v)", outHW[i], op)
		}
	}
	m := w[1] * g
	if len(in) == 3 && !in[2].Shape.Equal(Shape{m}) {
		return nil, shapeErr("ConvTranspose bias %v, want [%d]", in[2].Shape, m)
	}
	return one(TensorType{in[0].DType, Shape{x[0], m, outHW[0], outHW[1]}})
}

func inferPool(in []TensorType, a Attrs) ([]TensorType, error) {
	if err := need(in, 1); err != nil {
		return nil, err
	}
	x := in[0].Shape
	if len(x) != 4 {
		return nil, shapeErr("pooling needs a 4-D input, have %v", x)
	}
	ks := a.GetInts("kernel_shape", nil)
	if len(ks) != 2 {
		return nil, attrErr("kernel_shape %v, want 2 entries", ks)
	}
	sp, err := spatialAttrs(a)
	if err != nil {
		return nil, err
	}
	ceil := a.GetInt("ceil_mode", 0) != 0
	out := Shape{x[0], x[1], 0, 0}
	for i := range 2 {
		out[2+i], err = windowOut(x[2+i], ks[i], sp.strides[i], sp.pads[i], sp.pads[i+2], sp.dilations[i], ceil)
		if err != nil {
			return nil, err
		}
	}
	return one(TensorType{in[0].DType, out})
}

func inferGlobalPool(in []TensorType, _ Attrs) ([]TensorType, error) {
	if err := need(in, 1); err != nil {
		return nil, err
	}
	x := in[0].Shape
	if len(x) < 3 {
		return nil, shapeErr("GlobalAveragePool needs N, C and spatial axes, have %v", x)
	}
	out := Shape{x[0], x[1]}
	for range x[2:] {
		out = append(out, 1)
	}
	return one(TensorType{in[0].DType, out})
}
