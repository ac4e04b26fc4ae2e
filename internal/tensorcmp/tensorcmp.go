// Package tensorcmp compares float32 tensors the way the tests that hold a
// backend to a reference (PyTorch's saved outputs, the CPU backend) do: one
// relative error per tensor.
package tensorcmp

import (
	"encoding/binary"
	"math"
)

// RelErr returns max |got-want| / max |want| over the elements (the plain
// max |got-want| when want is all zeros). A NaN in got or want, or a length
// mismatch, gives +Inf: such outputs never pass a tolerance.
func RelErr(got, want []float32) float64 {
	if len(got) != len(want) {
		return math.Inf(1)
	}
	var diff, scale float64
	for i := range want {
		d := math.Abs(float64(got[i]) - float64(want[i]))
		if math.IsNaN(d) {
			return math.Inf(1)
		}
		diff = max(diff, d)
		scale = max(scale, math.Abs(float64(want[i])))
	}
	if scale == 0 {
		return diff
	}
	return diff / scale
}

// F32s reads little-endian float32 elements from b (a trailing partial
// element is ignored).
func F32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}
