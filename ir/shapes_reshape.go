package ir

// Shape rules of the ops that keep every element in order and only
// rename the shape: Reshape, Flatten, Squeeze and Unsqueeze. The element
// count never changes, so each rule checks that the output holds exactly
// the input's elements. Reshape's shape may hold one -1 (inferred from the
// element count) and 0s (copy the input's extent at that axis). Example:
// f32[2,3,4] reshaped to [0,-1] is f32[2,12].

func inferReshape(in []TensorType, a Attrs) ([]TensorType, error) {
	if err := need(in, 1); err != nil {
		return nil, err
	}
	want := a.GetInts("shape", nil)
	if want == nil {
		return nil, attrErr("Reshape needs a shape")
	}
	n, err := in[0].Shape.NumElements()
	if err != nil {
		return nil, err
	}
	out := make(Shape, len(want))
	infer := -1
	known := int64(1)
	for i, d := range want {
		switch {
		case d == -1 && infer < 0:
			infer = i
			continue
		case d == 0 && i < len(in[0].Shape):
			d = in[0].Shape[i]
		case d < 0:
			return nil, attrErr("Reshape shape %v", want)
		}
		out[i] = d
		if d != 0 && known > MaxBytes/d {
			return nil, shapeErr("Reshape shape %v overflows", want)
		}
		known *= d
	}
	if infer >= 0 {
		if known == 0 || n%known != 0 {
			return nil, shapeErr("Reshape %v to %v", in[0].Shape, want)
		}
		out[infer] = n / known
	} else if known != n {
		return nil, shapeErr("Reshape %v (%d elements) to %v", in[0].Shape, n, want)
	}
	return one(TensorType{in[0].DType, out})
}

func inferFlatten(in []TensorType, a Attrs) ([]TensorType, error) {
	if err := need(in, 1); err != nil {
		return nil, err
	}
	x := in[0].Shape
	ax := a.GetInt("axis", 1)
	if ax < 0 {
		ax += int64(len(x))
	}
	if ax < 0 || ax > int64(len(x)) {
		return nil, attrErr("Flatten axis %d for rank %d", a.GetInt("axis", 1), len(x))
	}
	lo, err := x[:ax].NumElements()
	if err != nil {
		return nil, err
	}
	hi, err := x[ax:].NumElements()
	if err != nil {
		return nil, err
	}
	return one(TensorType{in[0].DType, Shape{lo, hi}})
}

func inferSqueeze(in []TensorType, a Attrs) ([]TensorType, error) {
	if err := need(in, 1); err != nil {
		return nil, err
	}
	x := in[0].Shape
	drop := make([]bool, len(x))
	axes := a.GetInts("axes", nil)
	for _, ax := range axes {
		i, err := normAxis(ax, len(x))
		if err != nil {
			return nil, err
		}
		if x[i] != 1 {
			return nil, shapeErr("Squeeze axis %d of %v is not 1", ax, x)
		}
		drop[i] = true
	}
	out := Shape{}
	for i, d := range x {
		if drop[i] || (len(axes) == 0 && d == 1) {
			continue
		}
		out = append(out, d)
	}
	return one(TensorType{in[0].DType, out})
}

func inferUnsqueeze(in []TensorType, a Attrs) ([]TensorType, error) {
	if err := need(in, 1); err != nil {
		return nil, err
	}
	x := in[0].Shape
	axes := a.GetInts("axes", nil)
	r := len(x) + len(axes)
	if len(axes) == 0 {
		return nil, attrErr("Unsqueeze needs axes")
	}
	ins := make([]bool, r)
	for _, ax := range axes {
		i, err := normAxis(ax, r)
		if err != nil {
			return nil, err
		}
		if ins[i] {
			return nil, attrErr("Unsqueeze axis %d repeated", ax)
		}
		ins[i] = true
	}
	out := make(Shape, 0, r)
	j := 0
	for i := range r {
		if ins[i] {
			out = append(out, 1)
		} else {
			out = append(out, x[j])
			j++
		}
	}
	return one(TensorType{in[0].DType, out})
}
