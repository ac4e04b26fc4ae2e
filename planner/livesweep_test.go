package planner

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/memplan/memplan/internal/dsagen"
)

// TestPlaceLiveMatchesIndex: on random instances (alignment, empty buffers
// and ties of start included) the sweep gives placeInOrder's offsets in
// start order, under both policies.
func TestPlaceLiveMatchesIndex(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bufs := srchGenSmall(t, 60)
		if rapid.Bool().Draw(t, "empty") {
			bufs[0].Size = 0
		}
		order := singleOrders[4].order(bufs) // start
		for _, policy := range []fitPolicy{bestFit, firstFit} {
			want, err := placeInOrder(context.Background(), bufs, order, policy, nil)
			require.NoError(t, err)
			got, ok, err := placeLive(context.Background(), bufs, order, policy, nil, liveSweepPerBuffer)
			require.True(t, ok, "the sweep gave up on a start order")
			require.NoError(t, err)
			require.Equalf(t, want, got, "policy %d", policy)
		}
	})
}

// TestPlaceLiveRows: the same on 20,000 random rows (about 500 live), and
// the portfolio's start member (which takes the sweep) agrees too.
func TestPlaceLiveRows(t *testing.T) {
	bufs := blockBuffers(dsagen.Rows(20_000, 3))
	for i := range bufs {
		bufs[i].Align = 64
	}
	order := singleOrders[4].order(bufs)
	want, err := placeInOrder(context.Background(), bufs, order, bestFit, nil)
	require.NoError(t, err)
	got, ok, err := placeLive(context.Background(), bufs, order, bestFit, nil, liveSweepPerBuffer)
	require.True(t, ok)
	require.NoError(t, err)
	require.Equal(t, want, got)
	viaMember, err := singleOrders[4].Place(context.Background(), bufs)
	require.NoError(t, err)
	assert.Equal(t, want, viaMember)
	require.NoError(t, VerifyPlacement(bufs, got))
}

// TestPlaceLiveDeclines: the sweep leaves to the index an order that goes
// back in time, fixed buffers, invalid buffers, and too many live buffers
// for its work bound; a bound below the arena abandons it as it does the
// index.
func TestPlaceLiveDeclines(t *testing.T) {
	bufs := []Buffer{
		{ID: 0, Start: 0, End: 3, Size: 4},
		{ID: 1, Start: 0, End: 1, Size: 2},
		{ID: 2, Start: 1, End: 3, Size: 2},
	}
	ctx := context.Background()
	off, ok, err := placeLive(ctx, bufs, []int{0, 1, 2}, bestFit, nil, liveSweepPerBuffer)
	require.True(t, ok)
	require.NoError(t, err)
	assert.Equal(t, []int64{0, 4, 4}, off, "the file's worked example")
	_, ok, _ = placeLive(ctx, bufs, []int{2, 0, 1}, bestFit, nil, liveSweepPerBuffer)
	assert.False(t, ok, "an order going back in time")
	fixed := slices.Clone(bufs)
	fixed[1].Fixed = true
	_, ok, _ = placeLive(ctx, fixed, []int{0, 1, 2}, bestFit, nil, liveSweepPerBuffer)
	assert.False(t, ok, "a fixed buffer")
	bad := slices.Clone(bufs)
	bad[2].End = bad[2].Start
	_, ok, _ = placeLive(ctx, bad, []int{0, 1, 2}, bestFit, nil, liveSweepPerBuffer)
	assert.False(t, ok, "an invalid buffer")
	many := make([]Buffer, 3000)
	for i := range many {
		many[i] = Buffer{ID: int64(i), Start: 0, End: 1, Size: 64}
	}
	order := make([]int, len(many))
	for i := range order {
		order[i] = i
	}
	_, ok, _ = placeLive(ctx, many, order, bestFit, nil, 100)
	assert.False(t, ok, "3,000 live at once against 100 a buffer")
	var bound atomic.Int64
	bound.Store(64)
	_, ok, err = placeLive(ctx, many, order, bestFit, &bound, liveSweepPerBuffer)
	assert.True(t, ok)
	assert.ErrorIs(t, err, errAbandoned)
}
