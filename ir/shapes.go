package ir

import "fmt"

// Shape rules. Each rule checks its inputs and attributes and returns the
// output types; errors wrap ErrShape, ErrTypeMismatch, ErrAttr or ErrArity and
// name the offending type or attribute. The caller (builder, validator) adds
// the node's name.

func shapeErr(format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, ErrShape)...)
}

func attrErr(format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, ErrAttr)...)
}

func one(t TensorType) ([]TensorType, error) {
	if _, err := ByteSize(t.DType, t.Shape); err != nil {
		return nil, err
	}
	return []TensorType{t}, nil
}

func need(in []TensorType, n int) error {
	if len(in) < n {
		return fmt.Errorf("want %d inputs, have %d: %w", n, len(in), ErrArity)
	}
	return nil
}

// normAxis maps a possibly negative axis into [0, rank).
func normAxis(axis int64, rank int) (int, error) {
	if axis < 0 {
		axis += int64(rank)
	}
	if axis < 0 || axis >= int64(rank) {
		return 0, attrErr("axis %d out of range for rank %d", axis, rank)
	}
	return int(axis), nil
}

// Broadcast returns the numpy-style broadcast of the given shapes.
func Broadcast(shapes ...Shape) (Shape, error) {
	rank := 0
	for _, s := range shapes {
		rank = max(rank, len(s))
	}
	out := make(Shape, rank)
	for i := range out {
		out[i] = 1
	}
	for _, s := range shapes {
		for i, d := range s {
			j := rank - len(s) + i
			switch {
			case d == out[j] || d == 1:
			case out[j] == 1:
				out[j] = d
			default:
				return nil, shapeErr("shapes %v not broadcastable", shapes)
			}
		}
	}
	return out, nil
}

func sameDType(in ...TensorType) error {
	for _, t := range in[1:] {
		if t.DType != in[0].DType {
			return fmt.Errorf("dtypes %v and %v differ: %w", in[0].DType, t.DType, ErrTypeMismatch)
		}
	}
	return nil
}

func inferUnary(in []TensorType, _ Attrs) ([]TensorType, error) {
	if err := need(in, 1); err != nil {
		return nil, err
	}
	return one(TensorType{in[0].DType, in[0].Shape.Clone()})
}

func inferAxisUnary(in []TensorType, a Attrs) ([]TensorType, error) {
	if err := need(in, 1); err != nil {
		return nil, err
	}
	if _, err := normAxis(a.GetInt("axis", -1), len(in[0].Shape)); err != nil {
		return nil, err
	}
	return inferUnary(in, a)
}

func inferBinary(boolOut bool) func([]TensorType, Attrs) ([]TensorType, error) {
	return func(in []TensorType, _ Attrs) ([]TensorType, error) {
		if err := need(in, 2); err != nil {
			return nil, err
		}
		if err := sameDType(in[0], in[1]); err != nil {
			return nil, err
		}
		s, err := Broadcast(in[0].Shape, in[1].Shape)
		if err != nil {
			return nil, err
		}
		dt := in[0].DType
		if boolOut {
			dt = Bool
		}
		return one(TensorType{dt, s})
	}
}

func inferWhere(in []TensorType, _ Attrs) ([]TensorType, error) {
	if err := need(in, 3); err != nil {
		return nil, err
	}
	if in[0].DType != Bool {
		return nil, fmt.Errorf("condition is %v, want bool: %w", in[0].DType, ErrTypeMismatch)
	}
	if err := sameDType(in[1], in[2]); err != nil {
		return nil, err
	}
	s, err := Broadcast(in[0].Shape, in[1].Shape, in[2].Shape)
	if err != nil {
		return nil, err
	}
	return one(TensorType{in[1].DType, s})
}

