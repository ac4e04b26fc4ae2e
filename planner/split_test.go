package planner

import (
	"cmp"
	"context"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestPlaceSplitValid: on random instances (empty buffers, alignment and
// fixed buffers included) the split placement verifies, and it is the
// same on a second run.
func TestPlaceSplitValid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bufs := srchGenSmall(t, 40)
		if rapid.Bool().Draw(t, "zero") {
			bufs[0].Size = 0
		}
		if rapid.Bool().Draw(t, "fixed") {
			bufs[0].Fixed, bufs[0].Offset = true, 0
		}
		ff := singleOrders[3]
		off, err := placeSplit(context.Background(), bufs, ff.order(bufs), ff.policy)
		require.NoErrorf(t, err, "%v", err)
		if err := VerifyPlacement(bufs, off); err != nil {
			t.Fatalf("invalid: %v", err)
		}
		again, _ := placeSplit(context.Background(), bufs, ff.order(bufs), ff.policy)
		for i := range off {
			require.Equalf(t, again[i], off[i], "two runs differ at %d", i)
		}
	})
}

// TestPlaceSplitLarge: on the synthetic ladder's 20,000 buffers the split
// placement verifies and stays within 1% of first-fit's arena.
func TestPlaceSplitLarge(t *testing.T) {
	bufs := synthetic(20_000)
	ff := singleOrders[3]
	off, err := placeSplit(context.Background(), bufs, ff.order(bufs), ff.policy)
	require.NoErrorf(t, err, "%v", err)
	err = VerifyPlacement(bufs, off)
	require.NoErrorf(t, err, "%v", err)
	whole, _ := ff.Place(context.Background(), bufs)
	a, w := ArenaSize(bufs, off), ArenaSize(bufs, whole)
	assert.Falsef(t, float64(a) > 1.01*float64(w), "split arena %d more than 1%% above first-fit's %d", a, w)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = placeSplit(ctx, bufs, ff.order(bufs), ff.policy)
	assert.ErrorIsf(t, err, context.Canceled, "cancelled: %v", err)
}

// TestLowerBoundOracle: LowerBound equals the largest live total over every
// step, counted step by step, on random instances and on one large enough
// to take the radix-sort path.
func TestLowerBoundOracle(t *testing.T) {
	oracle := func(bufs []Buffer) int64 {
		live := map[int64]int64{}
		var peak int64
		for _, b := range bufs {
			for s := b.Start; s < b.End && b.Size > 0; s++ {
				live[s] += b.Size
				peak = max(peak, live[s])
			}
		}
		return peak
	}
	rapid.Check(t, func(t *rapid.T) {
		bufs := srchGenSmall(t, 30)
		got, want := LowerBound(bufs), oracle(bufs)
		require.Equalf(t, want, got, "LowerBound %d, oracle %d", got, want)
		got = lowerBound(bufs, 0) // radix sorts, however small
		require.Equalf(t, want, got, "lowerBound with radix sorts %d, oracle %d", got, want)
	})
	big := synthetic(radixMin + 1000)
	got, want := LowerBound(big), oracle(big)
	assert.Equalf(t, want, got, "%d buffers: LowerBound %d, oracle %d", len(big), got, want)
}

// TestSortIndices: the two-goroutine sort gives the sequential order.
func TestSortIndices(t *testing.T) {
	bufs := synthetic(sortParallel + 777)
	ff := singleOrders[3]
	got := ff.order(bufs)
	want := make([]int, len(bufs))
	for i := range want {
		want[i] = i
	}
	slices.SortFunc(want, func(i, j int) int {
		if c := ff.less(&bufs[i], &bufs[j]); c != 0 {
			return c
		}
		if c := byContent(&bufs[i], &bufs[j]); c != 0 {
			return c
		}
		return cmp.Compare(i, j)
	})
	require.Truef(t, slices.Equal(got, want), "parallel sort differs from the sequential one")
}

// TestPlacePiecesExact: the split placement in pieces of 2 to 8 buffers
// gives exactly placeInOrder's offsets, for first-fit and best-fit, on
// random instances (short and long lifespans, empty and aligned buffers).
func TestPlacePiecesExact(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(2, 60).Draw(t, "n")
		bufs := make([]Buffer, n)
		for i := range bufs {
			s := rapid.Int64Range(0, 40).Draw(t, "start")
			l := rapid.OneOf(rapid.Int64Range(1, 4), rapid.Int64Range(1, 40)).Draw(t, "len")
			bufs[i] = Buffer{ID: int64(i), Start: s, End: s + l, Size: rapid.Int64Range(0, 9).Draw(t, "size"),
				Align: rapid.SampledFrom([]int64{0, 1, 4}).Draw(t, "align")}
		}
		piece := rapid.IntRange(2, 8).Draw(t, "piece")
		for _, p := range []*orderPlacer{singleOrders[3], singleOrders[0]} {
			order := p.order(bufs)
			want, err := placeInOrder(context.Background(), bufs, order, p.policy, nil)
			require.NoErrorf(t, err, "%v", err)
			got, err := placeSplitPieces(context.Background(), bufs, order, p.policy, piece, splitLimits{})
			require.NoErrorf(t, err, "%v", err)
			require.Equalf(t, want, got, "%s: pieces of %d", p.name, piece)
		}
	})
}

