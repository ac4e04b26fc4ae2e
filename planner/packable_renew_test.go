package planner

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/memplan/memplan/internal/dsagen"
)

// TestRenewalWorkedExample is renew.go's example: 4 B renews at steps 1
// and 2, too few to be taken for a tall band, so nothing merges.
func TestRenewalWorkedExample(t *testing.T) {
	bufs := []Buffer{
		{ID: 0, Start: 0, End: 2, Size: 4}, {ID: 1, Start: 2, End: 4, Size: 4},
		{ID: 2, Start: 0, End: 1, Size: 2}, {ID: 3, Start: 0, End: 1, Size: 2},
		{ID: 4, Start: 1, End: 4, Size: 4},
	}
	require.True(t, isPerfect(bufs, 8))
	heights, _ := renewalHeights(bufs, 8)
	assert.Empty(t, heights)
	red, expand, blocks := renewalMerge(context.Background(), bufs, 8, false)
	assert.Empty(t, blocks)
	assert.Equal(t, bufs, red)
	assert.Equal(t, []int64{0, 4, 2, 0, 4}, expand([]int64{0, 4, 2, 0, 4}))
}

// TestRenewalMergeExpands: on packable instances, whatever renewalMerge
// merges, the smaller instance has the same LB (it is perfect) and any
// placement of it expands to a valid placement of the buffers with the
// same arena.
func TestRenewalMergeExpands(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(2, 400).Draw(t, "n")
		bufs := blockBuffers(dsagen.Packable(n, packableCapacity, rapid.Uint64().Draw(t, "seed")))
		lb := LowerBound(bufs)
		red, expand, blocks := renewalMerge(context.Background(), bufs, lb, false)
		rects, merged := len(blocks), 0
		for _, bl := range blocks {
			merged += len(bl.members)
		}
		require.Equal(t, lb, LowerBound(red))
		require.True(t, isPerfect(red, lb))
		require.Len(t, red, len(bufs)-merged+rects)
		ro := portfolioOffsets(red)
		off := expand(ro)
		require.NoError(t, VerifyPlacement(bufs, off))
		require.Equal(t, ArenaSize(red, ro), ArenaSize(bufs, off))
	})
}

// TestRenewalMergeP5000: on p5000 the renewal heights find rectangles of
// strip 3 and the bottom strip (the generator's strips, p5000Strips)
// outside the dense steps.
func TestRenewalMergeP5000(t *testing.T) {
	blocks, labels, _, _ := p5000Strips()
	bufs := blockBuffers(blocks)
	red, expand, blks := renewalMerge(context.Background(), bufs, LowerBound(bufs), false)
	rects, merged := len(blks), 0
	for _, bl := range blks {
		merged += len(bl.members)
	}
	t.Logf("%d rectangles, %d buffers merged: %d buffers left", rects, merged, len(red))
	assert.Equal(t, len(bufs)-merged+rects, len(red))
	// Each block's buffers land inside it when the block is placed, and
	// the generator's strips say where they come from.
	ro := stackOffsets(red)
	off := expand(ro)
	strips := map[int]int{}
	for k, bl := range blks {
		r := len(red) - rects + k
		for _, m := range bl.members {
			assert.True(t, off[m] >= ro[r] && off[m]+bufs[m].Size <= ro[r]+bl.h && bufs[m].Start >= bl.from && bufs[m].End <= bl.to, "buffer %d outside its block", m)
			strips[labels[m]]++
		}
	}
	t.Logf("merged buffers by strip: %v", strips)
	assert.Positive(t, strips[0], "the bottom strip")
	assert.Positive(t, strips[3], "strip 3")
}

// BenchmarkPackableRenewal runs the search for 10 s on packable
// instances (seeds 1-5 of 1,000, 2,000 and 5,000 buffers) without
// renewal blocks ("before", arena/LB) and with them ("after"), and reports
// the blocks and the buffers in them:
//
//	go test ./planner -run '^$' -bench BenchmarkPackableRenewal -benchtime 1x
func BenchmarkPackableRenewal(b *testing.B) {
	for _, n := range []int{1000, 2000, 5000} {
		for seed := uint64(1); seed <= 5; seed++ {
			bufs := blockBuffers(dsagen.Packable(n, packableCapacity, seed))
			lb := LowerBound(bufs)
			b.Run(fmt.Sprintf("n%d-seed%d", n, seed), func(b *testing.B) {
				_, _, blocks := renewalMerge(context.Background(), bufs, lb, false)
				merged := 0
				for _, bl := range blocks {
					merged += len(bl.members)
				}
				for b.Loop() {
					before, err := Search(context.Background(), bufs, SearchConfig{Budget: 10 * time.Second, noRenew: true})
					require.NoError(b, err)
					require.NoError(b, VerifyPlacement(bufs, before.Offsets))
					after, err := Search(context.Background(), bufs, SearchConfig{Budget: 10 * time.Second})
					require.NoError(b, err)
					require.NoError(b, VerifyPlacement(bufs, after.Offsets))
					b.ReportMetric(float64(before.Arena)/float64(lb), "before")
					b.ReportMetric(float64(after.Arena)/float64(lb), "after")
					b.ReportMetric(float64(len(blocks)), "blocks")
					b.ReportMetric(float64(merged), "bufs")
				}
			})
		}
	}
}

// TestRenewalBlocksCompleteCuts: on packable instance seed 2 of 1,000
// buffers the cuts leave a piece without a band; with its renewal blocks
// they leave none, and the placement expands to one at LB. Node limits
// bound both, so the outcome does not depend on the machine.
func TestRenewalBlocksCompleteCuts(t *testing.T) {
	bufs := blockBuffers(dsagen.Packable(1000, packableCapacity, 2))
	lb := LowerBound(bufs)
	_, _, missed := guillotinePlace(context.Background(), bufs, lb, portfolioOffsets)
	require.Equal(t, 1, missed, "the cuts alone")
	red, expand, blocks := renewalMerge(context.Background(), bufs, lb, false)
	require.NotEmpty(t, blocks)
	ro, _, missed := guillotinePlace(context.Background(), red, lb, noFallback(t))
	require.Zero(t, missed, "the cuts with the blocks")
	off := expand(ro)
	require.NoError(t, VerifyPlacement(bufs, off))
	assert.Equal(t, lb, ArenaSize(bufs, off))
}

// TestSearchRenewalRoute: the search takes the renewal route where the
// cuts leave the instance above LB: on the instance of
// TestRenewalBlocksCompleteCuts it ends at LB by "search/renewal" (the
// route runs beside the cuts' piece, each until the deadline). The race
// detector skips it: ten times slower, the budget ends first.
func TestSearchRenewalRoute(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's slowdown ends the budget first")
	}
	bufs := blockBuffers(dsagen.Packable(1000, packableCapacity, 2))
	res, err := Search(context.Background(), bufs, SearchConfig{Budget: 6 * time.Second})
	require.NoError(t, err)
	assert.Equal(t, res.LB, res.Arena)
	assert.Equal(t, "search/renewal", res.Method)
}
