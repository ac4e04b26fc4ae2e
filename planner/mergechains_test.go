package planner

import (
	"context"
	"slices"
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
	blocks, labels, _, counts := p5000Strips()
	var piece []Buffer
	for i, bl := range blocks {
		if counts[labels[i]] != 84 {
			piece = append(piece, Buffer{Start: bl.Start, End: bl.End, Size: bl.Size})
		}
	}
	lb := LowerBound(piece)
	for _, n := range []int{1, 2} {
		name := map[int]string{1: "one", 2: "two"}[n]
		b.Run(name, func(b *testing.B) {
			units := make([]float64, mergeChainPairs)
			for b.Loop() {
				for j := range units {
					m := &srchMin{ctx: context.Background()}
					start := time.Now()
					c, ok := m.mergedSearch(piece, 4*time.Second, start, true, "", n, uint64(2*j+1))
					if !ok {
						b.Fatal("no chain returned a placement")
					}
					off := refineMerged(context.Background(), c.p, c.roots, c.res.Offsets, lb, start.Add(8*time.Second), nil)
					if err := VerifyPlacement(piece, off); err != nil {
						b.Fatal(err)
					}
					units[j] = float64((ArenaSize(piece, off) - lb) / dsagen.PackableGranule)
				}
			}
			var sum float64
			for _, u := range units {
				sum += u
			}
			slices.Sort(units)
			b.ReportMetric(sum/mergeChainPairs, "units")
			b.ReportMetric((units[mergeChainPairs/2-1]+units[mergeChainPairs/2])/2, "median")
		})
	}
}
