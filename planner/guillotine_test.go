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
	"pgregory.net/rapid"

	"github.com/memplan/memplan/internal/dsagen"
)

// noFallback fails the test if a piece is left without a cut.
func noFallback(t require.TestingT) func([]Buffer) []int64 {
	return func(sub []Buffer) []int64 {
		require.Failf(t, "fallback", "a piece of %d buffers without a cut", len(sub))
		return stackOffsets(sub)
	}
}

// TestGuillotineWorkedExample is guillotine.go's example: a stacked at 0,
// then b and c cut apart in time, both at 4.
func TestGuillotineWorkedExample(t *testing.T) {
	bufs := []Buffer{
		{ID: 0, Start: 0, End: 2, Size: 4},
		{ID: 1, Start: 0, End: 1, Size: 4},
		{ID: 2, Start: 1, End: 2, Size: 4},
	}
	off, _, missed := guillotinePlace(context.Background(), bufs, 8, noFallback(t))
	assert.Equal(t, []int64{0, 4, 4}, off)
	assert.Zero(t, missed)
}

// TestGuillotineBand is guilband.go's example: with no cut in time and
// nothing spanning, the search finds the band {2, 3} and places it under
// the rest.
func TestGuillotineBand(t *testing.T) {
	bufs := []Buffer{
		{ID: 0, Start: 0, End: 2, Size: 2}, // band of 2 bytes: 0 then 1
		{ID: 1, Start: 2, End: 4, Size: 2},
		{ID: 2, Start: 0, End: 3, Size: 4}, // band of 4 bytes: 2 then 3
		{ID: 3, Start: 3, End: 4, Size: 4},
	}
	require.True(t, isPerfect(bufs, 6))
	off, _, missed := guillotinePlace(context.Background(), bufs, 6, noFallback(t))
	require.Zero(t, missed)
	require.NoError(t, VerifyPlacement(bufs, off))
	assert.Equal(t, int64(6), ArenaSize(bufs, off))
	assert.Equal(t, []int64{4, 4, 0, 0}, off, "the band {2, 3} at 0, the rest at 4")
}

// TestGuilBandIsBand: every band found on a packable instance has the
// same live total at every step, and so has the rest: the check used
// (isPerfect) rejects a band with one buffer grown.
func TestGuilBandIsBand(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(4, 80).Draw(t, "n")
		bs := blockBuffers(dsagen.Packable(n, 1<<12, rapid.Uint64().Draw(t, "seed")))
		lb := LowerBound(bs)
		g := &guilSearch{ctx: context.Background(), bufs: bs}
		set := make([]int, len(bs))
		for i := range set {
			set[i] = i
		}
		if timeParts(bs) != nil {
			t.Skip("a cut in time: no band needed")
		}
		// The node limit the cuts give a band: an unbounded search can run
		// past CI's 30 min (TestGuilBandStopsAtLimit's instance).
		b := newGuilBand(g, set, lb, max(guilBandNodes*int64(len(set)), guilBandMin))
		if !b.run() {
			return // a single buffer, spans only, or none within the limit
		}
		in := map[int]bool{}
		var band, rest []Buffer
		for _, i := range b.found {
			in[i] = true
			band = append(band, bs[i])
		}
		for i := range bs {
			if !in[i] {
				rest = append(rest, bs[i])
			}
		}
		require.NotEmpty(t, rest)
		require.Truef(t, isPerfect(band, b.foundH), "band of %d buffers, height %d", len(band), b.foundH)
		require.True(t, isPerfect(rest, lb-b.foundH))
		band[0].Size += 64
		require.False(t, isPerfect(band, b.foundH), "a buffer grown")
	})
}

// TestGuillotineAlwaysValid: whatever the cuts and the fallback do, the
// placement is valid; with no piece left to the fallback it is at LB.
func TestGuillotineAlwaysValid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 120).Draw(t, "n")
		bs := blockBuffers(dsagen.Packable(n, 1<<12, rapid.Uint64().Draw(t, "seed")))
		lb := LowerBound(bs)
		off, _, missed := guillotinePlace(context.Background(), bs, lb, stackOffsets)
		require.NoError(t, VerifyPlacement(bs, off))
		if missed == 0 {
			require.Equal(t, lb, ArenaSize(bs, off))
		}
	})
}

// TestGuilFluidSubset: the knapsack table of a fluid reaches exactly the
// sums of subsets of its items, and subset returns items of that sum.
func TestGuilFluidSubset(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sizes := rapid.SliceOfN(rapid.Int64Range(1, 12), 1, 10).Draw(t, "sizes")
		size := func(k int) int64 { return sizes[k] * 64 }
		items := make([]int, len(sizes))
		for k := range items {
			items[k] = k
		}
		f := newGuilFluid(items, size)
		require.NotNil(t, f)
		sums := map[int64]bool{}
		for mask := 0; mask < 1<<len(sizes); mask++ {
			var s int64
			for k := range sizes {
				if mask&(1<<k) != 0 {
					s += size(k)
				}
			}
			sums[s] = true
		}
		for x := int64(-64); x <= f.total+64; x += 32 {
			require.Equalf(t, sums[x], f.reaches(x), "sum %d", x)
			if sums[x] {
				var got int64
				seen := map[int]bool{}
				for _, k := range f.subset(x, size) {
					require.False(t, seen[k], "an item twice")
					seen[k] = true
					got += size(k)
				}
				require.Equal(t, x, got)
			}
		}
	})
}

