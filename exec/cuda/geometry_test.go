package cuda

import (
	"testing"

	"github.com/memplan/memplan/exec/launch"
)

func TestGeometry(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    launch.Launch
		want geometry
	}{
		{"elementwise", launch.Launch{Kernel: "unary_f32", Threads: 1000}, geometry{4, 256}},
		{"exact blocks", launch.Launch{Kernel: "unary_f32", Threads: 512}, geometry{2, 256}},
		{"empty", launch.Launch{Kernel: "unary_f32", Threads: 0}, geometry{}},
		// 2 batches x ceil(20/16) x ceil(33/16) tiles.
		{"matmul tiles", launch.Launch{Kernel: "matmul_f32", Threads: 2 * 20 * 33, Args: launch.MatMulParams{M: 20, N: 33, K: 7, Total: 2 * 20 * 33}}, geometry{12, 256}},
	} {
		got, err := geometryOf(&tc.l)
		if err != nil || got != tc.want {
			t.Errorf("%s: %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
}
