package exec_test

import (
	"context"
	"encoding/binary"
	"math"
	"testing"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/cpu"
	"github.com/memplan/memplan/internal/irtest"
	"github.com/stretchr/testify/require"
)

func f32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// TestRandomInputsShapeOnlyWeights checks the two rules that keep runs of
// shape-only models finite: contraction kernels are scaled by 1/sqrt(fan-in)
// and rank-1 weights (here a BatchNorm variance) are positive.
func TestRandomInputsShapeOnlyWeights(t *testing.T) {
	g, ids := irtest.MustBuild(t, `
x = input f32[1,16,8,8]
w = weight f32[32,16,3,3]
s = weight f32[32]
b = weight f32[32]
m = weight f32[32]
v = weight f32[32]
c = Conv x w pads=[1,1,1,1]
n = BatchNorm c s b m v
y = Relu n
output y`)
	in, err := exec.RandomInputs(g, 5)
	require.NoErrorf(t, err, "%v", err)
	limit := float32(1 / math.Sqrt(16*3*3))
	for i, f := range f32s(in[ids["w"]]) {
		require.Falsef(t, f == 0 || f > limit || f < -limit, "conv weight[%d] = %g, want 0 < |w| <= %g", i, f, limit)
	}
	for i, f := range f32s(in[ids["v"]]) {
		require.Truef(t, f > 0, "BatchNorm variance[%d] = %g, want > 0", i, f)
	}
	for i, f := range f32s(in[ids["x"]]) {
		require.Falsef(t, f == 0 || math.Abs(float64(f)) >= 1, "input[%d] = %g, want 0.1 <= |x| < 1", i, f)
	}
	prog, err := exec.Compile(context.Background(), g, exec.CompileOptions{Mode: exec.Inferred})
	require.NoErrorf(t, err, "%v", err)
	res, err := exec.RunOnce(context.Background(), cpu.New(cpu.Options{}), prog, in, exec.RunOptions{})
	require.NoErrorf(t, err, "%v", err)
	for id, out := range res.Outputs {
		for i, f := range f32s(out) {
			require.Falsef(t, math.IsNaN(float64(f)) || math.IsInf(float64(f), 0), "output %d[%d] = %g", id, i, f)
		}
	}
}
