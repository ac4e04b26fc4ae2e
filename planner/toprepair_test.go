package planner

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestTopRepairWorkedExample is toprepair.go's example: C, on top, drops
// to the bytes B left.
func TestTopRepairWorkedExample(t *testing.T) {
	bufs := []Buffer{
		{ID: 0, Start: 0, End: 4, Size: 2}, // A
		{ID: 1, Start: 0, End: 2, Size: 2}, // B
		{ID: 2, Start: 2, End: 4, Size: 2}, // C
	}
	bs, n := topRepairSet(bufs, identity(3), []int64{2, 0, 4}, 4)
	assert.Equal(t, 1, n)
	assert.True(t, bs[0].Fixed && bs[0].Offset == 2 && bs[1].Fixed && bs[1].Offset == 0)
	assert.False(t, bs[2].Fixed)
	assert.False(t, bufs[0].Fixed, "the caller's buffers stay as they are")

	m := windowsRun(bufs, []int64{2, 0, 4})
	m.topRepair(identity(3))
	require.NoError(t, VerifyPlacement(bufs, m.best))
	assert.Equal(t, []int64{2, 0, 0}, m.best)
	assert.Equal(t, int64(4), m.arena)
	assert.Equal(t, "search/top", m.method)
}

// TestTopRepairNeverWorse: from a stacked placement of a random packable
// instance, top repair ends with a valid placement no higher than it
// started, never below the optimum, and with m.arena its arena.
func TestTopRepairNeverWorse(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bufs, capacity := srchGenPacked(t, 40)
		m := windowsRun(bufs, stackOffsets(bufs))
		m.deadline = time.Now().Add(50 * time.Millisecond)
		start := m.arena
		m.topRepair(identity(len(bufs)))
		if err := VerifyPlacement(bufs, m.best); err != nil {
			t.Fatalf("invalid after top repair (%s): %v", m.method, err)
		}
		if got := ArenaSize(bufs, m.best); got != m.arena || got > start || got < capacity {
			t.Fatalf("arena %d (recorded %d), start %d, optimum %d", got, m.arena, start, capacity)
		}
	})
}
