package cuda

// Launch shape: which CUDA function runs a launch, and how many blocks of
// how many threads. launch.Plan names the kernel and counts its threads
// (one per output element, or per row); the CUDA backend may run a variant
// with the same parameters and operands that spreads one item's work over
// a warp, where one thread per item would loop long over too few threads:
//
//	kernel               runs as                   grid
//	matmul_f32           matmul_gemmT_f32          M, N >= 32: one block per T x T output tile per batch
//	matmul_f32           itself                    else: one 16x16-thread block per output tile per batch
//	conv2d_f32           conv2d_gemmT_f32          >= 32 output positions (N*OH*OW) and >= 16 output
//	                                               channels per group: one block per T x T tile of each
//	                                               group's implicit GEMM
//	conv2d_f32           conv2d_warp_f32           else, window of >= 64 taps (C/G*KH*KW): one warp per output
//	convtranspose2d_f32  convtranspose2d_warp_f32  window of >= 64 taps: one warp per output
//	rows_f32             rows_warp_f32             rows of >= 2 columns: one warp per row
//	any other            itself                    one thread per item, blocks of 256
//
// The GEMM tile T (gemm.cu: 128, 64, 32, or 32 with twice the K split) is
// the largest whose grid fills gemmWave blocks without leaving more than
// half of a tile's rows empty (pickGemm), so large layers get the most
// reuse per thread and small or deep ones enough blocks. Every variant sums
// in a fixed order and is picked from the launch's shape alone, so a
// program gives the same bits in every mode and run.

import (
	"fmt"
	"math"
	"strings"

	"github.com/memplan/memplan/exec/launch"
)

// matmulTile must equal MATMUL_TILE in kernels/linear.cu.
const matmulTile = 16

// Thresholds for the warp and GEMM variants.
const (
	warpConvTaps  = 64
	warpRowCols   = 2
	gemmMinN      = 32 // output positions (conv) or columns (matmul)
	gemmMinM      = 32 // matmul rows
	gemmMinGroupM = 16 // conv output channels per group
)

// gemmWave is the block count a GEMM configuration must reach before a
// smaller one is tried: about one block per multiprocessor of an H100
// (132). Elsewhere the choice is still correct, only tuned for that GPU.
const gemmWave = 132

// gemmConfig is one tile configuration of gemm.cu: kernels
// conv2d_<name>_f32 and matmul_<name>_f32, bm x bn output tiles, threads per
// block (its __launch_bounds__).
type gemmConfig struct {
	name    string
	bm, bn  int64
	threads int
}

// gemmConfigs lists gemm.cu's configurations, largest tile first.
var gemmConfigs = []gemmConfig{
	{"gemm128", 128, 128, 256},
	{"gemm64", 64, 64, 256},
	{"gemm32", 32, 32, 256},
	{"gemm32k", 32, 32, 512},
}

// pickGemm returns the configuration and its block count for batch
// products of m x n outputs: the first that fills gemmWave blocks with at
// most half of a tile's rows empty, else the last (most K split).
func pickGemm(batch, m, n int64) (gemmConfig, int64) {
	blocks := func(c gemmConfig) int64 { return batch * ((m + c.bm - 1) / c.bm) * ((n + c.bn - 1) / c.bn) }
	for _, c := range gemmConfigs[:len(gemmConfigs)-1] {
		if 2*m > c.bm && blocks(c) >= gemmWave {
			return c, blocks(c)
		}
	}
	c := gemmConfigs[len(gemmConfigs)-1]
	return c, blocks(c)
}

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
		batch := int64(a.Total) / (int64(a.M) * int64(a.N))
		if a.M >= gemmMinM && a.N >= gemmMinN {
			c, blocks := pickGemm(batch, int64(a.M), int64(a.N))
			g, err := grid(blocks, c.threads)
			return "matmul_" + c.name + "_f32", g, err
		}
		tiles := int64((a.M+matmulTile-1)/matmulTile) * int64((a.N+matmulTile-1)/matmulTile)
		g, err := grid(batch*tiles, matmulTile*matmulTile)
		return l.Kernel, g, err
	case launch.ConvParams:
		if a.Group <= 0 || a.M%a.Group != 0 {
			break
		}
		positions, mpg := int64(a.N)*int64(a.OH)*int64(a.OW), int64(a.M/a.Group)
		if l.Kernel == "conv2d_f32" && positions >= gemmMinN && mpg >= gemmMinGroupM {
			c, blocks := pickGemm(int64(a.Group), mpg, positions)
			g, err := grid(blocks, c.threads)
			return "conv2d_" + c.name + "_f32", g, err
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
