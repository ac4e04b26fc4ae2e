package planner

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/memplan/memplan/internal/dsagen"
)

// TestCoarsenPlacedWorkedExample: recoarsen.go's example. b sits on a
// with a's lifespan, and c continues their stack at its offset: one item
// [0,4) 4 B at 0, whose expansion is the placement. A buffer of size 0
// stays apart, and so do two buffers a hole apart.
func TestCoarsenPlacedWorkedExample(t *testing.T) {
	bufs := []Buffer{
		{ID: 0, Start: 0, End: 2, Size: 2},
		{ID: 1, Start: 0, End: 2, Size: 2},
		{ID: 2, Start: 2, End: 4, Size: 4},
	}
	off := []int64{0, 2, 0}
	p, roots, ro := coarsenPlaced(bufs, off, 1)
	require.Len(t, roots, 1)
	assert.Equal(t, pmItem{s: 0, e: 4, h: 4, a: p.items[roots[0]].a, b: p.items[roots[0]].b}, p.items[roots[0]])
	assert.Equal(t, []int64{0}, ro)
	assert.Equal(t, off, p.expand(roots, ro))

	bufs = append(bufs, Buffer{ID: 3, Start: 0, End: 4, Size: 0}, Buffer{ID: 4, Start: 0, End: 2, Size: 2})
	off = []int64{0, 3, 0, 4, 5}
	p, roots, ro = coarsenPlaced(bufs, off, 1)
	assert.Len(t, roots, 4, "a on its own, b with the one above it, c, and the empty buffer")
	assert.Equal(t, off, p.expand(roots, ro))
}

// TestCoarsenPlacedKeepsPlacement: on any placement, the coarse instance
// placed at the offsets returned is valid, has the same arena, expands to
// the placement, and holds no pair that could still merge.
func TestCoarsenPlacedKeepsPlacement(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bufs := drawMergeInstance(t)
		off := portfolioOffsets(bufs)
		p, roots, ro := coarsenPlaced(bufs, off, rapid.Uint64().Draw(t, "seed"))
		cb := p.buffers(roots)
		require.NoError(t, VerifyPlacement(cb, ro))
		require.Equal(t, ArenaSize(bufs, off), ArenaSize(cb, ro))
		require.Equal(t, off, p.expand(roots, ro))
		require.Equal(t, -1, mergeablePair(cb, ro))
	})
}

// mergeablePair returns the first buffer of bufs (placed at off) that
// another sits right on with its lifespan, or that another continues at
// its offset with its size, or -1 when there is none.
func mergeablePair(bufs []Buffer, off []int64) int {
	for i, x := range bufs {
		for j, y := range bufs {
			if i == j || x.Size == 0 || y.Size == 0 {
				continue
			}
			stack := x.Start == y.Start && x.End == y.End && off[j] == off[i]+x.Size
			cont := y.Start == x.End && off[j] == off[i] && y.Size == x.Size
			if stack || cont {
				return i
			}
		}
	}
	return -1
}

// TestMergeablePairFindsPairs: the check above fails where a pair is
// left (a coarse instance one merge short).
func TestMergeablePairFindsPairs(t *testing.T) {
	bufs := []Buffer{{Start: 0, End: 2, Size: 2}, {Start: 0, End: 2, Size: 2}, {Start: 2, End: 4, Size: 2}}
	assert.Equal(t, 0, mergeablePair(bufs, []int64{0, 2, 5}), "a stack")
	assert.Equal(t, 1, mergeablePair(bufs, []int64{0, 3, 3}), "a continuation")
	assert.Equal(t, -1, mergeablePair(bufs, []int64{0, 3, 6}))
}

// TestRecoarsenLowersStack: from the stack of a packable instance (every
// buffer above the last), one cycle of re-coarsening returns a valid
// placement far lower; with no time it returns the stack.
func TestRecoarsenLowersStack(t *testing.T) {
	bufs := blockBuffers(dsagen.Packable(120, packableCapacity, 3))
	lb := searchLB(bufs)
	off := stackOffsets(bufs)
	assert.Equal(t, off, recoarsen(context.Background(), bufs, off, lb, time.Now(), recoarsenWays, nil))
	got := recoarsen(context.Background(), bufs, off, lb, time.Now().Add(recoarsenMin+200*time.Millisecond), recoarsenWays, nil)
	require.NoError(t, VerifyPlacement(bufs, got))
	assert.Less(t, ArenaSize(bufs, got), ArenaSize(bufs, off)/2)
}
