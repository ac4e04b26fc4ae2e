package planner

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// gaps is the reference the placers' queries are checked against (and
// what they did before firstFree and bestFree): it calls visit for every
// maximal free byte range [lo, hi) at or above from, in increasing order,
// given the sets that collect found; the last gap has hi ==
// math.MaxInt64. It stops early when visit returns false.
//
// Each set keeps a cursor (its first span ending above x) and the start of
// that span (next[i]); only sets whose next span starts at or below x are
// looked at again, so a step costs a comparison per set, not a search.
func (ix *timeIndex) gaps(from int64, visit func(lo, hi int64) bool) {
	x := from
	next := ix.next[:0]
	for i, s := range ix.sets {
		j := s.skip(x, 0)
		ix.cur[i] = j
		next = append(next, s.startAt(j))
	}
	ix.next = next
	for {
		// Advance x past taken memory until no set holds it; the pass that
		// changes nothing also finds where the gap ends.
		end := int64(math.MaxInt64)
		for changed := true; changed; {
			changed = false
			end = math.MaxInt64
			for i, n := range next {
				if n <= x {
					s := ix.sets[i]
					j := s.skip(x, ix.cur[i])
					if j < s.len() && s.lo(j) <= x {
						// Spans never touch, so the set does not hold the new x.
						x = s.hi(j)
						j++
						changed = true
					}
					ix.cur[i] = j
					n = s.startAt(j)
					next[i] = n
				}
				end = min(end, n)
			}
		}
		if !visit(x, end) || end == math.MaxInt64 {
			return
		}
		x = end
	}
}

// gapFirstFit is first-fit by listing the gaps: the first gap whose
// aligned start holds size.
func gapFirstFit(ix *timeIndex, size, a int64) int64 {
	best := int64(-1)
	ix.gaps(0, func(lo, hi int64) bool {
		off := alignUp(lo, a)
		if hi == math.MaxInt64 || (off <= hi && hi-off >= size) {
			best = off
			return false
		}
		return true
	})
	return best
}

// gapBestFit is best-fit by listing the gaps: the smallest gap whose
// aligned start holds size, the lowest on a tie, else the top gap.
func gapBestFit(ix *timeIndex, size, a int64) int64 {
	best, bestGap := int64(-1), int64(math.MaxInt64)
	ix.gaps(0, func(lo, hi int64) bool {
		off := alignUp(lo, a)
		if hi == math.MaxInt64 {
			if best < 0 {
				best = off
			}
			return false
		}
		if off <= hi && hi-off >= size && hi-lo < bestGap {
			best, bestGap = off, hi-lo
		}
		return true
	})
	return best
}

// TestFreeMatchesGaps: on random placements, firstFree and bestFree
// answer every query as the gap listing does, for any size and
// alignment. Buffers of at most 12 bytes leave many gaps too small for
// the query; of up to 40, few gaps.
func TestFreeMatchesGaps(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 60).Draw(t, "n")
		most := rapid.SampledFrom([]int64{12, 40}).Draw(t, "most")
		bufs := make([]Buffer, n)
		for i := range bufs {
			s := rapid.Int64Range(0, 30).Draw(t, "start")
			bufs[i] = Buffer{ID: int64(i), Start: s, End: s + rapid.Int64Range(1, 12).Draw(t, "life"), Size: rapid.Int64Range(1, most).Draw(t, "size")}
		}
		ix := newTimeIndex(bufs)
		for i := range bufs {
			b := &bufs[i]
			// Place at a random offset (gaps and overlaps in bytes both
			// happen: the index does not care), then query.
			o := rapid.Int64Range(0, 200).Draw(t, "at")
			ix.add(b.Start, b.End, o, o+b.Size)
			size := rapid.Int64Range(1, 50).Draw(t, "qsize")
			a := []int64{1, 4, 16, 24}[rapid.IntRange(0, 3).Draw(t, "align")]
			for _, q := range []struct {
				name      string
				want, got func(*timeIndex, int64, int64) int64
			}{
				{"firstFree", gapFirstFit, (*timeIndex).firstFree},
				{"bestFree", gapBestFit, (*timeIndex).bestFree},
			} {
				ix.collect(b.Start, b.End)
				want := q.want(ix, size, a)
				ix.collect(b.Start, b.End)
				require.Equal(t, want, q.got(ix, size, a), "%s: size %d align %d over [%d, %d)", q.name, size, a, b.Start, b.End)
			}
		}
	})
}

