package planner

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/memplan/memplan/internal/dsagen"
)

// TestPerfectWorkedExample is perfect.go's example: a, then c (the larger
// of the two that start at step 2) at 0 and b at 5.
func TestPerfectWorkedExample(t *testing.T) {
	bufs := []Buffer{
		{ID: 0, Start: 0, End: 2, Size: 8},
		{ID: 1, Start: 2, End: 4, Size: 3},
		{ID: 2, Start: 2, End: 4, Size: 5},
	}
	require.True(t, isPerfect(bufs, 8))
	off, _ := perfectPack(context.Background(), bufs, 8)
	require.Equal(t, []int64{0, 5, 0}, off)
}

// TestIsPerfect: the packable instances are perfect; one buffer less, one
// byte more, a fixed or an aligned buffer, or a step with nothing live
// makes an instance imperfect.
func TestIsPerfect(t *testing.T) {
	bs := blockBuffers(dsagen.Packable(60, 1<<12, 3))
	lb := LowerBound(bs)
	require.True(t, isPerfect(bs, lb))
	assert.False(t, isPerfect(bs[1:], lb), "one buffer less")
	grown := append([]Buffer(nil), bs...)
	grown[0].Size += 64
	assert.False(t, isPerfect(grown, LowerBound(grown)), "one buffer larger")
	fixed := append([]Buffer(nil), bs...)
	fixed[0].Fixed = true
	assert.False(t, isPerfect(fixed, lb), "a fixed buffer")
	aligned := append([]Buffer(nil), bs...)
	aligned[0].Align = 128
	assert.False(t, isPerfect(aligned, lb), "an aligned buffer")
	gap := []Buffer{{Start: 0, End: 1, Size: 8}, {Start: 2, End: 3, Size: 8}}
	assert.False(t, isPerfect(gap, 8), "a step with nothing live")
}

// blockBuffers returns generated blocks (internal/dsagen) as buffers, IDs
// in order.
func blockBuffers(blocks []dsagen.Block) []Buffer {
	bs := make([]Buffer, len(blocks))
	for i, b := range blocks {
		bs[i] = Buffer{ID: int64(i), Start: b.Start, End: b.End, Size: b.Size}
	}
	return bs
}

// TestPerfectFindsEveryTiling: on small packable instances the plain
// attempt, run to the end, always finds a tiling of arena LB: the pruning
// by walls and the backjumping never discard the only ones. (Past about a
// hundred buffers some instances take millions of nodes.)
func TestPerfectFindsEveryTiling(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 30).Draw(t, "n")
		capacity := int64(rapid.IntRange(1, 64).Draw(t, "units")) * dsagen.PackableGranule
		bs := blockBuffers(dsagen.Packable(n, capacity, rapid.Uint64().Draw(t, "seed")))
		lb := LowerBound(bs)
		require.True(t, isPerfect(bs, lb))
		s := newPerfectSearch(context.Background(), bs, lb, 1<<62)
		off, nodes := s.run()
		require.NotNilf(t, off, "no tiling of %d buffers after %d nodes", len(bs), nodes)
		require.NoError(t, VerifyPlacement(bs, off))
		require.Equal(t, lb, ArenaSize(bs, off))
	})
}

// TestPerfectMergedPlacesMembers: with one lifespan's buffers merged, the
// members come out stacked where the merged buffer went, in input order.
func TestPerfectMergedPlacesMembers(t *testing.T) {
	bufs := []Buffer{
		{ID: 0, Start: 0, End: 1, Size: 4},
		{ID: 1, Start: 0, End: 1, Size: 2},
		{ID: 2, Start: 0, End: 2, Size: 2},
		{ID: 3, Start: 1, End: 2, Size: 6},
	}
	merged, members := mergeLifespans(bufs)
	require.Len(t, merged, 3)
	assert.Equal(t, [][]int{{0, 1}, {2}, {3}}, members)
	assert.Equal(t, int64(6), merged[0].Size)
	off, _ := perfectPack(context.Background(), bufs, 8)
	require.NotNil(t, off)
	require.NoError(t, VerifyPlacement(bufs, off))
	assert.Equal(t, off[0]+4, off[1], "members of one lifespan stacked in order")
}

// TestSearchPerfectPackable: the search places the committed packable
// instances p250, p500, p1000 and p2000 at LB by cuts (guillotine.go). The cuts
// get half the budget: a minute, so that a slow run (the race detector)
// still gets there; the search returns as soon as it reaches LB.
func TestSearchPerfectPackable(t *testing.T) {
	for _, name := range []string{"p250", "p500", "p1000", "p2000"} {
		bufs := loadDSA(t, filepath.Join("testdata", "packable", name+".csv"))
		res, err := Search(context.Background(), bufs, SearchConfig{Budget: time.Minute})
		require.NoError(t, err)
		assert.Equalf(t, res.LB, res.Arena, "%s: arena %d, LB %d (%s)", name, res.Arena, res.LB, res.Method)
		assert.Equal(t, "search/cuts", res.Method, name)
		assert.True(t, res.Optimal, name)
	}
}