// TestPlaceSplitCancelled: on the synthetic ladder's 20,000 buffers in
// pieces of 256 (many buffers across the middle cut, where one side waits
// for the other), a context cancelled before or during the placement
// gives context.Canceled and no hang.
func TestPlaceSplitCancelled(t *testing.T) {
	bufs := synthetic(20_000)
	ff := singleOrders[3]
	order := ff.order(bufs)
	for _, after := range []time.Duration{0, time.Millisecond, 5 * time.Millisecond} {
		ctx, cancel := context.WithTimeout(context.Background(), after)
		_, err := placeSplitPieces(ctx, bufs, order, ff.policy, 256, splitLimits{})
		cancel()
		if after == 0 || err != nil {
			assert.ErrorIsf(t, err, context.DeadlineExceeded, "cancelled after %v: %v", after, err)
		}
	}
}

// TestSplitLayoutLimits: the synthetic ladder's buffers get pieces under
// placeSplit's limits; an instance where one buffer in four lives through
// most of the run gets fewer cuts and then none (one pass instead), and
// still the offsets of one pass.
func TestSplitLayoutLimits(t *testing.T) {
	limits := splitBounds
	bufs := synthetic(100_000)
	ff := singleOrders[3]
	lay := splitLayout(bufs, ff.order(bufs), 1024, limits)
	require.NotNil(t, lay, "the synthetic ladder gets no pieces")
	assert.Greater(t, len(lay.cuts), 50, "cuts")
	for i := range bufs {
		if i%4 == 0 {
			bufs[i].Start, bufs[i].End = int64(i%100), 50_000-int64(i%100)
		}
	}
	order := ff.order(bufs)
	assert.Nil(t, splitLayout(bufs, order, 1024, limits), "long buffers everywhere, and still pieces")
	want, err := placeInOrder(context.Background(), bufs, order, ff.policy, nil)
	require.NoErrorf(t, err, "%v", err)
	got, err := placeSplit(context.Background(), bufs, order, ff.policy)
	require.NoErrorf(t, err, "%v", err)
	assert.Equal(t, want, got, "one pass's offsets")
}

// TestSpareWorkExact: a side that would wait places its other pieces'
// members up to their next crossing buffer (spareWork). Done to the end
// on both sides before the placement (as if every wait were long), on
// the synthetic ladder's 20,000 buffers in pieces of 256, it leaves no
// member before its piece's next crossing buffer, and the placement then
// gives exactly placeInOrder's offsets.
func TestSpareWorkExact(t *testing.T) {
	bufs := synthetic(20_000)
	ff := singleOrders[3]
	order := ff.order(bufs)
	lay := newPieceLayout(bufs, order, splitCuts(bufs, len(bufs)/256))
	require.NotNil(t, lay)
	run := newPieceRun(context.Background(), lay, bufs, order, ff.policy)
	chunks := 0
	for _, side := range [][2]int{{0, lay.mid}, {lay.mid + 1, len(lay.cuts)}} {
		for {
			did, err := run.spareWork(side[0], side[1])
			require.NoErrorf(t, err, "%v", err)
			if !did {
				break
			}
			chunks++
		}
	}
	require.Positivef(t, chunks, "no spare work on %d pieces", len(lay.cuts)+1)
	for k := range len(lay.cuts) + 1 {
		if c := run.cur[k]; c < lay.first[k+1] {
			require.GreaterOrEqualf(t, int(lay.members[c]), run.nextTurn(k), "piece %d: a member before the next crossing buffer is left", k)
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for s := range 2 {
		wg.Go(func() { errs[s] = run.side(s) })
	}
	wg.Wait()
	require.NoErrorf(t, joinErrors(errs), "%v", joinErrors(errs))
	want, err := placeInOrder(context.Background(), bufs, order, ff.policy, nil)
	require.NoErrorf(t, err, "%v", err)
	require.Equalf(t, want, run.off, "offsets after spare work differ from one pass in order")
}

// TestPieceOfMatchesSearch: pieceOf's buckets give the number of cuts at
// or below any step, as a binary search over the cuts does, for steps
// inside, outside and at the ends of the buffers' range.
func TestPieceOfMatchesSearch(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		base := rapid.Int64Range(-1000, 1000).Draw(t, "base")
		n := rapid.IntRange(2, 40).Draw(t, "n")
		bufs := make([]Buffer, n)
		for i := range bufs {
			s := base + rapid.Int64Range(0, 500).Draw(t, "start")
			bufs[i] = Buffer{ID: int64(i), Start: s, End: s + rapid.Int64Range(1, 200).Draw(t, "len"), Size: 1}
		}
		cuts := rapid.SliceOfNDistinct(rapid.Int64Range(base-50, base+750), 1, 30, rapid.ID[int64]).Draw(t, "cuts")
		slices.Sort(cuts)
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		l := newPieceLayout(bufs, order, cuts)
		steps := []int64{math.MinInt64, math.MaxInt64 - 1, base - 1000, base + 2000} // t < MaxInt64: a step some buffer lives at
		for _, b := range bufs {
			steps = append(steps, b.Start, b.End, b.End-1)
		}
		for _, c := range cuts {
			steps = append(steps, c-1, c, c+1)
		}
		for _, s := range steps {
			want, _ := slices.BinarySearch(cuts, s)
			if want < len(cuts) && cuts[want] == s {
				want++
			}
			require.Equalf(t, want, l.pieceOf(s), "step %d, cuts %v", s, cuts)
		}
	})
}
