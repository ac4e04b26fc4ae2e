package ir

import (
	"fmt"
	"math/bits"
)

// DType is an element type. The zero value is invalid.
type DType uint8

// The element types memplan knows. Byte sizes come from [DType.Size].
const (
	InvalidDType DType = iota
	F32
	F16
	BF16
	F64
	I64
	I32
	I8
	U8
	Bool
)

var dtypeNames = [...]string{"invalid", "f32", "f16", "bf16", "f64", "i64", "i32", "i8", "u8", "bool"}
var dtypeSizes = [...]int64{0, 4, 2, 2, 8, 8, 4, 1, 1, 1}

// String returns the lowercase name used by the JSON format ("f32", "i64", ...).
func (d DType) String() string {
	if int(d) < len(dtypeNames) {
		return dtypeNames[d]
	}
	return fmt.Sprintf("dtype(%d)", uint8(d))
}

// Size returns the size of one element in bytes, or 0 for an invalid dtype.
func (d DType) Size() int64 {
	if int(d) < len(dtypeSizes) {
		return dtypeSizes[d]
	}
	return 0
}

// Valid reports whether d is one of the known element types.
func (d DType) Valid() bool { return d > InvalidDType && int(d) < len(dtypeNames) }

// IsFloat reports whether d is a floating-point type.
func (d DType) IsFloat() bool { return d == F32 || d == F16 || d == BF16 || d == F64 }

// ParseDType maps a dtype name ("f32", ...) to its DType.
func ParseDType(s string) (DType, error) {
	for i, n := range dtypeNames {
		if i > 0 && n == s {
			return DType(i), nil
		}
	}
	return InvalidDType, fmt.Errorf("ir: unknown dtype %q: %w", s, ErrDType)
}

// MaxBytes bounds every tensor's byte size (2^48, 256 TiB). Anything larger is
// rejected as an overflow, so a hostile file cannot ask for an absurd arena.
const MaxBytes int64 = 1 << 48

// MaxRank bounds the number of dimensions of a shape. Real models stay far
// below it; the bound keeps per-dimension work (strides, shape rules that
// copy a shape per output) proportional to the graph, not to a hostile file.
const MaxRank = 64

// Shape is a list of static, non-negative dimensions. A scalar has an empty shape.
type Shape []int64

// NumElements returns the product of the dimensions, checked: a rank above
// MaxRank, a negative dimension, a dimension above MaxBytes (even next to a
// zero) or a product above MaxBytes is an error, never a wrapped number.
func (s Shape) NumElements() (int64, error) {
	if len(s) > MaxRank {
		return 0, fmt.Errorf("ir: shape of rank %d exceeds %d: %w", len(s), MaxRank, ErrShape)
	}
	n := int64(1)
	for i, d := range s {
		if d < 0 {
			return 0, fmt.Errorf("ir: shape %v: dimension %d is negative: %w", s, i, ErrShape)
		}
		if d > MaxBytes {
			// Even in an empty tensor: strides over it would overflow.
			return 0, fmt.Errorf("ir: shape %v: dimension %d exceeds %d: %w", s, i, MaxBytes, ErrOverflow)
		}
		hi, lo := bits.Mul64(uint64(n), uint64(d))
		if hi != 0 || lo > uint64(MaxBytes) {
			return 0, fmt.Errorf("ir: shape %v: element count overflows: %w", s, ErrOverflow)
		}
		n = int64(lo)
	}
	return n, nil
}

// Equal reports whether two shapes have the same dimensions.
func (s Shape) Equal(t Shape) bool {
	if len(s) != len(t) {
		return false
	}
	for i := range s {
		if s[i] != t[i] {
			return false
		}
	}
	return true
}

// Clone returns a copy of s that shares no memory with it.
func (s Shape) Clone() Shape {
	if s == nil {
		return nil
	}
	return append(Shape{}, s...)
}

// String prints the shape as [2 3 4].
func (s Shape) String() string { return fmt.Sprint([]int64(s)) }

// ByteSize returns the size in bytes of a dense tensor of dtype d and shape s,
// checked for overflow against MaxBytes.
func ByteSize(d DType, s Shape) (int64, error) {
	if !d.Valid() {
		return 0, fmt.Errorf("ir: %v: %w", d, ErrDType)
	}
	n, err := s.NumElements()
	if err != nil {
		return 0, err
	}
	hi, lo := bits.Mul64(uint64(n), uint64(d.Size()))
	if hi != 0 || lo > uint64(MaxBytes) {
		return 0, fmt.Errorf("ir: %v%v: byte size overflows: %w", d, s, ErrOverflow)
	}
	return int64(lo), nil
}

// ContiguousStrides returns row-major strides in bytes for shape s and element size elem.
func ContiguousStrides(s Shape, elem int64) []int64 {
	st := make([]int64, len(s))
	acc := elem
	for i := len(s) - 1; i >= 0; i-- {
		st[i] = acc
		acc *= max(s[i], 1)
	}
	return st
}

// TensorType is a dtype and a shape: what a shape rule reasons about.
type TensorType struct {
	DType DType
	Shape Shape
}

// String prints the type as f32[2 3].
func (t TensorType) String() string { return t.DType.String() + t.Shape.String() }
