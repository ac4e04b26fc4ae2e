package onnx

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/memplan/memplan/ir"
)

// konst is a tensor whose values the importer knows: a small initializer or
// Constant, or the result of folding. Integer and bool elements live in ints,
// floating ones in floats (f32 values rounded to float32 after every
// operation, so folding gives the bits a float32 kernel would).
type konst struct {
	dt     ir.DType
	shape  ir.Shape
	ints   []int64
	floats []float64
}

// foldable reports whether konst can hold dtype d (f16/bf16 are not folded).
func foldable(d ir.DType) bool {
	switch d {
	case ir.F32, ir.F64, ir.I64, ir.I32, ir.I8, ir.U8, ir.Bool:
		return true
	}
	return false
}

func (k *konst) len() int {
	if k.dt.IsFloat() {
		return len(k.floats)
	}
	return len(k.ints)
}

func (k *konst) typ() ir.TensorType { return ir.TensorType{DType: k.dt, Shape: k.shape} }

// at returns element i as float64 (bools and ints converted).
func (k *konst) f(i int) float64 {
	if k.dt.IsFloat() {
		return k.floats[i]
	}
	return float64(k.ints[i])
}

// i returns element i as int64 (floats truncated toward zero, as Cast does).
func (k *konst) i(i int) int64 {
	if k.dt.IsFloat() {
		return truncInt(k.floats[i])
	}
	return k.ints[i]
}

func truncInt(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= 9.2e18:
		return math.MaxInt64
	case f <= -9.2e18:
		return math.MinInt64
	}
	return int64(f)
}

// newKonst allocates a zero konst of type dt and shape s.
func newKonst(dt ir.DType, s ir.Shape) (*konst, error) {
	n, err := s.NumElements()
	if err != nil {
		return nil, err
	}
	k := &konst{dt: dt, shape: s.Clone()}
	if dt.IsFloat() {
		k.floats = make([]float64, n)
	} else {
		k.ints = make([]int64, n)
	}
	return k, nil
}

// set stores v (given as float64 or int64 through the matching argument)
// converting to k's dtype: wrapping for narrow ints, 0/1 for bool, float32
// rounding for f32.
func (k *konst) setF(i int, v float64) {
	if k.dt.IsFloat() {
		if k.dt == ir.F32 {
			v = float64(float32(v))
		}
		k.floats[i] = v
		return
	}
	if k.dt == ir.Bool {
		k.ints[i] = b2i(v != 0)
		return
	}
	k.setI(i, truncInt(v))
}

func (k *konst) setI(i int, v int64) {
	switch k.dt {
	case ir.F32, ir.F64:
		k.setF(i, float64(v))
		return
	case ir.I32:
		v = int64(int32(v))
	case ir.I8:
		v = int64(int8(v))
	case ir.U8:
		v = int64(uint8(v))
	case ir.Bool:
		v = b2i(v != 0)
	}
	k.ints[i] = v
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// konstFromBytes decodes raw little-endian bytes of a foldable dtype.
func konstFromBytes(dt ir.DType, s ir.Shape, data []byte) (*konst, error) {
	k, err := newKonst(dt, s)
	if err != nil {
		return nil, err
	}
	es := int(dt.Size())
	if len(data) != k.len()*es {
		return nil, fmt.Errorf("onnx: %d bytes for %v%v: %w", len(data), dt, s, ErrTensor)
	}
	for i := range k.len() {
		b := data[i*es:]
		switch dt {
		case ir.F32:
			k.floats[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
		case ir.F64:
			k.floats[i] = math.Float64frombits(binary.LittleEndian.Uint64(b))
		case ir.I64:
			k.ints[i] = int64(binary.LittleEndian.Uint64(b))
		case ir.I32:
			k.ints[i] = int64(int32(binary.LittleEndian.Uint32(b)))
		case ir.I8:
			k.ints[i] = int64(int8(b[0]))
		case ir.U8:
			k.ints[i] = int64(b[0])
		case ir.Bool:
			k.ints[i] = b2i(b[0] != 0)
		}
	}
	return k, nil
}

// bytes encodes k as raw little-endian bytes.
func (k *konst) bytes() []byte {
	es := int(k.dt.Size())
	out := make([]byte, k.len()*es)
	for i := range k.len() {
		b := out[i*es:]
		switch k.dt {
		case ir.F32:
			binary.LittleEndian.PutUint32(b, math.Float32bits(float32(k.floats[i])))
		case ir.F64:
			binary.LittleEndian.PutUint64(b, math.Float64bits(k.floats[i]))
		case ir.I64:
			binary.LittleEndian.PutUint64(b, uint64(k.ints[i]))
		case ir.I32:
			binary.LittleEndian.PutUint32(b, uint32(k.ints[i]))
		default: // i8, u8, bool
			b[0] = byte(k.ints[i])
		}
	}
	return out
}

// intList returns a konst of rank <= 1 as a list of int64, for the inputs the
// importer folds into integer attributes (shapes, axes, pads, slice bounds).
func (k *konst) intList(what string) ([]int64, error) {
	if len(k.shape) > 1 {
		return nil, fmt.Errorf("%s has shape %v, want a vector: %w", what, k.shape, ErrAttr)
	}
	if k.dt.IsFloat() {
		return nil, fmt.Errorf("%s is %v, want integers: %w", what, k.dt, ErrAttr)
	}
	return append([]int64{}, k.ints...), nil
}

// scalar returns a one-element konst as float64.
func (k *konst) scalar(what string) (float64, error) {
	if k.len() != 1 {
		return 0, fmt.Errorf("%s has shape %v, want one element: %w", what, k.shape, ErrAttr)
	}
	return k.f(0), nil
}
