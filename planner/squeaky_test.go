package planner

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/memplan/memplan/internal/dsagen"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestSqueakyPackable runs squeaky-wheel passes alone on random packable
// instances (a rectangle cut by random guillotine cuts): the result always
// verifies, never loses to the portfolio placement it starts from, never
// goes below the optimum, and reaches the optimum on most of them.
func TestSqueakyPackable(t *testing.T) {
	hits, total := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		bufs, capacity := srchGenPacked(t, 40)
		m := &srchMin{ctx: context.Background(), bufs: bufs, begin: time.Now(),
			deadline: time.Now().Add(time.Minute), lb: LowerBound(bufs)}
		m.best, m.method = srchInitial(context.Background(), bufs)
		m.arena = ArenaSize(bufs, m.best)
		start := m.arena
		m.squeaky(200)
		if err := VerifyPlacement(bufs, m.best); err != nil {
			t.Fatalf("invalid after squeaky (%s): %v", m.method, err)
		}
		got := ArenaSize(bufs, m.best)
		if got != m.arena || got > start || got < capacity {
			t.Fatalf("arena %d (recorded %d), start %d, optimum %d", got, m.arena, start, capacity)
		}
		total++
		if got == capacity {
			hits++
		}
	})
	require.GreaterOrEqualf(t, hits, total*3/4, "squeaky reached the optimum on %d of %d packable instances, want 75%%", hits, total)
}

// TestSqueakyDeterministic: two runs with the same pass count give the
// same placement.
func TestSqueakyDeterministic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bufs, _ := srchGenPacked(t, 40)
		var offs [2][]int64
		for k := range offs {
			m := &srchMin{ctx: context.Background(), bufs: bufs, begin: time.Now(),
				deadline: time.Now().Add(time.Minute), lb: LowerBound(bufs)}
			m.best, m.method = srchInitial(context.Background(), bufs)
			m.arena = ArenaSize(bufs, m.best)
			m.squeaky(50)
			offs[k] = m.best
		}
		for i := range offs[0] {
			if offs[0][i] != offs[1][i] {
				t.Fatalf("buffer %d: offset %d then %d", i, offs[0][i], offs[1][i])
			}
		}
	})
}

// TestSqueakyShare pins the rule for where and how long the search
// strategy runs squeaky-wheel passes: half the time left on perfect
// instances (the cuts' pieces) of swoMinFree to swoMaxFree free buffers
// and on other instances above srchExactMax; an eighth on the others in
// range, so that the exact search keeps most of its time.
func TestSqueakyShare(t *testing.T) {
	for _, c := range []struct {
		free    int
		perfect bool
		want    int
	}{
		{swoMinFree - 1, true, 0},
		{swoMinFree, true, 2},
		{srchExactMax, true, 2},
		{swoMaxFree, true, 2},
		{swoMaxFree + 1, true, 0},
		{swoMinFree - 1, false, 0},
		{swoMinFree, false, 8},
		{215, false, 8}, // challenging E
		{srchExactMax, false, 8},
		{srchExactMax + 1, false, 2},
		{swoMaxFree, false, 2},
		{swoMaxFree + 1, false, 0},
	} {
		require.Equalf(t, c.want, squeakyShare(c.free, c.perfect), "squeakyShare(%d, %v)", c.free, c.perfect)
	}
}

// BenchmarkSwoPasses times 50 squeaky-wheel passes of one stream (each a
// first-fit placement in priority order, then the priorities raised and
// re-sorted) on the merged piece of packable p5000 (pair merges and 1,000
// re-merges, seed 1) and on packable p1000 whole; "arena" is the best the
// passes reach, the same for every implementation of the passes:
//
//	go test ./planner -run '^$' -bench BenchmarkSwoPasses -count 5
func BenchmarkSwoPasses(b *testing.B) {
	p5000 := blockBuffers(dsagen.Packable(5000, packableCapacity, 1))
	merged, _, _ := remerge(context.Background(), p5000, 1, 1000)
	cases := []struct {
		name string
		bufs []Buffer
	}{
		{"p5000-merged", merged},
		{"p1000", blockBuffers(dsagen.Packable(1000, packableCapacity, 1))},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			lb := LowerBound(c.bufs)
			var best swoResult
			for b.Loop() {
				m := &srchMin{ctx: context.Background(), bufs: c.bufs, begin: time.Now(),
					deadline: time.Now().Add(time.Hour), lb: lb, proven: lb, arena: math.MaxInt64}
				best = m.swoStream(0, 50)
			}
			b.ReportMetric(float64(len(c.bufs)), "buffers")
			b.ReportMetric(float64(best.arena)/float64(lb), "arena")
		})
	}
}