// TestFreeWorkedExample is the queries' example: sets {[0, 4), [10, 12)}
// and {[6, 8)}. First-fit: 3 bytes go to 12 ([4, 6) is too small, and 4
// is not free for 3 bytes), 2 bytes to 4. Best-fit: for 2 bytes the gaps
// [4, 6) and [8, 10) fit exactly and the lower one wins; for 3 bytes none
// below the top does: 12; at alignment 8, [8, 10) holds 2 bytes and
// [4, 6) holds none. The gap listing agrees on each.
func TestFreeWorkedExample(t *testing.T) {
	bufs := []Buffer{{Start: 0, End: 2, Size: 4}, {Start: 0, End: 1, Size: 2}, {Start: 1, End: 2, Size: 2}}
	ix := newTimeIndex(bufs)
	ix.add(0, 2, 0, 4)
	ix.add(0, 2, 10, 12)
	ix.add(1, 2, 6, 8)
	for _, c := range []struct {
		best          bool
		size, a, want int64
	}{{false, 3, 1, 12}, {false, 2, 1, 4}, {true, 2, 1, 4}, {true, 3, 1, 12}, {true, 2, 8, 8}, {true, 1, 1, 4}} {
		query, ref := (*timeIndex).firstFree, gapFirstFit
		if c.best {
			query, ref = (*timeIndex).bestFree, gapBestFit
		}
		ix.collect(0, 2)
		assert.Equal(t, c.want, query(ix, c.size, c.a), "best-fit %v, size %d align %d", c.best, c.size, c.a)
		ix.collect(0, 2)
		assert.Equal(t, c.want, ref(ix, c.size, c.a), "the gap listing: best-fit %v, size %d align %d", c.best, c.size, c.a)
	}
}

// TestTimeIndexAgreesWithPairs: the memory taken over a step range, as the
// union of the sets collect finds, is the union of the placed ranges that
// share one of the index's time points (its buffers' starts) with the
// range, checked byte by byte. Queries and some added ranges are as wide as
// the whole axis, wider than every buffer the index was made for, so the
// sub sets the index does not keep (below subFrom) are taken as their parts.
func TestTimeIndexAgreesWithPairs(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(t, "n")
		bufs := make([]Buffer, n)
		maxLife := rapid.Int64Range(1, 6).Draw(t, "maxLife")
		for i := range bufs {
			s := rapid.Int64Range(0, 40).Draw(t, "start")
			bufs[i] = Buffer{Start: s, End: s + rapid.Int64Range(1, maxLife).Draw(t, "life"), Size: rapid.Int64Range(1, 8).Draw(t, "size")}
		}
		ix := newTimeIndex(bufs)
		type placed struct{ start, end, lo, hi int64 }
		var all []placed
		meets := func(p placed, qs, qe int64) bool {
			for _, tp := range ix.times {
				if p.start <= tp && tp < p.end && qs <= tp && tp < qe {
					return true
				}
			}
			return false
		}
		for i := range bufs {
			b := &bufs[i]
			o := rapid.Int64Range(0, 60).Draw(t, "at")
			all = append(all, placed{b.Start, b.End, o, o + b.Size})
			ix.add(b.Start, b.End, o, o+b.Size)
			// Some wide ranges too (a crossing buffer of the split placement).
			if rapid.IntRange(0, 4).Draw(t, "wideAdd") == 0 {
				lo := rapid.Int64Range(0, 20).Draw(t, "wlo")
				p := placed{lo, lo + rapid.Int64Range(1, 30).Draw(t, "wlen"), 70 + int64(i), 71 + int64(i)}
				all = append(all, p)
				ix.add(p.start, p.end, p.lo, p.hi)
			}
			qs := rapid.Int64Range(0, 45).Draw(t, "qs")
			qe := qs + rapid.Int64Range(1, 50).Draw(t, "qlen")
			want := map[int64]bool{}
			for _, p := range all {
				if meets(p, qs, qe) {
					for x := p.lo; x < p.hi; x++ {
						want[x] = true
					}
				}
			}
			ix.collect(qs, qe)
			got := map[int64]bool{}
			for _, s := range ix.sets {
				for j := range s.len() {
					for x := s.lo(j); x < s.hi(j); x++ {
						got[x] = true
					}
				}
			}
			require.Equal(t, want, got, "query [%d, %d) after %d buffers (subFrom %d of %d)", qs, qe, i+1, ix.subFrom, ix.size)
		}
	})
}

