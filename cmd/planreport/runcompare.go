package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/onnx"
)

// outputError is how far one output is from its reference tensor, element
// by element (numpy's assert_allclose reports the same two figures):
//
//	abs_i = |got_i - want_i|          maxAbs = max abs_i, at absAt
//	rel_i = abs_i / |want_i|          maxRel = max rel_i, at relAt
//
// rel_i is 0 where both are 0 and +Inf where only want_i is; a NaN on one
// side only is an infinite error, NaN on both sides none.
type outputError struct {
	ok             bool // false: no comparison (dtype without numbers, or a size mismatch)
	why            string
	maxAbs, maxRel float64
	absAt, relAt   int64 // flat element indexes
	got, want      float64
	shape          ir.Shape
}

// compareOutput compares an output's dense bytes with its reference tensor.
func compareOutput(v *ir.Value, got []byte, ref *onnx.Tensor) outputError {
	e := outputError{shape: v.Shape}
	if ref == nil {
		e.why = "no reference"
		return e
	}
	es := v.DType.Size()
	if es <= 0 || len(got) != len(ref.Data) || int64(len(got))%es != 0 {
		e.why = fmt.Sprintf("size %d B vs reference %d B", len(got), len(ref.Data))
		return e
	}
	n := int64(len(got)) / es
	if _, ok := element(v.DType, got, 0); !ok && n > 0 {
		if bytes.Equal(got, ref.Data) {
			e.why = "bytes equal"
		} else {
			e.why = "bytes differ"
		}
		return e
	}
	e.ok = true
	for i := range n {
		a, _ := element(v.DType, got, i)
		b, _ := element(v.DType, ref.Data, i)
		var d, r float64
		switch {
		case math.IsNaN(a) && math.IsNaN(b):
		case math.IsNaN(a) || math.IsNaN(b):
			d, r = math.Inf(1), math.Inf(1)
		default:
			d = math.Abs(a - b)
			switch {
			case d == 0:
			case b == 0:
				r = math.Inf(1)
			default:
				r = d / math.Abs(b)
			}
		}
		if d > e.maxAbs {
			e.maxAbs, e.absAt, e.got, e.want = d, i, a, b
		}
		if r > e.maxRel {
			e.maxRel, e.relAt = r, i
		}
	}
	return e
}

// columns prints max_abs_err, at, got, want, max_rel_err, at as
// tab-separated columns; a comparison that could not be made fills them
// with its reason and dashes.
func (e outputError) columns() string {
	if !e.ok {
		return e.why + "\t-\t-\t-\t-\t-"
	}
	g := func(f float64) string { return strconv.FormatFloat(f, 'g', 4, 64) }
	return strings.Join([]string{g(e.maxAbs), e.index(e.absAt), g(e.got), g(e.want), g(e.maxRel), e.index(e.relAt)}, "\t")
}

// index prints a flat element index as a multi-index over the shape,
// row-major: [0,2,1].
func (e outputError) index(flat int64) string {
	if len(e.shape) == 0 {
		return "[]"
	}
	idx := make([]string, len(e.shape))
	for d := len(e.shape) - 1; d >= 0; d-- {
		n := max(e.shape[d], 1)
		idx[d] = strconv.FormatInt(flat%n, 10)
		flat /= n
	}
	return "[" + strings.Join(idx, ",") + "]"
}

// element reads element i of a dense little-endian tensor as a float64;
// false for dtypes without a numeric reading here (f16, bf16).
func element(dt ir.DType, b []byte, i int64) (float64, bool) {
	switch dt {
	case ir.F32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))), true
	case ir.F64:
		return math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])), true
	case ir.I64:
		return float64(int64(binary.LittleEndian.Uint64(b[8*i:]))), true
	case ir.I32:
		return float64(int32(binary.LittleEndian.Uint32(b[4*i:]))), true
	case ir.I8:
		return float64(int8(b[i])), true
	case ir.U8, ir.Bool:
		return float64(b[i]), true
	}
	return 0, false
}
