package launch

// Tensor descriptors: how a kernel finds element i of an operand.
//
// Every kernel walks a logical index space (usually the output's shape) one
// thread per element, or one thread per row. An operand is handed to the
// kernel as a Tensor descriptor over that same logical shape: its strides,
// in elements, say how far one step along each logical dimension moves in
// the operand's buffer, and a stride of 0 broadcasts. The buffer itself is
// bound at the operand's byte offset, so element 0 is at the pointer.
//
// Example: Add(a f32[2 3], b f32[3]) -> out f32[2 3]. Logical shape [2 3].
//
//	out: shape [2 3] strides [3 1]
//	a:   shape [2 3] strides [3 1]
//	b:   shape [2 3] strides [0 1]   (b broadcast along dim 0)
//
// Thread 4 decomposes 4 into coordinates (1, 1) and reads a[1*3+1*1] and
// b[1*0+1*1]. The same decomposition runs in MSL and CUDA C (tensor_offset
// in exec/metal/kernels/common.metal, exec/cuda/kernels/common.cuh) and in the Go twins of the tests (off32).

import (
	"fmt"
	"math"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/ir"
)

// MaxRank is the largest rank a tensor descriptor holds.
const MaxRank = 8

// Tensor mirrors the kernels' struct Tensor (common.metal, common.cuh).
type Tensor struct {
	Rank    int32
	Shape   [MaxRank]int32
	Strides [MaxRank]int32 // in elements; 0 broadcasts
}

// Numel is the number of elements of the descriptor's logical shape.
func (t *Tensor) Numel() int64 {
	n := int64(1)
	for k := int32(0); k < t.Rank; k++ {
		n *= int64(t.Shape[k])
	}
	return n
}

// operand is one bound tensor: where it is and how it is laid out, in
// elements of its dtype.
type operand struct {
	b       exec.Binding
	shape   []int64
	strides []int64 // elements
}

// operandOf converts a binding's byte strides into element strides.
func operandOf(b exec.Binding) (operand, error) {
	sz := int64(b.DType.Size())
	if sz == 0 {
		return operand{}, fmt.Errorf("%w: value %d: dtype %v", ErrUnsupported, b.Value, b.DType)
	}
	if len(b.Shape) > MaxRank {
		return operand{}, fmt.Errorf("%w: value %d: rank %d > %d", ErrUnsupported, b.Value, len(b.Shape), MaxRank)
	}
	if len(b.StridesBytes) != len(b.Shape) {
		return operand{}, fmt.Errorf("%w: value %d: %d strides for rank %d", ErrLayout, b.Value, len(b.StridesBytes), len(b.Shape))
	}
	if b.OffsetBytes%sz != 0 {
		return operand{}, fmt.Errorf("%w: value %d: offset %d not a multiple of %d", ErrLayout, b.Value, b.OffsetBytes, sz)
	}
	o := operand{b: b, shape: append([]int64{}, b.Shape...), strides: make([]int64, len(b.Shape))}
	for k, s := range b.StridesBytes {
		if s%sz != 0 {
			return operand{}, fmt.Errorf("%w: value %d: stride %d not a multiple of %d", ErrLayout, b.Value, s, sz)
		}
		o.strides[k] = s / sz
	}
	return o, nil
}

// desc builds a descriptor with the given logical shape and element
// strides, checking that every offset fits 32-bit arithmetic.
func desc(value ir.ValueID, shape, strides []int64) (Tensor, error) {
	var t Tensor
	if len(shape) > MaxRank {
		return t, fmt.Errorf("%w: value %d: rank %d > %d", ErrUnsupported, value, len(shape), MaxRank)
	}
	t.Rank = int32(len(shape))
	n, span := int64(1), int64(0)
	for k := range shape {
		if shape[k] > math.MaxInt32 || strides[k] > math.MaxInt32 || strides[k] < math.MinInt32 {
			return t, fmt.Errorf("%w: value %d: dim %d", ErrTooLarge, value, k)
		}
		t.Shape[k], t.Strides[k] = int32(shape[k]), int32(strides[k])
		n *= shape[k]
		if shape[k] > 0 {
			s := strides[k]
			if s < 0 {
				s = -s
			}
			span += (shape[k] - 1) * s
		}
		if n > math.MaxInt32 || span > math.MaxInt32 {
			return t, fmt.Errorf("%w: value %d", ErrTooLarge, value)
		}
	}
	return t, nil
}

// own is the operand's descriptor over its own shape.
func (o operand) own() (Tensor, error) { return desc(o.b.Value, o.shape, o.strides) }

// broadcastTo describes o over the logical shape out by numpy rules: o's
// dimensions align to the right, and a dimension of size 1 (or a missing
// one) gets stride 0.
func (o operand) broadcastTo(out []int64) (Tensor, error) {
	r, ro := len(out), len(o.shape)
	if ro > r {
		return Tensor{}, fmt.Errorf("%w: value %d: rank %d broadcast to rank %d", ErrUnsupported, o.b.Value, ro, r)
	}
	strides := make([]int64, r)
	for k := 0; k < ro; k++ {
		ko := k + r - ro
		switch o.shape[k] {
		case out[ko]:
			strides[ko] = o.strides[k]
		case 1:
		default:
			return Tensor{}, fmt.Errorf("%w: value %d: shape %v does not broadcast to %v", ErrUnsupported, o.b.Value, o.shape, out)
		}
	}
	return desc(o.b.Value, out, strides)
}

// permuted describes o with its dimensions reordered: logical dimension k
// is o's dimension perm[k].
func (o operand) permuted(perm []int) (Tensor, error) {
	shape := make([]int64, len(perm))
	strides := make([]int64, len(perm))
	for k, p := range perm {
		shape[k], strides[k] = o.shape[p], o.strides[p]
	}
	return desc(o.b.Value, shape, strides)
}

// Numel is the number of elements of a shape.
func Numel(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	return n
}

// normAxis maps a possibly negative axis onto [0, rank).
func normAxis(axis int64, rank int) (int, bool) {
	if axis < 0 {
		axis += int64(rank)
	}
	return int(axis), axis >= 0 && axis < int64(rank)
}
