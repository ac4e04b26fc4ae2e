package planner

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/memplan/memplan/internal/dsagen"
)

// TestPairMergeWorkedExample is pairmerge.go's example: b and c merge
// (the only shared lifespan), then their block and d (one size ending
// and starting at step 1), then that and a: one buffer of [0,2) x 4 B,
// whose placement puts the four in a tiling of 4 B.
func TestPairMergeWorkedExample(t *testing.T) {
	bufs := []Buffer{
		{ID: 0, Start: 0, End: 2, Size: 2}, {ID: 1, Start: 0, End: 1, Size: 1},
		{ID: 2, Start: 0, End: 1, Size: 1}, {ID: 3, Start: 1, End: 2, Size: 2},
	}
	p := newPairMerger(bufs, 1)
	require.True(t, p.step())
	assert.Equal(t, pmItem{s: 0, e: 1, h: 2, a: p.items[4].a, b: p.items[4].b, boff: 1}, p.items[4])
	assert.ElementsMatch(t, []int{1, 2}, []int{p.items[4].a, p.items[4].b})
	require.True(t, p.step())
	assert.Equal(t, pmItem{s: 0, e: 2, h: 2, a: 4, b: 3}, p.items[5])
	require.True(t, p.step())
	require.False(t, p.step())
	red, expand := p.reduced()
	require.Equal(t, []Buffer{{ID: 0, Start: 0, End: 2, Size: 4}}, red)
	off := expand([]int64{0})
	require.NoError(t, VerifyPlacement(bufs, off))
	assert.Equal(t, int64(4), ArenaSize(bufs, off))
	// b and c sit where d continues them; a takes the other half.
	assert.Equal(t, off[3], min(off[1], off[2]))
}

// TestPairMergeExpands: on any instance, the reduced instance has the
// same live total at every step, and any placement of it expands to a
// valid placement of the buffers with the same arena; on packable
// instances it is perfect at the same LB.
func TestPairMergeExpands(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bufs := drawMergeInstance(t)
		red, expand := pairMerge(bufs, rapid.Uint64().Draw(t, "mseed"))
		requireReduced(t, bufs, red, expand)
	})
}

// drawMergeInstance draws a packable instance of up to 300 buffers or a
// random small one (the merges' property tests).
func drawMergeInstance(t *rapid.T) []Buffer {
	if rapid.Bool().Draw(t, "packable") {
		n := rapid.IntRange(2, 300).Draw(t, "n")
		return blockBuffers(dsagen.Packable(n, packableCapacity, rapid.Uint64().Draw(t, "seed")))
	}
	var bufs []Buffer
	n := rapid.IntRange(1, 60).Draw(t, "n")
	for i := range n {
		s := rapid.Int64Range(0, 12).Draw(t, "start")
		bufs = append(bufs, Buffer{ID: int64(i), Start: s, End: s + rapid.Int64Range(1, 4).Draw(t, "len"), Size: 64 * rapid.Int64Range(1, 4).Draw(t, "size")})
	}
	return bufs
}

// requireReduced checks a reduced instance of bufs: no more buffers, the
// same LB, perfect where bufs is, and a placement of it expands to a
// valid placement of bufs with the same arena.
func requireReduced(t *rapid.T, bufs, red []Buffer, expand func([]int64) []int64) {
	lb := LowerBound(bufs)
	require.LessOrEqual(t, len(red), len(bufs))
	require.Equal(t, lb, LowerBound(red))
	if isPerfect(bufs, lb) {
		require.True(t, isPerfect(red, lb))
	}
	ro := portfolioOffsets(red)
	require.NoError(t, VerifyPlacement(red, ro))
	off := expand(ro)
	require.NoError(t, VerifyPlacement(bufs, off))
	require.Equal(t, ArenaSize(red, ro), ArenaSize(bufs, off))
}

// TestPairMergeDeterministic: one seed, one reduced instance.
func TestPairMergeDeterministic(t *testing.T) {
	bufs := blockBuffers(dsagen.Packable(1000, packableCapacity, 2))
	a, _ := pairMerge(bufs, 1)
	b, _ := pairMerge(bufs, 1)
	require.Equal(t, a, b)
	c, _ := pairMerge(bufs, 2)
	assert.NotEqual(t, a, c)
}

// TestPairMergeP5000: what the merges make of packable p5000, against the
// generator's tiling (the figures of pairmerge.go's comment): the 5,000
// buffers come down to under a thousand, and about one merge in four
// joins two items that are not neighbours in that tiling (counted where
// both are rectangles of it).
//
//	go test ./planner -run TestPairMergeP5000 -v
func TestPairMergeP5000(t *testing.T) {
	blocks := dsagen.Packable(5000, packableCapacity, 1)
	bufs := blockBuffers(blocks)
	p := newPairMerger(bufs, 1)
	for p.step() {
	}
	off := make([]int64, len(p.items)) // in the tiling; -1: no rectangle of it
	for i := range bufs {
		off[i] = blocks[i].Offset
	}
	merges, apart := 0, 0
	for i := len(bufs); i < len(p.items); i++ {
		it := p.items[i]
		merges++
		oa, ob := off[it.a], off[it.b]
		off[i] = -1
		if oa < 0 || ob < 0 {
			continue
		}
		switch {
		case ob == oa+it.boff: // b continues a, or sits on it
			off[i] = oa
		case it.boff > 0 && oa == ob+p.items[it.b].h: // a sits on b
			off[i] = ob
		default:
			apart++
		}
	}
	left := len(bufs) - merges
	t.Logf("p5000: %d merges, %d items left, %d merges of items apart in the tiling (%.1f%%)", merges, left, apart, 100*float64(apart)/float64(merges))
	assert.Less(t, left, 1000)
	assert.Greater(t, left, 800)
	assert.InDelta(t, 0.25, float64(apart)/float64(merges), 0.08)
}
