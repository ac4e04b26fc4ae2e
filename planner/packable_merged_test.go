package planner

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPackableP5000MergedInfeasible pins down what re-merging leaves on
// the piece of packable p5000 that the cuts leave (the 4,916 buffers
// beside the strip of 84): after 3,000 re-merges (merge seeds 2 and 3),
// the reduced instance has no tiling at LB, and the tiling search of
// perfect.go proves it outright, within its node limit, after placing
// only a few dozen items at once. Its long first items raise the skyline
// over most of the steps, so its dead ends lie low in the dense last
// steps; which items its proof blames is the lead the twenty-ninth
// session left (docs/BENCHMARKS.md, issue 18):
//
//	go test ./planner -run TestPackableP5000MergedInfeasible -v
func TestPackableP5000MergedInfeasible(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("about 2 s of re-merging and tiling search; skipped under -short and -race")
	}
	piece := p5000Piece()
	lb := LowerBound(piece)
	for _, seed := range []uint64{2, 3} {
		p, live, iters := remergeTree(context.Background(), piece, seed, 3000)
		require.Equal(t, 3000, iters)
		red := p.buffers(p.sortedRoots(live))
		require.True(t, isPerfect(red, lb), "a reduced instance of a perfect one is perfect")
		s := newPerfectSearch(context.Background(), red, lb, 5_000_000)
		off, nodes := s.run()
		t.Logf("seed %d: %d items; no tiling at LB, proved in %d nodes, at most %d items placed at once", seed, len(red), nodes, s.deepest)
		assert.Nil(t, off)
		assert.False(t, s.abort, "the search ran out of nodes instead of proving it")
		assert.Less(t, s.deepest, len(red)/4)
	}
}
