package planner

import (
	"cmp"
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/memplan/memplan/internal/dsagen"
)

// TestBoundaryMergeWorkedExample is boundmerge.go's example: boundaries 1
// and 2 each make a block of [0,3) x 2 B, and then no boundary has both
// an ender and a starter.
func TestBoundaryMergeWorkedExample(t *testing.T) {
	bufs := []Buffer{
		{ID: 0, Start: 0, End: 2, Size: 2}, {ID: 1, Start: 0, End: 1, Size: 2},
		{ID: 2, Start: 1, End: 3, Size: 2}, {ID: 3, Start: 2, End: 3, Size: 2},
	}
	require.True(t, isPerfect(bufs, 4))
	red, expand, blocks := boundaryMerge(context.Background(), bufs)
	assert.Equal(t, 2, blocks)
	require.Len(t, red, 2)
	for _, b := range red {
		assert.Equal(t, Buffer{ID: b.ID, Start: 0, End: 3, Size: 2}, b)
	}
	// Boundary 1's block first: b at 0 and c at 0 within it; then a and d.
	assert.Equal(t, []int64{2, 0, 0, 2}, expand([]int64{0, 2}))
}

// TestBoundaryMergeExpands: on packable instances, whatever
// boundaryMerge merges, the smaller instance is perfect at the same LB,
// and any placement of it expands to a valid placement of the buffers
// with the same arena.
func TestBoundaryMergeExpands(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(2, 300).Draw(t, "n")
		bufs := blockBuffers(dsagen.Packable(n, packableCapacity, rapid.Uint64().Draw(t, "seed")))
		lb := LowerBound(bufs)
		red, expand, blocks := boundaryMerge(context.Background(), bufs)
		require.Equal(t, lb, LowerBound(red))
		require.True(t, isPerfect(red, lb))
		if blocks == 0 {
			require.Equal(t, bufs, red)
		}
		require.LessOrEqual(t, len(red), len(bufs)-blocks)
		ro := portfolioOffsets(red)
		off := expand(ro)
		require.NoError(t, VerifyPlacement(bufs, off))
		require.Equal(t, ArenaSize(red, ro), ArenaSize(bufs, off))
	})
}

// TestBoundaryMergeTilesP2000Seed3: on packable p2000 of seed 3, the
// boundary blocks of the instance with its renewal blocks end as one
// block: a placement at LB, bottom up, in about a second.
func TestBoundaryMergeTilesP2000Seed3(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("about a second of flow searches; skipped under -short and -race")
	}
	bufs := blockBuffers(dsagen.Packable(2000, packableCapacity, 3))
	lb := LowerBound(bufs)
	red, expand, _ := renewalMerge(context.Background(), bufs, lb, false)
	red2, expand2, _ := boundaryMerge(context.Background(), red)
	require.Len(t, red2, 1)
	off := expand(expand2([]int64{0}))
	require.NoError(t, VerifyPlacement(bufs, off))
	assert.Equal(t, lb, ArenaSize(bufs, off))
}

// TestBoundaryRouteReachesLB: with the flow searches on (budgets of
// flowMinBudget and more) and without pair merges (which keep a large
// piece from starting the routes: pieceSearch), the search runs the
// boundary route, which places the largest part in time of packable
// p2000 of seed 3 at LB (TestBoundaryMergeTilesP2000Seed3), and the cuts
// and the renewal route end early. With the merges, the cuts' own
// re-merged piece (remerge.go) reaches LB there too.
func TestBoundaryRouteReachesLB(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("seconds of flow searches; skipped under -short and -race")
	}
	bufs := blockBuffers(dsagen.Packable(2000, packableCapacity, 3))
	parts := timeParts(bufs)
	require.NotEmpty(t, parts)
	p := slices.MaxFunc(parts, func(a, b []int) int { return cmp.Compare(len(a), len(b)) })
	sub := make([]Buffer, len(p))
	for j, i := range p {
		sub[j] = bufs[i]
		sub[j].ID = int64(j)
	}
	res, err := search(context.Background(), sub, SearchConfig{flowBands: true, noMerge: true}, flowMinBudget, 0)
	require.NoError(t, err)
	assert.Equal(t, res.LB, res.Arena)
	assert.True(t, res.Optimal)
	assert.Equal(t, "search/boundaries", res.Method)

	res, err = search(context.Background(), sub, SearchConfig{flowBands: true}, flowMinBudget, 0)
	require.NoError(t, err)
	assert.Equal(t, res.LB, res.Arena)
	assert.True(t, res.Optimal)
	assert.Equal(t, "search/cuts", res.Method)
}
