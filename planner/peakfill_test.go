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

// TestPeakFill is the worked example of peakfill.go: the peak order ends
// above LB, the peak fill reaches it.
func TestPeakFill(t *testing.T) {
	bufs := []Buffer{
		{ID: 0, Start: 0, End: 3, Size: 5}, // a
		{ID: 1, Start: 0, End: 3, Size: 1}, // b
		{ID: 2, Start: 0, End: 1, Size: 1}, // c
		{ID: 3, Start: 0, End: 1, Size: 1}, // d
		{ID: 4, Start: 1, End: 3, Size: 1}, // e
		{ID: 5, Start: 1, End: 4, Size: 1}, // f
		{ID: 6, Start: 3, End: 4, Size: 7}, // g
	}
	lb := LowerBound(bufs)
	if s, ok := fullestStep(bufs); !ok || s != 0 {
		t.Fatalf("fullest step %d, %v; want 0", s, ok)
	}
	order := peakOrder(bufs)
	start, err := placeInOrder(context.Background(), bufs, order, bestFit, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, work := range []int64{0, autoWorkMin} { // as search, as auto
		m := &srchMin{ctx: context.Background(), bufs: bufs, begin: time.Now(),
			deadline: time.Now().Add(time.Second), lb: lb, workCap: work}
		m.best, m.arena = start, ArenaSize(bufs, start)
		if m.arena <= lb {
			t.Fatalf("the peak order reaches LB %d: the example no longer shows the peak fill", lb)
		}
		m.peakFill(start, order)
		if m.arena != lb || m.method != "search/peakfill" {
			t.Fatalf("work cap %d: arena %d (LB %d) method %q offsets %v", work, m.arena, lb, m.method, m.best)
		}
		if err := VerifyPlacement(bufs, m.best); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPeakFillCappedUnderWork: on 5,000 random rows (dsagen.Rows, seed 3)
// the peak fill's first short set holds 282 buffers, more than
// peakFillCapped, and the later sets only grow, so under a work cap the
// peak fill runs no exact attempt. Without the cap it tries them (on
// another instance of 5,000 rows a scratch run spent 57 s there under a
// 60 s budget and improved nothing).
func TestPeakFillCappedUnderWork(t *testing.T) {
	bufs := blockBuffers(dsagen.Rows(5000, 3))
	order := peakOrder(bufs)
	start, err := placeInOrder(context.Background(), bufs, order, bestFit, nil)
	require.NoError(t, err)
	nodes := func(work int64) int64 {
		m := &srchMin{ctx: context.Background(), bufs: bufs, begin: time.Now(),
			deadline: time.Now().Add(time.Second), lb: LowerBound(bufs), workCap: work}
		m.best, m.arena = start, ArenaSize(bufs, start)
		m.peakFill(start, order)
		require.NoError(t, VerifyPlacement(bufs, m.best))
		return m.nodes
	}
	assert.Zero(t, nodes(autoWorkMin), "auto's peak fill tried sets above peakFillCapped")
	assert.Positive(t, nodes(0), "without a work cap the sets are tried: the instance no longer shows the cap")
}

// TestPeakFillNeverWorse runs the peak fill from the peak order on random
// packable instances: the best placement stays valid and never grows.
func TestPeakFillNeverWorse(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bufs, capacity := srchGenPacked(t, 40)
		order := peakOrder(bufs)
		start, err := placeInOrder(context.Background(), bufs, order, bestFit, nil)
		if err != nil {
			t.Fatal(err)
		}
		m := &srchMin{ctx: context.Background(), bufs: bufs, begin: time.Now(),
			deadline: time.Now().Add(time.Second), lb: LowerBound(bufs)}
		m.best, m.arena = start, ArenaSize(bufs, start)
		before := m.arena
		m.peakFill(start, order)
		if err := VerifyPlacement(bufs, m.best); err != nil {
			t.Fatalf("invalid after peak fill (%s): %v", m.method, err)
		}
		if got := ArenaSize(bufs, m.best); got != m.arena || got > before || got < capacity {
			t.Fatalf("arena %d (recorded %d), before %d, optimum %d", got, m.arena, before, capacity)
		}
	})
}
