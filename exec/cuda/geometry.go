package cuda

// Launch geometry: how many blocks of how many threads each kernel runs.
// Every kernel but matmul_f32 is one thread per element of the launch's
// Threads (launch.Plan's count), in blocks of DefaultBlockThreads;
// matmul_f32 is one block of matmulTile x matmulTile threads per output
// tile per batch (kernels/linear.cu, MATMUL_TILE).

import (
	"fmt"
	"math"

	"github.com/memplan/memplan/exec/launch"
)

// matmulTile must equal MATMUL_TILE in kernels/linear.cu.
const matmulTile = 16

// geometry is a one-dimensional grid: blocks x threads.
type geometry struct {
	blocks, threads int
}

// geometryOf returns the grid of one launch; a launch of zero threads has
// zero blocks (the encoder skips it).
func geometryOf(l *launch.Launch) (geometry, error) {
	if l.Threads == 0 {
		return geometry{}, nil
	}
	if a, ok := l.Args.(launch.MatMulParams); ok && l.Kernel == "matmul_f32" {
		if a.M <= 0 || a.N <= 0 {
			return geometry{}, nil
		}
		tiles := int64((a.M+matmulTile-1)/matmulTile) * int64((a.N+matmulTile-1)/matmulTile)
		batch := int64(a.Total) / (int64(a.M) * int64(a.N))
		return grid(batch*tiles, matmulTile*matmulTile)
	}
	return grid((l.Threads+DefaultBlockThreads-1)/DefaultBlockThreads, DefaultBlockThreads)
}

func grid(blocks int64, threads int) (geometry, error) {
	if blocks > math.MaxInt32 {
		return geometry{}, fmt.Errorf("%w: %d blocks", launch.ErrTooLarge, blocks)
	}
	return geometry{blocks: int(blocks), threads: threads}, nil
}
