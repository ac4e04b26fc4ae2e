package cuda

import (
	"testing"

	"github.com/memplan/memplan/exec/launch"
	"github.com/stretchr/testify/assert"
)

func TestGeometry(t *testing.T) {
	for _, tc := range []struct {
		name   string
		l      launch.Launch
		want   geometry
		kernel string
	}{
		{"elementwise", launch.Launch{Kernel: "unary_f32", Threads: 1000}, geometry{4, 256}, "unary_f32"},
		{"exact blocks", launch.Launch{Kernel: "unary_f32", Threads: 512}, geometry{2, 256}, "unary_f32"},
		{"empty", launch.Launch{Kernel: "unary_f32", Threads: 0}, geometry{}, "unary_f32"},
		// 2 batches x ceil(20/16) x ceil(33/16) tiles.
		{"matmul tiles", launch.Launch{Kernel: "matmul_f32", Threads: 2 * 20 * 33, Args: launch.MatMulParams{M: 20, N: 33, K: 7, Total: 2 * 20 * 33}}, geometry{12, 256}, "matmul_f32"},
		// One warp per output: 8 per block of 256.
		{"deep conv", launch.Launch{Kernel: "conv2d_f32", Threads: 100, Args: launch.ConvParams{N: 1, C: 64, M: 4, OH: 5, OW: 5, Group: 1, KH: 1, KW: 1}}, geometry{13, 256}, "conv2d_warp_f32"},
		// 2 groups x ceil(24/32) channel tiles x ceil(2*17*17/32) position
		// tiles: too few blocks for any tile, so the most K split.
		{"wide conv", launch.Launch{Kernel: "conv2d_f32", Threads: 2 * 48 * 17 * 17, Args: launch.ConvParams{N: 2, C: 8, M: 48, OH: 17, OW: 17, Group: 2, KH: 3, KW: 3}}, geometry{2 * 19, 512}, "conv2d_gemm32k_f32"},
		// 256 channels x 8*56*56 positions: 2 x 196 tiles of 128 x 128.
		{"large conv", launch.Launch{Kernel: "conv2d_f32", Threads: 8 * 256 * 56 * 56, Args: launch.ConvParams{N: 8, C: 64, M: 256, OH: 56, OW: 56, Group: 1, KH: 1, KW: 1}}, geometry{2 * 196, 256}, "conv2d_gemm128_f32"},
		// 64 channels: a 128-row tile would be half empty; 1 x 392 tiles of 64 x 64.
		{"64-channel conv", launch.Launch{Kernel: "conv2d_f32", Threads: 8 * 64 * 56 * 56, Args: launch.ConvParams{N: 8, C: 64, M: 64, OH: 56, OW: 56, Group: 1, KH: 3, KW: 3}}, geometry{392, 256}, "conv2d_gemm64_f32"},
		// 49 tiles of 64 x 64 are too few; 2 x 98 of 32 x 32.
		{"batch-1 conv", launch.Launch{Kernel: "conv2d_f32", Threads: 64 * 56 * 56, Args: launch.ConvParams{N: 1, C: 64, M: 64, OH: 56, OW: 56, Group: 1, KH: 3, KW: 3}}, geometry{196, 256}, "conv2d_gemm32_f32"},
		// One output channel per group (depthwise): the direct kernel.
		{"depthwise conv", launch.Launch{Kernel: "conv2d_f32", Threads: 32 * 56 * 56, Args: launch.ConvParams{N: 1, C: 32, M: 32, OH: 56, OW: 56, Group: 32, KH: 3, KW: 3}}, geometry{392, 256}, "conv2d_f32"},
		// 3 batches x 2 x 2 tiles of 32 x 32, most K split.
		{"matmul gemm", launch.Launch{Kernel: "matmul_f32", Threads: 3 * 64 * 40, Args: launch.MatMulParams{M: 64, N: 40, K: 9, Total: 3 * 64 * 40}}, geometry{12, 512}, "matmul_gemm32k_f32"},
		{"deep transposed conv", launch.Launch{Kernel: "convtranspose2d_f32", Threads: 8, Args: launch.ConvParams{C: 32, M: 1, Group: 1, KH: 2, KW: 2}}, geometry{1, 256}, "convtranspose2d_warp_f32"},
		{"shallow conv", launch.Launch{Kernel: "conv2d_f32", Threads: 100, Args: launch.ConvParams{N: 1, C: 3, M: 4, OH: 5, OW: 5, Group: 1, KH: 3, KW: 3}}, geometry{1, 256}, "conv2d_f32"},
		{"long rows", launch.Launch{Kernel: "rows_f32", Threads: 16, Args: launch.RowParams{Rows: 16, Cols: 128}}, geometry{2, 256}, "rows_warp_f32"},
		{"short rows", launch.Launch{Kernel: "rows_f32", Threads: 16, Args: launch.RowParams{Rows: 16, Cols: 1}}, geometry{1, 256}, "rows_f32"},
	} {
		kernel, got, err := shapeOf(&tc.l)
		assert.Falsef(t, err != nil || got != tc.want || kernel != tc.kernel, "%s: %s %+v, %v; want %s %+v", tc.name, kernel, got, err, tc.kernel, tc.want)
	}
}
