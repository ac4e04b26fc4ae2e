package cuda

// Launch shape: which CUDA function runs a launch, and how many blocks of
// how many threads. launch.Plan names the kernel and counts its threads
// (one per output element, or per row); the CUDA backend may run a variant
// with the same parameters and operands that spreads one item's work over
// a warp, where one thread per item would loop long over too few threads:
//
//	kernel               runs as                   grid
//	matmul_f32           itself                    one 16x16-thread block per output tile per batch
//	conv2d_f32           conv2d_igemm_f32          >= 256 output positions (N*OH*OW): one 16x16-thread
//	                                               block per output tile of each group's implicit GEMM
//	conv2d_f32           conv2d_warp_f32           else, window of >= 64 taps (C/G*KH*KW): one warp per output
//	convtranspose2d_f32  convtranspose2d_warp_f32  window of >= 64 taps: one warp per output
//	rows_f32             rows_warp_f32             rows of >= 2 columns: one warp per row
//	any other            itself                    one thread per item, blocks of 256
//
// Every variant sums in a fixed order, so a program gives the same bits in
// every mode and run.

import (
	"fmt"
	"math"
	"strings"

	"github.com/memplan/memplan/exec/launch"
)

// matmulTile must equal MATMUL_TILE in kernels/linear.cu.
const matmulTile = 16

// Thresholds for the warp variants.
const (
	warpConvTaps   = 64
	warpRowCols    = 2
	igemmPositions = 256
)

// geometry is a one-dimensional grid: blocks x threads.
type geometry struct {
	blocks, threads int
}

// shapeOf returns the function name and grid of one launch; a launch of
// zero items has zero blocks (the encoder skips it).
func shapeOf(l *launch.Launch) (string, geometry, error) {
	if l.Threads == 0 {
		return l.Kernel, geometry{}, nil
	}
	switch a := l.Args.(type) {
	case launch.MatMulParams:
		if l.Kernel != "matmul_f32" || a.M <= 0 || a.N <= 0 {
			break
		}
		tiles := int64((a.M+matmulTile-1)/matmulTile) * int64((a.N+matmulTile-1)/matmulTile)
		batch := int64(a.Total) / (int64(a.M) * int64(a.N))
		g, err := grid(batch*tiles, matmulTile*matmulTile)
		return l.Kernel, g, err
	case launch.ConvParams:
		if a.Group <= 0 || a.M%a.Group != 0 {
			break
		}
		if positions := int64(a.N) * int64(a.OH) * int64(a.OW); l.Kernel == "conv2d_f32" && positions >= igemmPositions {
			mpg := int64(a.M / a.Group)
			tiles := int64(a.Group) * ((mpg + matmulTile - 1) / matmulTile) * ((positions + matmulTile - 1) / matmulTile)
			g, err := grid(tiles, matmulTile*matmulTile)
			return "conv2d_igemm_f32", g, err
		}
		deep := int64(a.C/a.Group)*int64(a.KH)*int64(a.KW) >= warpConvTaps
		if deep && (l.Kernel == "conv2d_f32" || l.Kernel == "convtranspose2d_f32") {
			g, err := warps(l.Threads)
			return strings.TrimSuffix(l.Kernel, "_f32") + "_warp_f32", g, err
		}
	case launch.RowParams:
		if l.Kernel == "rows_f32" && a.Cols >= warpRowCols {
			g, err := warps(l.Threads)
			return "rows_warp_f32", g, err
		}
	}
	g, err := grid((l.Threads+DefaultBlockThreads-1)/DefaultBlockThreads, DefaultBlockThreads)
	return l.Kernel, g, err
}

// warps is the grid of one warp per item, in blocks of DefaultBlockThreads.
func warps(items int64) (geometry, error) {
	per := int64(DefaultBlockThreads / 32)
	return grid((items+per-1)/per, DefaultBlockThreads)
}

func grid(blocks int64, threads int) (geometry, error) {
	if blocks > math.MaxInt32 {
		return geometry{}, fmt.Errorf("%w: %d blocks", launch.ErrTooLarge, blocks)
	}
	return geometry{blocks: int(blocks), threads: threads}, nil
}
