package planner

import (
	"context"
	"math"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/memplan/memplan/internal/dsagen"
)

// remergeExample is remerge.go's example: a, b, c, d, e, f.
func remergeExample() []Buffer {
	return []Buffer{
		{ID: 0, Start: 0, End: 1, Size: 1}, {ID: 1, Start: 0, End: 1, Size: 1},
		{ID: 2, Start: 0, End: 2, Size: 2}, {ID: 3, Start: 1, End: 2, Size: 1},
		{ID: 4, Start: 1, End: 4, Size: 1}, {ID: 5, Start: 2, End: 4, Size: 3},
	}
}

// TestRemergeWorkedExample: the first pass sticks at five items (a and b
// stacked); re-merging reaches one, and its placement is a tiling at LB.
func TestRemergeWorkedExample(t *testing.T) {
	bufs := remergeExample()
	lb := LowerBound(bufs)
	require.Equal(t, int64(4), lb)
	require.True(t, isPerfect(bufs, lb))
	for seed := uint64(1); seed <= 20; seed++ {
		red, _ := pairMerge(bufs, seed)
		require.Len(t, red, 5, "seed %d", seed)
		assert.Contains(t, red, Buffer{ID: 0, Start: 0, End: 1, Size: 2}, "a and b stacked")
		red, expand, iters := remerge(context.Background(), bufs, seed, 100)
		require.Equal(t, []Buffer{{ID: 0, Start: 0, End: 4, Size: 4}}, red, "seed %d", seed)
		assert.Less(t, iters, 100)
		off := expand([]int64{0})
		require.NoError(t, VerifyPlacement(bufs, off))
		assert.Equal(t, lb, ArenaSize(bufs, off))
		// a continues into d and b into e, or the other way round.
		assert.True(t, (off[0] == off[3] && off[1] == off[4]) || (off[0] == off[4] && off[1] == off[3]), "seed %d: %v", seed, off)
	}
	// Without re-merges it is the first pass.
	red, _, iters := remerge(context.Background(), bufs, 1, 0)
	assert.Len(t, red, 5)
	assert.Zero(t, iters)
}

// TestRemergeExpands: as TestPairMergeExpands, after re-merges: the same
// live totals, perfect where the original is, and any placement of the
// reduced instance expands to a valid one with the same arena.
func TestRemergeExpands(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bufs := drawMergeInstance(t)
		first, _ := pairMerge(bufs, 7)
		red, expand, _ := remerge(context.Background(), bufs, 7, rapid.IntRange(0, 300).Draw(t, "iters"))
		require.LessOrEqual(t, len(red), len(first))
		requireReduced(t, bufs, red, expand)
	})
}

// TestRemergeStopsWithCtx: a cancelled context stops the re-merges at
// once, leaving the first pass.
func TestRemergeStopsWithCtx(t *testing.T) {
	bufs := blockBuffers(dsagen.Packable(500, packableCapacity, 3))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	red, _, iters := remerge(ctx, bufs, 1, 1000)
	first, _ := pairMerge(bufs, 1)
	assert.Zero(t, iters)
	assert.Equal(t, first, red)
}

// TestRemergeDeterministic: one seed and one number of re-merges, one
// reduced instance.
func TestRemergeDeterministic(t *testing.T) {
	bufs := blockBuffers(dsagen.Packable(1000, packableCapacity, 2))
	a, _, _ := remerge(context.Background(), bufs, 1, 500)
	b, _, _ := remerge(context.Background(), bufs, 1, 500)
	require.Equal(t, a, b)
}

// TestRemergeP5000: re-merging packable p5000 a thousand times leaves far
// fewer items than the first pass (916):
//
//	go test ./planner -run TestRemergeP5000 -v
func TestRemergeP5000(t *testing.T) {
	bufs := blockBuffers(dsagen.Packable(5000, packableCapacity, 1))
	first, _ := pairMerge(bufs, 1)
	red, _, iters := remerge(context.Background(), bufs, 1, 1000)
	t.Logf("p5000: first pass %d items, after %d re-merges %d", len(first), iters, len(red))
	require.Equal(t, 916, len(first))
	assert.Equal(t, 1000, iters)
	assert.Less(t, len(red), 700)
	assert.Greater(t, len(red), 1)
}

// BenchmarkPairChoice compares the two ways a step can choose the pair to
// merge in a group (pairMerger.pair): among the pairs whose item has a
// follow-up, or among all ("any"). For each of 64 merge seeds, the piece
// of packable p5000 that the cuts leave (the 4,916 buffers beside the
// strip of 84) is merged and re-merged 1,000 times, and 4,000
// squeaky-wheel passes of one stream place the reduced instance, as the
// merged piece's search would; "units" is the mean of the best arenas
// over the piece's LB, in units of 64 B, "items" the mean of the reduced
// instances' buffers. Each choice takes about 90 s on two cores:
//
//	go test ./planner -run '^$' -bench BenchmarkPairChoice -benchtime 1x
func BenchmarkPairChoice(b *testing.B) {
	piece := p5000Piece()
	const seeds, passes = 64, 4000
	for _, anyPair := range []bool{true, false} {
		name := "follow-up"
		if anyPair {
			name = "any"
		}
		b.Run(name, func(b *testing.B) {
			var units, items float64
			for b.Loop() {
				res := make([][2]int64, seeds)
				work := make(chan int)
				var wg sync.WaitGroup
				for range runtime.GOMAXPROCS(0) {
					wg.Go(func() {
						for k := range work {
							p := newPairMerger(piece, uint64(k+1))
							p.anyPair = anyPair
							p, live, _ := remergeRun(context.Background(), p, uint64(k+1), 1000)
							red := p.buffers(p.sortedRoots(live))
							lb := LowerBound(red)
							m := &srchMin{ctx: context.Background(), bufs: red, begin: time.Now(),
								deadline: time.Now().Add(time.Hour), lb: lb, proven: lb, arena: math.MaxInt64}
							res[k] = [2]int64{(m.swoStream(0, passes).arena - lb) / dsagen.PackableGranule, int64(len(red))}
						}
					})
				}
				for k := range seeds {
					work <- k
				}
				close(work)
				wg.Wait()
				units, items = 0, 0
				for _, r := range res {
					units += float64(r[0]) / seeds
					items += float64(r[1]) / seeds
				}
			}
			b.ReportMetric(units, "units")
			b.ReportMetric(items, "items")
		})
	}
}

// BenchmarkRemerge times 1,000 re-merges of the piece of packable p5000
// that the cuts leave (the 4,916 buffers beside the strip of 84), merge
// seed 1, and reports the items left:
//
//	go test ./planner -run '^$' -bench BenchmarkRemerge -benchtime 5x
func BenchmarkRemerge(b *testing.B) {
	piece := p5000Piece()
	var items int
	for b.Loop() {
		_, live, _ := remergeTree(context.Background(), piece, 1, 1000)
		items = len(live)
	}
	b.ReportMetric(float64(items), "items")
}
