package planner

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memplan/memplan/internal/dsagen"
)

// TestTimeParts: the cuts fall where no buffer is live across a step
// boundary; parts below a 64th of the instance join their neighbours; one
// part gives nil.
func TestTimeParts(t *testing.T) {
	bufs := []Buffer{
		{Start: 0, End: 2, Size: 1}, {Start: 1, End: 3, Size: 1}, // part [0,3)
		{Start: 3, End: 4, Size: 1},                              // part [3,4)
		{Start: 5, End: 7, Size: 1}, {Start: 6, End: 9, Size: 1}, // part [5,9)
	}
	assert.Equal(t, [][]int{{0, 1}, {2}, {3, 4}}, timeParts(bufs))
	assert.Nil(t, timeParts(bufs[:2]), "one part")

	var many []Buffer
	for i := range int64(640) {
		many = append(many, Buffer{Start: i, End: i + 1, Size: 1})
	}
	parts := timeParts(many)
	require.Len(t, parts, srchMaxParts)
	for _, p := range parts {
		assert.Len(t, p, 10)
	}
}

// TestSearchParts: two packable instances one after the other in time are
// searched apart, each to the capacity, and put together; the second one,
// cut from half the capacity, stops at the whole instance's bound rather
// than its own. The progress names the parts.
func TestSearchParts(t *testing.T) {
	bufs := twoParts(blockBuffers(dsagen.Packable(39, 1<<12, 5)), blockBuffers(dsagen.Packable(39, 1<<11, 6)))
	var progress bytes.Buffer
	res, err := Search(context.Background(), bufs, SearchConfig{Budget: 2 * time.Second, Progress: &progress})
	require.NoError(t, err)
	assert.Equal(t, 2, res.Parts)
	assert.Equal(t, int64(1<<12+64), res.LB)
	assert.Equal(t, res.LB, res.Arena)
	assert.True(t, res.Optimal)
	require.NoError(t, VerifyPlacement(bufs, res.Offsets))
	assert.Contains(t, progress.String(), "search: part 1 of 2 (40 buffers)")
	assert.Contains(t, progress.String(), "search: part 2 of 2 (40 buffers)")
	assert.Equal(t, 2, strings.Count(progress.String(), "buffers): arena"))
}

// TestSearchPartsCancelled: a cancelled search still returns a valid
// placement of every part.
func TestSearchPartsCancelled(t *testing.T) {
	bufs := twoParts(blockBuffers(dsagen.Packable(300, 1<<16, 7)), blockBuffers(dsagen.Packable(300, 1<<16, 8)))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Search(ctx, bufs, SearchConfig{Budget: time.Second})
	require.NoError(t, err)
	require.NoError(t, VerifyPlacement(bufs, res.Offsets))
	assert.Equal(t, ArenaSize(bufs, res.Offsets), res.Arena)
}

// twoParts puts b after a in time, each under a 64-byte buffer live over
// its whole span (so neither falls into smaller parts).
func twoParts(a, b []Buffer) []Buffer {
	span := func(bs []Buffer) (int64, int64) {
		lo, hi := bs[0].Start, bs[0].End
		for _, x := range bs {
			lo, hi = min(lo, x.Start), max(hi, x.End)
		}
		return lo, hi
	}
	lo, end := span(a)
	a = append(a, Buffer{Start: lo, End: end, Size: 64})
	for i := range b {
		b[i].Start += end
		b[i].End += end
	}
	lo, hi := span(b)
	b = append(b, Buffer{Start: lo, End: hi, Size: 64})
	return append(a, b...)
}

// TestSearchPartsRerunDSA: a part that makes the arena (above the lower
// bound, not proven) gets the time a part that finished at once left: its
// line comes twice. Part 1 is challenging D; part 2, a stack of one step,
// is placed at its bound at once. The budget leaves D's rerun room to
// spare: under the race detector on a loaded machine D's first run once
// took 0.8 s of a 0.475 s share (its first phase is bounded by work, not
// the clock), and a 1 s budget then left less than srchMinRerun.
func TestSearchPartsRerunDSA(t *testing.T) {
	dir, _ := dsaFiles(t)
	hard := loadDSA(t, filepath.Join(dir, "challenging", "D.1048576.csv"))
	easy := make([]Buffer, len(hard))
	for i := range easy {
		easy[i] = Buffer{ID: int64(i), Start: 0, End: 1, Size: 64}
	}
	bufs := twoParts(hard, easy)
	var progress bytes.Buffer
	res, err := Search(context.Background(), bufs, SearchConfig{Budget: 4 * time.Second, Progress: &progress})
	require.NoError(t, err)
	require.NoError(t, VerifyPlacement(bufs, res.Offsets))
	require.Greater(t, res.Arena, res.LB, "D stays above its bound in 4 s")
	assert.Equal(t, 2, strings.Count(progress.String(), fmt.Sprintf("search: part 1 of 2 (%d buffers)", len(hard)+1)), progress.String())
	assert.Equal(t, 1, strings.Count(progress.String(), "search: part 2 of 2"), progress.String())
}
