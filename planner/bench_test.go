package planner

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/memplan/memplan/internal/dsagen"
	"github.com/stretchr/testify/require"
)

// synthetic returns the n buffers of dsagen.Synthetic (shaped like a
// model's trace, fixed seed), IDs in order.
func synthetic(n int) []Buffer {
	return blockBuffers(dsagen.Synthetic(n))
}

// BenchmarkPlace times the full portfolio over a fixed-seed size ladder and
// over every DSA instance, reporting arena/LB and the process CPU time per
// placement (cpu-s/op; all threads, so up to 2x wall time on two idle
// cores, and the honest figure when other jobs share the machine).
//
//	go test ./planner -run '^$' -bench BenchmarkPlace -benchtime 1x
func BenchmarkPlace(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000, 1_000_000} {
		bufs := synthetic(n)
		b.Run(fmt.Sprintf("synthetic/n=%d", n), func(b *testing.B) { benchPlace(b, bufs) })
	}
	dir := dsaDir()
	if dir == "" {
		b.Log("DSA folder ../shared/benchmarks/dsa is absent: skipping its instances")
		return
	}
	_, files := dsaFiles(b)
	for _, name := range files {
		bufs := loadDSA(b, filepath.Join(dir, name))
		b.Run("dsa/"+name, func(b *testing.B) { benchPlace(b, bufs) })
	}
}

func benchPlace(b *testing.B, bufs []Buffer) {
	p := Portfolio()
	var off []int64
	var err error
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	for range b.N {
		off, err = p.Place(context.Background(), bufs)
		require.NoErrorf(b, err, "%v", err)
	}
	b.StopTimer()
	b.ReportMetric((processCPU()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	lb := LowerBound(bufs)
	if lb > 0 {
		b.ReportMetric(float64(ArenaSize(bufs, off))/float64(lb), "arena/LB")
	}
	b.ReportMetric(float64(len(bufs)), "buffers")
}

// BenchmarkSplitPieces times auto's placement of the synthetic million
// (first-fit by size in pieces of time, split.go) for pieces of 2,048 to
// 32,768 buffers, reporting arena/LB, the cuts and the buffers across the
// middle cut; 1 << 30 is one piece a side; "one-pass" is placeInOrder.
//
//	go test ./planner -run '^$' -bench BenchmarkSplitPieces -benchtime 3x
func BenchmarkSplitPieces(b *testing.B) {
	bufs := synthetic(1_000_000)
	ff := singleOrders[3]
	order := ff.order(bufs)
	lb := LowerBound(bufs)
	b.Run("one-pass", func(b *testing.B) {
		var off []int64
		for range b.N {
			off, _ = placeInOrder(context.Background(), bufs, order, ff.policy, nil)
		}
		b.ReportMetric(float64(ArenaSize(bufs, off))/float64(lb), "arena/LB")
	})
	for _, piece := range []int{1 << 11, 1 << 12, 1 << 13, 1 << 14, 1 << 15, 1 << 30} {
		b.Run(fmt.Sprintf("piece=%d", piece), func(b *testing.B) {
			var off []int64
			var err error
			for range b.N {
				off, err = placeSplitPieces(context.Background(), bufs, order, ff.policy, piece, splitLimits{})
				require.NoErrorf(b, err, "%v", err)
			}
			b.StopTimer()
			lay := newPieceLayout(bufs, order, splitCuts(bufs, max(len(bufs)/piece, 2)))
			b.ReportMetric(float64(ArenaSize(bufs, off))/float64(lb), "arena/LB")
			b.ReportMetric(float64(len(lay.cuts)), "cuts")
			b.ReportMetric(float64(len(lay.top)), "across")
		})
	}
}

// BenchmarkMillionSteps times the steps of auto's run on the synthetic
// million around its split placement (BenchmarkSplitPieces): the fit
// order, the pieces' layout, the lower bound (computed beside those two)
// and the verifier's sweep of the placement.
//
//	go test ./planner -run '^$' -bench BenchmarkMillionSteps -count 3
func BenchmarkMillionSteps(b *testing.B) {
	bufs := synthetic(1_000_000)
	ff := singleOrders[3]
	order := ff.order(bufs)
	b.Run("order", func(b *testing.B) {
		for range b.N {
			ff.order(bufs)
		}
	})
	b.Run("layout", func(b *testing.B) {
		for range b.N {
			splitLayout(bufs, order, splitPiece, splitBounds)
		}
	})
	b.Run("lowerbound", func(b *testing.B) {
		for range b.N {
			LowerBound(bufs)
		}
	})
	off, err := placeSplit(context.Background(), bufs, order, ff.policy)
	require.NoErrorf(b, err, "%v", err)
	b.Run("verify", func(b *testing.B) {
		for range b.N {
			require.NoError(b, VerifyPlacement(bufs, off))
		}
	})
}

// BenchmarkLowerBoundSorts times LowerBound's work on the first n buffers
// of challenging J with radix sorts (radixFrom 0) and with comparison
// sorts, to place radixSmall.
//
//	go test ./planner -run '^$' -bench BenchmarkLowerBoundSorts
func BenchmarkLowerBoundSorts(b *testing.B) {
	dir := dsaDir()
	if dir == "" {
		b.Skip("DSA folder ../shared/benchmarks/dsa is absent")
	}
	all := loadDSA(b, filepath.Join(dir, "challenging/J.1048576.csv"))
	for _, n := range []int{16, 64, 128, 256, len(all)} {
		for _, sorts := range []struct {
			name string
			from int
		}{{"radix", 0}, {"comparison", math.MaxInt}} {
			b.Run(fmt.Sprintf("n=%d/%s", n, sorts.name), func(b *testing.B) {
				for range b.N {
					lowerBound(all[:n], sorts.from)
				}
			})
		}
	}
}
