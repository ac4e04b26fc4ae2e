package planner

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestRefineSuspectsWorkedExample: refine.go's example. At step 0 the
// items sit at [0,4), [4,6) and [7,9) with LB 8: the two next to the hole
// [6,7) are suspects, the one at the bottom is not. A hole at the bottom
// counts too, and an item above LB is a suspect with no hole.
func TestRefineSuspectsWorkedExample(t *testing.T) {
	bufs := []Buffer{
		{ID: 0, Start: 0, End: 1, Size: 4},
		{ID: 1, Start: 0, End: 1, Size: 2},
		{ID: 2, Start: 0, End: 1, Size: 2},
	}
	p := newPairMerger(bufs, 1)
	roots := []int{0, 1, 2}
	assert.Equal(t, []bool{false, true, true}, refineSuspects(p, roots, []int64{0, 4, 7}, 8))
	assert.Equal(t, []bool{false, false, false}, refineSuspects(p, roots, []int64{0, 4, 6}, 8), "a tiling at LB")
	assert.Equal(t, []bool{true, false, false}, refineSuspects(p, roots, []int64{1, 5, 7}, 9), "a hole at the bottom")
	assert.Equal(t, []bool{false, false, true}, refineSuspects(p, roots, []int64{0, 4, 6}, 7), "above LB")
}

// TestRefineMergedValid: from any placement of a re-merged instance (here
// the stack, full of holes), refinement returns a valid placement of the
// original buffers no higher than the expanded start.
func TestRefineMergedValid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bufs := drawMergeInstance(t)
		p, live, _ := remergeTree(context.Background(), bufs, 3, rapid.IntRange(0, 100).Draw(t, "iters"))
		roots := p.sortedRoots(live)
		off := stackOffsets(p.buffers(roots))
		start := p.expand(roots, off)
		require.NoError(t, VerifyPlacement(bufs, start))
		got := refineMerged(context.Background(), p, roots, off, searchLB(bufs), time.Now().Add(5*time.Millisecond), nil)
		require.NoError(t, VerifyPlacement(bufs, got))
		require.LessOrEqual(t, ArenaSize(bufs, got), ArenaSize(bufs, start))
	})
}

// TestRefineMergedSplits: the remerge example merged into one item, its
// two parts placed one byte apart (the upper part lifted): with time,
// refinement splits them, top repair drops the upper part and the arena
// is LB; with none it returns the start as placed.
func TestRefineMergedSplits(t *testing.T) {
	bufs := remergeExample()
	p, live, _ := remergeTree(context.Background(), bufs, 1, 100)
	require.Len(t, live, 1)
	lb := searchLB(bufs)
	root := p.items[live[0]]
	require.GreaterOrEqual(t, root.a, 0)
	parts, off := []int{root.a, root.b}, []int64{0, root.boff + 1}
	start := p.expand(parts, off)
	require.NoError(t, VerifyPlacement(bufs, start))
	require.Equal(t, lb+1, ArenaSize(bufs, start))
	got := refineMerged(context.Background(), p, parts, off, lb, time.Now().Add(time.Second), nil)
	require.NoError(t, VerifyPlacement(bufs, got))
	assert.Equal(t, lb, ArenaSize(bufs, got))
	assert.Equal(t, start, refineMerged(context.Background(), p, parts, off, lb, time.Now(), nil))
}
