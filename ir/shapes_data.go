package ir

// Shape rules for data-movement and view ops.

func inferConcat(in []TensorType, a Attrs) ([]TensorType, error) {
	if err := need(in, 1); err != nil {
		return nil, err
	}
	if err := sameDType(in...); err != nil {
		return nil, err
	}
	r := len(in[0].Shape)
	ax, err := normAxis(a.GetInt("axis", 0), r)
	if err != nil {
		return nil, err
	}
	out := in[0].Shape.Clone()
	for _, t := range in[1:] {
		if len(t.Shape) != r {
			return nil, shapeErr("Concat of ranks %d and %d", r, len(t.Shape))
		}
		for i, d := range t.Shape {
			if i != ax && d != out[i] {
				return nil, shapeErr("Concat on axis %d: shapes %v and %v differ on axis %d", ax, in[0].Shape, t.Shape, i)
			}
		}
		out[ax] += t.Shape[ax]
		if out[ax] > MaxBytes {
			return nil, shapeErr("Concat on axis %d: extent overflows", ax)
		}
	}
	return one(TensorType{in[0].DType, out})
}

// SplitSizes returns the extent of each Split output along the axis: the
// "split" attribute, or "num_outputs" equal parts (the last one smaller when
// the extent does not divide).
func SplitSizes(dim int64, a Attrs) ([]int64, error) {
	if sizes := a.GetInts("split", nil); sizes != nil {
		sum := int64(0)
		for i, s := range sizes {
			if s < 0 || s > dim {
				return nil, attrErr("split[%d] = %d is outside [0, %d]", i, s, dim)
			}
			sum += s
		}
		if sum != dim || len(sizes) == 0 {
			return nil, attrErr("split %v sums to %d, want %d", sizes, sum, dim)
		}
		return sizes, nil
	}
	n := a.GetInt("num_outputs", 0)
	if n < 1 || n > 1<<16 {
		return nil, attrErr("Split needs split sizes or num_outputs (have num_outputs=%d)", n)
	}
	part := (dim + n - 1) / n
	sizes := make([]int64, n)
	left := dim
	for i := range sizes {
		sizes[i] = min(part, left)
		left -= sizes[i]
	}
	return sizes, nil
}

func inferSplit(in []TensorType, a Attrs) ([]TensorType, error) {
	if err := need(in, 1); err != nil {
		return nil, err
	}
	x := in[0].Shape
	ax, err := normAxis(a.GetInt("axis", 0), len(x))
	if err != nil {
		return nil, err
	}
	sizes, err := SplitSizes(x[ax], a)
	if err != nil {
		return nil, err
	}
	out := make([]TensorType, len(sizes))
	for i, s := range sizes {
		sh := x.Clone()
		sh[ax] = s
		out[i] = TensorType{in[0].DType, sh}
	}
	return out, nil
}

// Perm returns the Transpose permutation: the "perm" attribute, or the
// reversed axes when it is absent.
func Perm(rank int, a Attrs) ([]int, error) {
	p := a.GetInts("perm", nil)
	perm := make([]int, rank)
	if p == nil {
		for i := range perm {
			perm[i] = rank - 1 - i
		}
		return perm, nil
	}
	if len(p) != rank {
		return nil, attrErr("perm %v for rank %d", p, rank)
	}
	seen := make([]bool, rank)
	for i, x := range p {
		if x < 0 || x >= int64(rank) || seen[x] {
			return nil, attrErr("perm %v is not a permutation", p)
		}
		seen[x] = true
		perm[i] = int(x)
	}
	return perm, nil
}

func inferTranspose(in []TensorType, a Attrs) ([]TensorType, error) {
	if err := need(in, 1); err != nil {
		return nil, err
	}
	perm, err := Perm(len(in[0].Shape), a)
	if err != nil {
		return nil, err
	}
	out := make(Shape, len(perm))
	for i, p := range perm {
		out[i] = in[0].Shape[p]
	}
	return one(TensorType{in[0].DType, out})
}

func inferGather(in []TensorType, a Attrs) ([]TensorType, error) {
	if err := need(in, 2); err != nil {
		return nil, err
	}
	if in[1].DType != I64 && in[1].DType != I32 {
		return nil, shapeErr("Gather indices are %v, want i64 or i32", in[1].DType)
	}
	x := in[0].Shape
	ax, err := normAxis(a.GetInt("axis", 0), len(x))
	if err != nil {
		return nil, err
	}
	out := append(append(x[:ax:ax].Clone(), in[1].Shape...), x[ax+1:]...)
	return one(TensorType{in[0].DType, out})
}