// TestGuillotinePackable: the cuts place the committed packable instances
// p250, p500 and p1000 at LB with no piece left to the fallback.
func TestGuillotinePackable(t *testing.T) {
	for _, name := range []string{"p250", "p500", "p1000"} {
		bufs := loadDSA(t, filepath.Join("testdata", "packable", name+".csv"))
		lb := LowerBound(bufs)
		off, _, missed := guillotinePlace(context.Background(), bufs, lb, noFallback(t))
		require.NoError(t, VerifyPlacement(bufs, off), name)
		assert.Zero(t, missed, name)
		assert.Equal(t, lb, ArenaSize(bufs, off), name)
	}
}

// TestGuilLinksSound: on packable instances cut across bytes first, every
// strip of the generator's tiling (a band) holds whole classes: link never
// joins buffers that a band separates.
func TestGuilLinksSound(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(4, 150).Draw(t, "n")
		blocks := dsagen.Packable(n, 1<<14, rapid.Uint64().Draw(t, "seed"))
		bs := blockBuffers(blocks)
		// Strip lines: offsets no block straddles.
		var lines []int64
		for _, b := range blocks {
			straddled := false
			for _, o := range blocks {
				straddled = straddled || (b.Offset > o.Offset && b.Offset < o.Offset+o.Size)
			}
			if !straddled {
				lines = append(lines, b.Offset)
			}
		}
		strip := func(i int) int {
			k := 0
			for _, l := range lines {
				if l <= blocks[i].Offset {
					k++
				}
			}
			return k
		}
		g := &guilSearch{ctx: context.Background(), bufs: bs}
		b := newGuilBand(g, identity(len(bs)), LowerBound(bs), 1)
		for k := range bs {
			require.Equalf(t, strip(b.clsOf[k]), strip(k), "buffer %d linked to %d across a strip line", k, b.clsOf[k])
		}
	})
}

// TestGuilBandStopsAtLimit: on the packable instance that kept
// TestGuilBandIsBand running past CI's 30 min under a limit of 2^40
// nodes, the band search stops at the limit the cuts give it and reports
// no band.
func TestGuilBandStopsAtLimit(t *testing.T) {
	bs := blockBuffers(dsagen.Packable(80, 1<<12, 182993657))
	g := &guilSearch{ctx: context.Background(), bufs: bs}
	limit := max(guilBandNodes*int64(len(bs)), guilBandMin)
	b := newGuilBand(g, identity(len(bs)), LowerBound(bs), limit)
	assert.False(t, b.run())
	assert.LessOrEqual(t, g.nodes, limit+1)
	assert.Greater(t, g.nodes, limit/2, "the search spent its limit")
}

// TestGuilFluidWorkedExample is guilfluid.go's example.
func TestGuilFluidWorkedExample(t *testing.T) {
	sizes := []int64{64, 128, 256}
	size := func(k int) int64 { return sizes[k] }
	f := newGuilFluid([]int{0, 1, 2}, size)
	for x := int64(0); x <= 7*64; x += 64 {
		assert.True(t, f.reaches(x), x)
	}
	assert.False(t, f.reaches(8*64))
	assert.Equal(t, []int{2, 0}, f.subset(5*64, size))
}

// TestGuilLinkPasses is link's example: the first pass joins y, w and f
// at boundary 2, the second x and z to them at boundary 1 (one pass would
// leave x and z apart).
func TestGuilLinkPasses(t *testing.T) {
	bufs := []Buffer{
		{ID: 0, Start: 0, End: 1, Size: 1}, // x
		{ID: 1, Start: 0, End: 1, Size: 1}, // z
		{ID: 2, Start: 1, End: 2, Size: 1}, // y
		{ID: 3, Start: 1, End: 2, Size: 1}, // w
		{ID: 4, Start: 2, End: 3, Size: 2}, // f
	}
	g := &guilSearch{ctx: context.Background(), bufs: bufs}
	b := newGuilBand(g, identity(len(bufs)), 2, 1)
	for k := range bufs {
		assert.Equalf(t, b.clsOf[0], b.clsOf[k], "buffer %d not in x's class", k)
	}
}

// TestGuillotineMemo: a second run of the cuts with the first run's memo
// places p1000 the same without searching again.
func TestGuillotineMemo(t *testing.T) {
	bufs := loadDSA(t, filepath.Join("testdata", "packable", "p1000.csv"))
	memo := map[uint64]guilMemo{}
	run := func() *guilSearch {
		g := &guilSearch{ctx: context.Background(), bufs: bufs, off: make([]int64, len(bufs)), memo: memo, bySize: true, fallback: noFallback(t)}
		g.cut(identity(len(bufs)), 0, LowerBound(bufs))
		return g
	}
	first := run()
	require.Positive(t, first.nodes)
	require.NotEmpty(t, memo)
	second := run()
	assert.Zero(t, second.nodes, "the second run searched again")
	assert.Zero(t, second.missed)
	assert.Equal(t, first.off, second.off)
}

