package cuda

import (
	"testing"

	"github.com/memplan/memplan/exec/launch"
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
		// 2 groups x ceil(24/16) channel tiles x ceil(2*17*17/16) position tiles.
		{"wide conv", launch.Launch{Kernel: "conv2d_f32", Threads: 2 * 48 * 17 * 17, Args: launch.ConvParams{N: 2, C: 8, M: 48, OH: 17, OW: 17, Group: 2, KH: 3, KW: 3}}, geometry{2 * 2 * 37, 256}, "conv2d_igemm_f32"},
		{"deep transposed conv", launch.Launch{Kernel: "convtranspose2d_f32", Threads: 8, Args: launch.ConvParams{C: 32, M: 1, Group: 1, KH: 2, KW: 2}}, geometry{1, 256}, "convtranspose2d_warp_f32"},
		{"shallow conv", launch.Launch{Kernel: "conv2d_f32", Threads: 100, Args: launch.ConvParams{N: 1, C: 3, M: 4, OH: 5, OW: 5, Group: 1, KH: 3, KW: 3}}, geometry{1, 256}, "conv2d_f32"},
		{"long rows", launch.Launch{Kernel: "rows_f32", Threads: 16, Args: launch.RowParams{Rows: 16, Cols: 128}}, geometry{2, 256}, "rows_warp_f32"},
		{"short rows", launch.Launch{Kernel: "rows_f32", Threads: 16, Args: launch.RowParams{Rows: 16, Cols: 1}}, geometry{1, 256}, "rows_f32"},
	} {
		kernel, got, err := shapeOf(&tc.l)
		if err != nil || got != tc.want || kernel != tc.kernel {
			t.Errorf("%s: %s %+v, %v; want %s %+v", tc.name, kernel, got, err, tc.kernel, tc.want)
		}
	}
}
