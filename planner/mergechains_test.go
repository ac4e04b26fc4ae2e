package planner

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/memplan/memplan/internal/dsagen"
)

// BenchmarkMergeChains compares one merge chain searched with two
// squeaky-wheel streams ("one") against two chains side by side, one
// stream each ("two"; pieceChains), on the piece of packable p5000 that
// the cuts leave (the 4,916 buffers beside the strip of 84), as
// pieceSearch gives them the merged piece: 4 s to re-merge and search
// (mergedSearch), then refinement until 8 s. Pair j of merge seeds is
// 2j+1 and 2j+2: "one" runs seed 2j+1, "two" both. "units" and "median"
// are the mean and the median, over mergeChainPairs pairs, of the arena
// over the piece's LB in units of 64 B. About 6.5 minutes on two cores:
//
//	go test ./planner -run '^$' -bench BenchmarkMergeChains -benchtime 1x
func BenchmarkMergeChains(b *testing.B) {
	const mergeChainPairs = 24
	piece := p5000Piece()
	for _, n := range []int{1, 2} {
		name := map[int]string{1: "one", 2: "two"}[n]
		b.Run(name, func(b *testing.B) {
			var units []float64
			for b.Loop() {
				units = pieceUnits(b, piece, mergeChainPairs, 4*time.Second, n, func(c mergeChain, start time.Time) []int64 {
					return refineMerged(context.Background(), c.p, c.roots, c.res.Offsets, c.res.LB, start.Add(8*time.Second), nil)
				})
			}
			reportUnits(b, units)
		})
	}
}

// BenchmarkRefineShare compares shares of the time after the merged
// piece's search given to refinement (refineShare; re-coarsening gets the
// rest) on the piece of packable p5000 that the cuts leave, as
// pieceSearch runs it: two merge chains (seeds 2j+1 and 2j+2) re-merge
// and search for 3.8 s, then refinement and re-coarsening until 7.6 s.
// "units" and "median" are the mean and the median over
// refineSharePairs pairs of the arena over the piece's LB in units of
// 64 B. About 8 minutes on two cores:
//
//	go test ./planner -run '^$' -bench BenchmarkRefineShare -benchtime 1x
func BenchmarkRefineShare(b *testing.B) {
	const refineSharePairs = 12
	piece := p5000Piece()
	for _, share := range []float64{1.0 / 6, 1.0 / 4, 1.0 / 3, 1.0 / 2, 2.0 / 3} {
		b.Run(strconv.FormatFloat(share, 'f', 2, 64), func(b *testing.B) {
			var units []float64
			for b.Loop() {
				units = pieceUnits(b, piece, refineSharePairs, 3800*time.Millisecond, pieceChains, func(c mergeChain, start time.Time) []int64 {
					return c.refined(context.Background(), piece, start.Add(7600*time.Millisecond), share, recoarsenWays, nil)
				})
			}
			reportUnits(b, units)
		})
	}
}

// pieceUnits runs mergedSearch on piece for pairs seed pairs (merge
// seeds 2j+1 on, n chains, half as given), finishes each chain's
// placement by finish (start: when its mergedSearch began), and returns
// each placement's arena over the piece's LB in units of 64 B.
func pieceUnits(b *testing.B, piece []Buffer, pairs int, half time.Duration, n int, finish func(c mergeChain, start time.Time) []int64) []float64 {
	lb := LowerBound(piece)
	units := make([]float64, pairs)
	for j := range units {
		m := &srchMin{ctx: context.Background()}
		start := time.Now()
		c, ok := m.mergedSearch(piece, half, start, true, "", n, uint64(2*j+1))
		if !ok {
			b.Fatal("no chain returned a placement")
		}
		off := finish(c, start)
		if err := VerifyPlacement(piece, off); err != nil {
			b.Fatal(err)
		}
		units[j] = float64((ArenaSize(piece, off) - lb) / dsagen.PackableGranule)
	}
	return units
}

// p5000Piece returns the piece of packable p5000 that the cuts leave:
// the 4,916 buffers beside the strip of 84.
func p5000Piece() []Buffer {
	blocks, labels, _, counts := p5000Strips()
	var piece []Buffer
	for i, bl := range blocks {
		if counts[labels[i]] != 84 {
			piece = append(piece, Buffer{Start: bl.Start, End: bl.End, Size: bl.Size})
		}
	}
	return piece
}

// reportUnits reports the mean ("units") and the median of units.
func reportUnits(b *testing.B, units []float64) {
	var sum float64
	for _, u := range units {
		sum += u
	}
	units = slices.Sorted(slices.Values(units))
	n := len(units)
	b.ReportMetric(sum/float64(n), "units")
	b.ReportMetric((units[(n-1)/2]+units[n/2])/2, "median")
}

// BenchmarkRecoarsenWays compares how many coarse instances a cycle of
// re-coarsening searches side by side (recoarsenWays), on packable
// p5000's piece as pieceSearch runs it (BenchmarkRefineShare, with
// refineShare), over 12 seed pairs. About 3 minutes on two cores:
//
//	go test ./planner -run '^$' -bench BenchmarkRecoarsenWays -benchtime 1x
func BenchmarkRecoarsenWays(b *testing.B) {
	piece := p5000Piece()
	for _, ways := range []int{2, 4} {
		b.Run(strconv.Itoa(ways), func(b *testing.B) {
			var units []float64
			for b.Loop() {
				units = pieceUnits(b, piece, 12, 3800*time.Millisecond, pieceChains, func(c mergeChain, start time.Time) []int64 {
					return c.refined(context.Background(), piece, start.Add(7600*time.Millisecond), refineShare, ways, nil)
				})
			}
			reportUnits(b, units)
		})
	}
}

// BenchmarkMergedShare compares shares of a large piece's time given to
// its merged piece (pieceSearch gives half; refinement and re-coarsening
// get the rest) on packable p5000's piece, as pieceSearch runs it with
// 7.6 s, over 24 seed pairs. About 3 minutes a share on two cores; a
// pattern after the slash picks shares:
//
//	go test ./planner -run '^$' -bench BenchmarkMergedShare -benchtime 1x
//	go test ./planner -run '^$' -bench 'BenchmarkMergedShare/0\.(250|375|500)' -benchtime 1x
func BenchmarkMergedShare(b *testing.B) {
	piece := p5000Piece()
	const budget = 7600 * time.Millisecond
	for _, share := range []float64{1.0 / 4, 3.0 / 8, 1.0 / 2, 5.0 / 8} {
		b.Run(strconv.FormatFloat(share, 'f', 3, 64), func(b *testing.B) {
			var units []float64
			for b.Loop() {
				units = pieceUnits(b, piece, 24, time.Duration(float64(budget)*share), pieceChains, func(c mergeChain, start time.Time) []int64 {
					return c.refined(context.Background(), piece, start.Add(budget), refineShare, recoarsenWays, nil)
				})
			}
			reportUnits(b, units)
		})
	}
}