// TestGuilShares: the pieces without a cut share the fallback's time by
// their buffers, the last of the expected ones taking all that is left,
// and a piece beyond the count (a search cut short by time made it) too.
func TestGuilShares(t *testing.T) {
	share := guilShares(10)
	assert.InDelta(t, 0.4, share(4), 1e-12)
	assert.InDelta(t, 0.5, share(3), 1e-12) // 3 of the 6 left
	assert.InDelta(t, 1.0, share(3), 1e-12)
	assert.InDelta(t, 1.0, share(2), 1e-12) // beyond the count
	assert.InDelta(t, 1.0, guilShares(0)(5), 1e-12)
}

// TestGuillotineStatus: the status the search's progress lines read
// counts every buffer placed at LB, so it reaches the instance's size
// exactly when no piece went to the fallback, and it shows the fallback
// running while it runs.
func TestGuillotineStatus(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 120).Draw(t, "n")
		bs := blockBuffers(dsagen.Packable(n, 1<<12, rapid.Uint64().Draw(t, "seed")))
		lb := LowerBound(bs)
		st := &guilStatus{}
		fallback := func(sub []Buffer, _ float64) []int64 {
			require.True(t, st.fallback.Load(), "the fallback runs unflagged")
			return stackOffsets(sub)
		}
		off, _, missed := guillotinePlaceShared(context.Background(), bs, lb, fallback, guilOpts{status: st})
		require.NoError(t, VerifyPlacement(bs, off))
		require.False(t, st.fallback.Load())
		require.Equalf(t, missed == 0, st.exact() == int64(len(bs)), "missed %d, exact %d of %d", missed, st.exact(), len(bs))
		require.LessOrEqual(t, st.exact(), int64(len(bs)))
	})
	// Cancelled, the band search does not start: p500's piece of 293
	// buffers, too many for the tiling search, goes to the fallback,
	// flagged.
	bs := loadDSA(t, filepath.Join("testdata", "packable", "p500.csv"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	st := &guilStatus{}
	calls := 0
	off, _, missed := guillotinePlaceShared(ctx, bs, LowerBound(bs), func(sub []Buffer, _ float64) []int64 {
		calls++
		require.True(t, st.fallback.Load(), "the fallback runs unflagged")
		return stackOffsets(sub)
	}, guilOpts{status: st})
	require.NoError(t, VerifyPlacement(bs, off))
	require.Positive(t, missed)
	require.Equal(t, missed, calls)
	require.Less(t, st.exact(), int64(len(bs)))
}

// TestCutsProgressLines: the cuts' progress line names the buffers placed
// at LB so far, and stays quiet while a fallback runs (it prints its own).
func TestCutsProgressLines(t *testing.T) {
	var buf bytes.Buffer
	m := &srchMin{bufs: make([]Buffer, 7), begin: time.Now(), progress: &buf}
	g := &guilSearch{}
	g.exact.Store(3)
	st := &guilStatus{}
	st.watch(g)
	stop := m.cutsProgress(st, time.Millisecond)
	text := func() string {
		m.mu.Lock()
		defer m.mu.Unlock()
		return buf.String()
	}
	require.Eventually(t, func() bool { return strings.Contains(text(), "\n") }, 10*time.Second, time.Millisecond)
	m.mu.Lock() // a tick checks the flag under m.mu: none writes after this
	st.fallback.Store(true)
	before := buf.String()
	m.mu.Unlock()
	time.Sleep(20 * time.Millisecond)
	stop()
	require.Equal(t, before, text(), "a line while the fallback runs")
	first, _, _ := strings.Cut(before, "\n")
	require.Regexp(t, `^search: cuts: 3 of 7 buffers placed at LB, looking for bands  \d+\.\ds$`, first)
}

// BenchmarkGuillotineCuts: the cuts alone (both pivot orders, the pieces
// without a cut placed by the portfolio) on packable p5000 of seeds 1 and
// 2; the band searches are bounded by nodes, so "nodes" and "arena" are
// the same for every implementation that searches alike:
//
//	go test ./planner -run '^$' -bench BenchmarkGuillotineCuts -benchmem
func BenchmarkGuillotineCuts(b *testing.B) {
	for _, seed := range []uint64{1, 2} {
		bufs := blockBuffers(dsagen.Packable(5000, packableCapacity, seed))
		lb := LowerBound(bufs)
		b.Run(fmt.Sprintf("p5000-seed%d", seed), func(b *testing.B) {
			var off []int64
			var nodes int64
			for b.Loop() {
				off, nodes, _ = guillotinePlace(context.Background(), bufs, lb, portfolioOffsets)
			}
			b.ReportMetric(float64(nodes), "nodes")
			b.ReportMetric(float64(ArenaSize(bufs, off))/float64(lb), "arena")
		})
	}
}