// TestSlotTableMatchesSearch: slot answers with its table as the binary
// search over the starts does, for every time in and around their range,
// on dense starts (a table) and sparse ones (none), near the ends of
// int64 too.
func TestSlotTableMatchesSearch(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		base := rapid.SampledFrom([]int64{0, -50, math.MinInt64 + 1, math.MaxInt64 - 400}).Draw(t, "base")
		n := rapid.IntRange(1, 40).Draw(t, "n")
		gap := rapid.Int64Range(1, 9).Draw(t, "gap") // 5 and up: sparse, no table
		bufs := make([]Buffer, n)
		s := base
		for i := range bufs {
			bufs[i] = Buffer{Start: s, End: s + 1, Size: 1}
			s += rapid.Int64Range(0, gap).Draw(t, "step") // repeats too
		}
		ix := newTimeIndex(bufs)
		if gap < slotTableSpan && len(ix.times) > 1 {
			require.NotNil(t, ix.dense, "starts %v", ix.times)
		}
		search := func(x int64) int { // the number of starts below x
			k := 0
			for k < len(ix.times) && ix.times[k] < x {
				k++
			}
			return k
		}
		first, last := ix.times[0], ix.times[len(ix.times)-1]
		if first > math.MinInt64+3 {
			first -= 3
		}
		for x := first; x <= last+3; x++ {
			require.Equal(t, search(x), ix.slot(x), "slot(%d), starts %v", x, ix.times)
		}
		for _, x := range []int64{math.MinInt64, math.MaxInt64} {
			require.Equal(t, search(x), ix.slot(x), "slot(%d), starts %v", x, ix.times)
		}
	})
}

// TestSlotTableCorrupted: a table entry off by one makes slot disagree
// with the search, which the check above would catch.
func TestSlotTableCorrupted(t *testing.T) {
	bufs := []Buffer{{Start: 10, End: 11, Size: 1}, {Start: 12, End: 13, Size: 1}, {Start: 13, End: 14, Size: 1}}
	ix := newTimeIndex(bufs)
	require.Equal(t, []int32{0, 1, 1, 2}, ix.dense)
	assert.Equal(t, 1, ix.slot(12))
	ix.dense[2]++
	assert.NotEqual(t, 1, ix.slot(12))
}

// TestTimeIndexReset: placing after reset gives what a new index gives,
// whatever the index held before (the squeaky passes reuse one index;
// the chunks it keeps must not leak spans into the new sets).
func TestTimeIndexReset(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bufs := genBuffers(t, 80, true, false)
		first := rapid.Permutation(identity(len(bufs))).Draw(t, "first")
		second := rapid.Permutation(identity(len(bufs))).Draw(t, "second")
		policy := fitPolicy(rapid.IntRange(0, 1).Draw(t, "policy"))
		ctx := context.Background()
		ix := newTimeIndex(bufs)
		_, err := placeWith(ctx, ix, make([]int64, len(bufs)), bufs, first, policy, nil)
		require.NoError(t, err)
		ix.reset()
		got, err := placeWith(ctx, ix, make([]int64, len(bufs)), bufs, second, policy, nil)
		require.NoError(t, err)
		want, err := placeInOrder(ctx, bufs, second, policy, nil)
		require.NoError(t, err)
		require.Equal(t, want, got)
	})
}

// TestTimeIndexResetCorrupted: the check above fails when a reset leaves
// the sub sets in place (they make the same bytes look taken).
func TestTimeIndexResetCorrupted(t *testing.T) {
	bufs := []Buffer{{Start: 0, End: 1, Size: 8}, {Start: 1, End: 2, Size: 8}, {Start: 0, End: 2, Size: 8}}
	ctx := context.Background()
	ix := newTimeIndex(bufs)
	_, err := placeWith(ctx, ix, make([]int64, 3), bufs, []int{0, 1, 2}, bestFit, nil)
	require.NoError(t, err)
	clear(ix.cover) // the sub sets kept: not a reset
	second := []int{2, 0, 1}
	got, err := placeWith(ctx, ix, make([]int64, 3), bufs, second, bestFit, nil)
	require.NoError(t, err)
	want, err := placeInOrder(ctx, bufs, second, bestFit, nil)
	require.NoError(t, err)
	assert.NotEqual(t, want, got)
}