func inferExpand(in []TensorType, a Attrs) ([]TensorType, error) {
	if err := need(in, 1); err != nil {
		return nil, err
	}
	sh := a.GetInts("shape", nil)
	if sh == nil {
		return nil, attrErr("Expand needs a shape")
	}
	out, err := Broadcast(in[0].Shape, Shape(sh))
	if err != nil {
		return nil, err
	}
	return one(TensorType{in[0].DType, out})
}

func inferPad(in []TensorType, a Attrs) ([]TensorType, error) {
	if err := need(in, 1); err != nil {
		return nil, err
	}
	x := in[0].Shape
	pads := a.GetInts("pads", nil)
	if len(pads) != 2*len(x) {
		return nil, attrErr("pads %v, want %d entries", pads, 2*len(x))
	}
	if m := a.GetStr("mode", "constant"); m != "constant" {
		return nil, attrErr("Pad mode %q, only constant is supported", m)
	}
	out := x.Clone()
	for i, p := range pads {
		if p < -MaxBytes || p > MaxBytes {
			return nil, attrErr("pads[%d] = %d out of range", i, p)
		}
	}
	for i := range x {
		out[i] += pads[i] + pads[i+len(x)]
		if out[i] < 0 {
			return nil, shapeErr("Pad %v makes axis %d of %v negative", pads, i, x)
		}
	}
	return one(TensorType{in[0].DType, out})
}

// sliceBounds resolves Slice attributes against a shape with ONNX clamping:
// per axis, the normalised start, end and step (unsliced axes take the whole
// extent with step 1). For positive steps end >= start.
func sliceBounds(sh Shape, a Attrs) (starts, ends, steps []int64, err error) {
	r := len(sh)
	starts, ends, steps = make([]int64, r), append([]int64{}, sh...), make([]int64, r)
	for i := range steps {
		steps[i] = 1
	}
	st, en := a.GetInts("starts", nil), a.GetInts("ends", nil)
	if len(st) != len(en) {
		return nil, nil, nil, attrErr("starts %v and ends %v differ in length", st, en)
	}
	axes := a.GetInts("axes", nil)
	if axes == nil {
		for i := range st {
			axes = append(axes, int64(i))
		}
	}
	stp := a.GetInts("steps", nil)
	if len(axes) != len(st) || (stp != nil && len(stp) != len(st)) {
		return nil, nil, nil, attrErr("Slice axes %v / steps %v do not match starts %v", axes, stp, st)
	}
	seen := make([]bool, r)
	for k, axis := range axes {
		i, err := normAxis(axis, r)
		if err != nil {
			return nil, nil, nil, err
		}
		if seen[i] {
			return nil, nil, nil, attrErr("Slice axis %d repeated", axis)
		}
		seen[i] = true
		step := int64(1)
		if stp != nil {
			step = stp[k]
		}
		if step == 0 {
			return nil, nil, nil, attrErr("Slice step 0 on axis %d", axis)
		}
		d := sh[i]
		s, e := st[k], en[k]
		if s < 0 {
			s += d
		}
		if e < 0 {
			e += d
		}
		if step > 0 {
			s, e = min(max(s, 0), d), min(max(e, 0), d)
			e = max(e, s)
		} else {
			s, e = min(max(s, 0), d-1), min(max(e, -1), d-1)
		}
		starts[i], ends[i], steps[i] = s, e, step
	}
	return starts, ends, steps, nil
}

// SliceBounds is the exported form of the Slice rule: per axis, the
// normalised start, end and step.
func SliceBounds(sh Shape, a Attrs) (starts, ends, steps []int64, err error) {
	return sliceBounds(sh, a)
}

func inferSlice(in []TensorType, a Attrs) ([]TensorType, error) {
	if err := need(in, 1); err != nil {
		return nil, err
	}
	starts, ends, steps, err := sliceBounds(in[0].Shape, a)
	if err != nil {
		return nil, err
	}
	out := make(Shape, len(starts))
	for i := range out {
		out[i] = sliceExtent(starts[i], ends[i], steps[i])
	}
	return one(TensorType{in[0].DType, out})
}

// sliceExtent counts the indices start, start+step, ... before end, without
// overflow for any step (including math.MinInt64).
func sliceExtent(start, end, step int64) int64 {
	switch {
	case step > 0 && end > start:
		return int64(uint64(end-start-1)/uint64(step)) + 1
	case step < 0 && start > end:
		return int64(uint64(start-end-1)/(-uint64(step))) + 1
	}
	return 0
}

func inferCast(in []TensorType, a Attrs) ([]TensorType, error) {
	if err := need(in, 1); err != nil {
		return nil, err
	}
	to, err := ParseDType(a.GetStr("to", ""))
	if err != nil {
		return nil, attrErr("Cast to %q", a.GetStr("to", ""))
	}
	return one(TensorType{to, in[0].Shape.Clone()})
}
