package planner

import (
	"context"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// TestImproveNeverWorse runs the large-instance path (band re-packing, then
// order local search) on random packable instances: the result verifies
// and never loses to the portfolio it starts from.
func TestImproveNeverWorse(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bufs, capacity := srchGenPacked(t, 60)
		m := &srchMin{ctx: context.Background(), bufs: bufs, begin: time.Now(),
			deadline: time.Now().Add(50 * time.Millisecond), lb: LowerBound(bufs)}
		m.best, m.method = srchInitial(context.Background(), bufs)
		m.arena = ArenaSize(bufs, m.best)
		start := m.arena
		free := make([]int, len(bufs))
		for i := range free {
			free[i] = i
		}
		m.improve(free)
		if err := VerifyPlacement(bufs, m.best); err != nil {
			t.Fatalf("invalid after improve (%s): %v", m.method, err)
		}
		if got := ArenaSize(bufs, m.best); got != m.arena || got > start || got < capacity {
			t.Fatalf("arena %d (recorded %d), start %d, optimum %d", got, m.arena, start, capacity)
		}
	})
}

// TestImproveBandRepack: the band re-packing alone closes a gap left by a
// bad placement: two buffers stacked in time order where they could share.
//
//	before:            after:
//	8 | B B            4 | A A B B
//	4 | A A            0 +--------
//	0 +----
func TestImproveBandRepack(t *testing.T) {
	bufs := []Buffer{
		{ID: 0, Start: 0, End: 2, Size: 4},
		{ID: 1, Start: 2, End: 4, Size: 4},
		{ID: 2, Start: 0, End: 4, Size: 4},
	}
	m := windowsRun(bufs, []int64{4, 8, 0})
	m.windows(identity(len(bufs)), m.best)
	if m.arena != 8 || m.method != "search/window" || VerifyPlacement(bufs, m.best) != nil {
		t.Fatalf("arena %d method %q offsets %v", m.arena, m.method, m.best)
	}
}

// TestImproveBandRepackOneByte: a gap of one byte to LB leaves only the
// target one byte below the arena (half and an eighth of the gap are 0),
// and the band re-packing still tries it.
//
//	before:             after:
//	10 |     B          9 | A A B B
//	 5 | A A B          5 | C C C C
//	 0 | C C C C        0 +--------
func TestImproveBandRepackOneByte(t *testing.T) {
	bufs := []Buffer{
		{ID: 0, Start: 0, End: 2, Size: 4},
		{ID: 1, Start: 2, End: 4, Size: 4},
		{ID: 2, Start: 0, End: 4, Size: 5},
	}
	m := windowsRun(bufs, []int64{5, 6, 0})
	if m.arena != m.lb+1 || VerifyPlacement(bufs, m.best) != nil {
		t.Fatalf("setup: arena %d, LB %d", m.arena, m.lb)
	}
	m.windows(identity(len(bufs)), m.best)
	if m.arena != m.lb || m.method != "search/window" || VerifyPlacement(bufs, m.best) != nil {
		t.Fatalf("arena %d (LB %d) method %q offsets %v", m.arena, m.lb, m.method, m.best)
	}
}

// windowsRun returns a search run over bufs whose best placement is best,
// with a second to go, for the band re-packing tests.
func windowsRun(bufs []Buffer, best []int64) *srchMin {
	m := &srchMin{ctx: context.Background(), bufs: bufs, begin: time.Now(),
		deadline: time.Now().Add(time.Second), lb: LowerBound(bufs)}
	m.best = best
	m.arena = ArenaSize(bufs, m.best)
	return m
}
