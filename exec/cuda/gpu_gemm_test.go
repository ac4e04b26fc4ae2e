package cuda_test

import (
	"context"
	"testing"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/internal/randgraph"
	"github.com/memplan/memplan/internal/tensorcmp"
	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gemmCase is one Conv, MatMul or Gemm graph whose shape selects one of
// gemm.cu's tile configurations (geometry.go's pickGemm; the comment
// names which) and, for Conv, its aligned, table or per-element patch
// gather (unaligned convolutions of K <= 1024 use the table); or
// another kernel with a shortcut of its own (the comment says which).
type gemmCase struct {
	name  string
	build func(b *ir.Builder) ir.ValueID
}

func convCase(name string, x, w []int64, bias bool, attrs ir.Attrs) gemmCase {
	return gemmCase{name, func(b *ir.Builder) ir.ValueID {
		in := []ir.ValueID{b.Input("x", ir.F32, x...), b.Weight("w", ir.F32, w...)}
		if bias {
			in = append(in, b.Weight("b", ir.F32, w[0]))
		}
		return b.Op("Conv", attrs, in...)
	}}
}

var gemmCases = []gemmCase{
	// gemm128: 256 channels x 3*56*56 positions; 64 channels (aligned) and
	// 5 (per-element gather), 250 channels (a partial tile).
	convCase("gemm128 1x1 aligned", []int64{3, 64, 56, 56}, []int64{256, 64, 1, 1}, true, nil),
	convCase("gemm128 3x3 unaligned", []int64{3, 5, 56, 56}, []int64{250, 5, 3, 3}, false, ir.Attrs{"pads": ir.Ints(1, 1, 1, 1)}),
	// gemm64: 96 channels x 2*48*48 positions, dilated; then 70 channels,
	// a 5x3 window, stride 2 and uneven pads.
	convCase("gemm64 dilated", []int64{2, 32, 48, 48}, []int64{96, 32, 3, 3}, true, ir.Attrs{"pads": ir.Ints(2, 2, 2, 2), "dilations": ir.Ints(2, 2)}),
	convCase("gemm64 strided", []int64{2, 20, 97, 97}, []int64{70, 20, 5, 3}, true, ir.Attrs{"pads": ir.Ints(1, 2, 0, 1), "strides": ir.Ints(2, 2)}),
	// gemm32: two groups of 32 channels x 48*48 positions.
	convCase("gemm32 grouped", []int64{1, 64, 48, 48}, []int64{64, 32, 3, 3}, true, ir.Attrs{"pads": ir.Ints(1, 1, 1, 1), "group": ir.Int(2)}),
	// gemm32k: deep windows over few positions, aligned and not.
	convCase("gemm32k deep", []int64{1, 256, 7, 7}, []int64{96, 256, 3, 3}, true, ir.Attrs{"pads": ir.Ints(1, 1, 1, 1)}),
	convCase("gemm32k unaligned", []int64{2, 200, 13, 13}, []int64{40, 200, 1, 1}, false, ir.Attrs{"strides": ir.Ints(2, 2)}),
	// Unaligned with K = 120*9 > CONV_TAB: the gather divides per element.
	convCase("gemm32k unaligned long K", []int64{1, 120, 14, 14}, []int64{64, 120, 3, 3}, true, ir.Attrs{"pads": ir.Ints(1, 1, 1, 1)}),
	{"matmul gemm32k batched", func(b *ir.Builder) ir.ValueID {
		return b.Op("MatMul", nil, b.Input("a", ir.F32, 3, 70, 50), b.Input("b", ir.F32, 3, 50, 90))
	}},
	{"matmul gemm32", func(b *ir.Builder) ir.ValueID {
		return b.Op("MatMul", nil, b.Input("a", ir.F32, 300, 256), b.Weight("b", ir.F32, 256, 520))
	}},
	{"gemm gemm64 transB", func(b *ir.Builder) ir.ValueID {
		return b.Op("Gemm", ir.Attrs{"transB": ir.Int(1), "alpha": ir.Float(0.5), "beta": ir.Float(2)},
			b.Input("a", ir.F32, 512, 64), b.Weight("b", ir.F32, 1100, 64), b.Weight("c", ir.F32, 1100))
	}},
	{"matmul gemm128", func(b *ir.Builder) ir.ValueID {
		return b.Op("MatMul", nil, b.Input("a", ir.F32, 1024, 64), b.Weight("b", ir.F32, 64, 2200))
	}},
	// Not a GEMM: BatchNorm (batchnorm_f32) places the channel once for its four
	// per-channel operands; the variance is positive.
	{"batchnorm", func(b *ir.Builder) ir.ValueID {
		const c = 24
		var v []byte
		for i := range c {
			v = append(v, randgraph.F32LE(0.5+0.1*float32(i%7))...)
		}
		return b.Op("BatchNorm", nil, b.Input("x", ir.F32, 2, c, 9, 11),
			b.Weight("scale", ir.F32, c), b.Weight("bias", ir.F32, c), b.Weight("mean", ir.F32, c), b.WeightData("var", ir.F32, v, c))
	}},
}

// TestGPUGemmShapes runs every gemmCase in every GPU mode against the CPU
// backend (within 1e-5, max |got-want| over max |want|); every mode must
// give the serial mode's bits.
func TestGPUGemmShapes(t *testing.T) {
	bes := backends(t)
	for _, tc := range gemmCases {
		b := ir.NewBuilder(tc.name)
		b.Output(tc.build(b))
		g, err := b.Build()
		require.NoErrorf(t, err, "%s: %v", tc.name, err)
		in, err := exec.RandomInputs(g, 3)
		require.NoErrorf(t, err, "%v", err)
		var want *exec.Result
		var first map[ir.ValueID][]byte
		for _, m := range gpuModes {
			prog, err := exec.Compile(context.Background(), g, exec.CompileOptions{Mode: m.mode})
			require.NoErrorf(t, err, "%s %s: compile: %v", tc.name, m.name, err)
			if want == nil {
				want = cpuRun(t, prog, in)
			}
			got, err := exec.RunOnce(context.Background(), bes[m.sync], prog, in, exec.RunOptions{})
			require.NoErrorf(t, err, "%s %s: %v", tc.name, m.name, err)
			for id, w := range want.Outputs {
				rel := tensorcmp.RelErr(tensorcmp.F32s(got.Outputs[id]), tensorcmp.F32s(w))
				assert.Falsef(t, rel > 1e-5, "%s %s: relative error %.3g > 1e-5 vs the CPU", tc.name, m.name, rel)
				if first == nil {
					t.Logf("%s: %d elements, relative error %.3g vs the CPU", tc.name, len(w)/4, rel)
				} else if string(got.Outputs[id]) != string(first[id]) {
					t.Errorf("%s %s: bits differ from mode %s", tc.name, m.name, gpuModes[0].name)
				}
			}
			if first == nil {
				first = got.Outputs
			}
		}
	}
}
