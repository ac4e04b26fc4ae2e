package planner

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// unionOf is the model: the merged, non-touching union of ranges.
func unionOf(rs [][2]int64) []int64 {
	rs = slices.Clone(rs)
	slices.SortFunc(rs, func(a, b [2]int64) int { return int(a[0] - b[0]) })
	var out []int64
	for _, r := range rs {
		if r[0] >= r[1] {
			continue
		}
		if n := len(out); n > 0 && r[0] <= out[n-1] {
			out[n-1] = max(out[n-1], r[1])
			continue
		}
		out = append(out, r[0], r[1])
	}
	return out
}

// TestSpanStoreMatchesUnion: sets sharing one store, inserted into in
// random interleavings (so regions are outgrown, freed and reused), each
// hold exactly the union of what went into it, and insert reports
// "held" exactly when the set already covered the range.
func TestSpanStoreMatchesUnion(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var st spanStore
		sets := make([]spanSet, rapid.IntRange(1, 6).Draw(t, "sets"))
		model := make([][][2]int64, len(sets))
		for range rapid.IntRange(0, 300).Draw(t, "inserts") {
			k := rapid.IntRange(0, len(sets)-1).Draw(t, "set")
			lo := rapid.Int64Range(0, 400).Draw(t, "lo")
			hi := lo + rapid.Int64Range(0, 12).Draw(t, "len")
			before := unionOf(model[k])
			model[k] = append(model[k], [2]int64{lo, hi})
			after := unionOf(model[k])
			held := st.insert(&sets[k], lo, hi)
			require.Equal(t, slices.Equal(before, after), held, "held for [%d, %d)", lo, hi)
			for x := range sets {
				require.Equal(t, unionOf(model[x]), []int64(st.view(&sets[x])), "set %d", x)
			}
		}
	})
}

// TestSpanStoreLargeRegion: a set with more spans than a chunk holds gets
// a chunk of its own, and every set keeps its spans: the small ones made
// before it (one in the chunk being filled) and the large one itself
// through all its moves.
func TestSpanStoreLargeRegion(t *testing.T) {
	var st spanStore
	var first, filling, big spanSet
	st.insert(&first, 0, 1)
	for i := range 200 { // past the first chunk: filling is in a later one
		st.insert(&filling, int64(3*i), int64(3*i+1))
	}
	n := spanChunk/2 + 10 // spans: more int64 than one chunk
	for i := range n {
		st.insert(&big, int64(3*i), int64(3*i+1))
	}
	st.insert(&first, 5, 6)
	st.insert(&filling, 1000, 1001)
	assert.Equal(t, []int64{0, 1, 5, 6}, []int64(st.view(&first)))
	sp := st.view(&filling)
	require.Equal(t, 201, sp.len())
	for i := range 200 {
		require.Equalf(t, [2]int64{int64(3 * i), int64(3*i + 1)}, [2]int64{sp.lo(i), sp.hi(i)}, "filling span %d", i)
	}
	sp = st.view(&big)
	require.Equal(t, n, sp.len())
	for i := range n {
		require.Equalf(t, [2]int64{int64(3 * i), int64(3*i + 1)}, [2]int64{sp.lo(i), sp.hi(i)}, "big span %d", i)
	}
}

// TestSpanStoreLargeFirst: when the first region a store makes is larger
// than a chunk, the small regions after it go to a chunk of their own.
func TestSpanStoreLargeFirst(t *testing.T) {
	var st spanStore
	var big, small spanSet
	st.alloc(int32(spanChunk)) // a region of its own: st.mem[0]
	big.at, big.cap = 0, int32(spanChunk)
	for i := range 3 {
		st.insert(&big, int64(3*i), int64(3*i+1))
	}
	st.insert(&small, 100, 101)
	assert.Equal(t, []int64{0, 1, 3, 4, 6, 7}, []int64(st.view(&big)))
	assert.Equal(t, []int64{100, 101}, []int64(st.view(&small)))
}

// TestSpanStoreCatchesCorruption: the model comparison above fails when a
// region is freed while its set still holds it (a corrupted free list):
// the next set to grow takes it and writes over the first one's spans.
func TestSpanStoreCatchesCorruption(t *testing.T) {
	var st spanStore
	var a, c spanSet
	st.insert(&a, 0, 1)
	st.release(&a) // wrong: a still uses its region
	st.insert(&c, 10, 11)
	assert.NotEqual(t, unionOf([][2]int64{{0, 1}}), []int64(st.view(&a)), "c's span shows in a")
}