func inferMatMul(in []TensorType, _ Attrs) ([]TensorType, error) {
	if err := need(in, 2); err != nil {
		return nil, err
	}
	if err := sameDType(in[0], in[1]); err != nil {
		return nil, err
	}
	a, b := in[0].Shape.Clone(), in[1].Shape.Clone()
	if len(a) == 0 || len(b) == 0 {
		return nil, shapeErr("MatMul of a scalar (%v, %v)", a, b)
	}
	aVec, bVec := len(a) == 1, len(b) == 1
	if aVec {
		a = Shape{1, a[0]}
	}
	if bVec {
		b = Shape{b[0], 1}
	}
	m, k1 := a[len(a)-2], a[len(a)-1]
	k2, n := b[len(b)-2], b[len(b)-1]
	if k1 != k2 {
		return nil, shapeErr("MatMul inner dimensions %v x %v differ", in[0].Shape, in[1].Shape)
	}
	batch, err := Broadcast(a[:len(a)-2], b[:len(b)-2])
	if err != nil {
		return nil, err
	}
	out := append(batch, m, n)
	if aVec {
		out = append(out[:len(out)-2], n)
	}
	if bVec {
		out = out[:len(out)-1]
	}
	return one(TensorType{in[0].DType, out})
}

func inferGemm(in []TensorType, a Attrs) ([]TensorType, error) {
	if err := need(in, 2); err != nil {
		return nil, err
	}
	if err := sameDType(in...); err != nil {
		return nil, err
	}
	A, B := in[0].Shape, in[1].Shape
	if len(A) != 2 || len(B) != 2 {
		return nil, shapeErr("Gemm needs 2-D inputs, have %v and %v", A, B)
	}
	m, k := A[0], A[1]
	if a.GetInt("transA", 0) != 0 {
		m, k = k, m
	}
	k2, n := B[0], B[1]
	if a.GetInt("transB", 0) != 0 {
		k2, n = n, k2
	}
	if k != k2 {
		return nil, shapeErr("Gemm inner dimensions %v x %v differ", A, B)
	}
	out := Shape{m, n}
	if len(in) == 3 {
		s, err := Broadcast(in[2].Shape, out)
		if err != nil || !s.Equal(out) {
			return nil, shapeErr("Gemm bias %v does not broadcast to %v", in[2].Shape, out)
		}
	}
	return one(TensorType{in[0].DType, out})
}

func inferBatchNorm(in []TensorType, _ Attrs) ([]TensorType, error) {
	if err := need(in, 5); err != nil {
		return nil, err
	}
	if err := sameDType(in...); err != nil {
		return nil, err
	}
	x := in[0].Shape
	if len(x) < 2 {
		return nil, shapeErr("BatchNorm input %v has no channel axis", x)
	}
	for i, t := range in[1:] {
		if !t.Shape.Equal(Shape{x[1]}) {
			return nil, shapeErr("BatchNorm parameter %d has shape %v, want [%d]", i+1, t.Shape, x[1])
		}
	}
	return inferUnary(in[:1], nil)
}

func inferNorm(in []TensorType, a Attrs) ([]TensorType, error) {
	if err := need(in, 2); err != nil {
		return nil, err
	}
	if err := sameDType(in...); err != nil {
		return nil, err
	}
	x := in[0].Shape
	ax, err := normAxis(a.GetInt("axis", -1), len(x))
	if err != nil {
		return nil, err
	}
	for i, t := range in[1:] {
		if !t.Shape.Equal(x[ax:]) {
			return nil, shapeErr("normalisation parameter %d has shape %v, want %v", i+1, t.Shape, x[ax:])
		}
	}
	return inferUnary(in[:1], nil)
}

// ReduceAxes returns the sorted, normalised axes a reduction removes:
// the "axes" attribute, or every axis when it is absent or empty.
func ReduceAxes(rank int, a Attrs) ([]bool, error) {
	red := make([]bool, rank)
	axes := a.GetInts("axes", nil)
	if len(axes) == 0 {
		for i := range red {
			red[i] = true
		}
		return red, nil
	}
	for _, ax := range axes {
		i, err := normAxis(ax, rank)
		if err != nil {
			return nil, err
		}
		if red[i] {
			return nil, attrErr("axis %d repeated", ax)
		}
		red[i] = true
	}
	return red, nil
}

func inferReduce(in []TensorType, a Attrs) ([]TensorType, error) {
	if err := need(in, 1); err != nil {
		return nil, err
	}
	red, err := ReduceAxes(len(in[0].Shape), a)
	if err != nil {
		return nil, err
	}
	keep := a.GetInt("keepdims", 1) != 0
	out := Shape{}
	for i, d := range in[0].Shape {
		switch {
		case !red[i]:
			out = append(out, d)
		case keep:
			out = append(out, 1)
		}
	}
	return one(TensorType{in[0].DType, out})
}
