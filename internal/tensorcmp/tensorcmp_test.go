package tensorcmp

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRelErr(t *testing.T) {
	want := []float32{1, -2, 4}
	assert.Equal(t, 0.0, RelErr(want, want), "equal tensors")
	assert.InDelta(t, 1e-3, RelErr([]float32{1, -2, 4.004}, want), 1e-6, "scaled by max |want|")
	assert.InDelta(t, 0.5, RelErr([]float32{0.5, 0}, []float32{0, 0}), 1e-12, "all-zero reference: absolute error")
	assert.True(t, math.IsInf(RelErr([]float32{1, float32(math.NaN()), 4}, want), 1), "NaN in got")
	assert.True(t, math.IsInf(RelErr(want, []float32{1, float32(math.NaN()), 4}), 1), "NaN in want")
	assert.True(t, math.IsInf(RelErr(want[:1], want), 1), "length mismatch")
}

func TestF32s(t *testing.T) {
	b := make([]byte, 9)
	binary.LittleEndian.PutUint32(b, math.Float32bits(1.5))
	binary.LittleEndian.PutUint32(b[4:], math.Float32bits(-2))
	assert.Equal(t, []float32{1.5, -2}, F32s(b))
}
