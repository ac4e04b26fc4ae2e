package planner

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// gapFirstFit is first-fit by listing the gaps (what fit did for every
// policy before firstFree): the first gap whose aligned start holds size.
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

// TestFirstFreeMatchesGaps: on random placements, firstFree answers every
// query as the gap listing does, for any size and alignment.
func TestFirstFreeMatchesGaps(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 60).Draw(t, "n")
		bufs := make([]Buffer, n)
		for i := range bufs {
			s := rapid.Int64Range(0, 30).Draw(t, "start")
			bufs[i] = Buffer{ID: int64(i), Start: s, End: s + rapid.Int64Range(1, 12).Draw(t, "life"), Size: rapid.Int64Range(1, 40).Draw(t, "size")}
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
			ix.collect(b.Start, b.End)
			want := gapFirstFit(ix, size, a)
			ix.collect(b.Start, b.End)
			require.Equal(t, want, ix.firstFree(size, a), "size %d align %d over [%d, %d)", size, a, b.Start, b.End)
		}
	})
}

// TestFirstFreeWorkedExample is firstFree's example: sets {[0, 4),
// [10, 12)} and {[6, 8)}, size 3: 12. The check above catches a wrong
// answer: the gap [4, 6) is too small, and 4 is not free for 3 bytes.
func TestFirstFreeWorkedExample(t *testing.T) {
	bufs := []Buffer{{Start: 0, End: 2, Size: 4}, {Start: 0, End: 1, Size: 2}, {Start: 1, End: 2, Size: 2}}
	ix := newTimeIndex(bufs)
	ix.add(0, 2, 0, 4)
	ix.add(0, 2, 10, 12)
	ix.add(1, 2, 6, 8)
	ix.collect(0, 2)
	assert.Equal(t, int64(12), ix.firstFree(3, 1))
	ix.collect(0, 2)
	assert.Equal(t, int64(12), gapFirstFit(ix, 3, 1))
	ix.collect(0, 2)
	assert.Equal(t, int64(4), ix.firstFree(2, 1), "[4, 6) holds 2 bytes")
}
