package planner

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestSortByKeysOracle: for every order with packed fields, sortByKeys
// gives exactly the comparison sort's order, on instances whose fields
// span a few values (many ties) or the whole int64 range (keys that keep
// only the high bits of a field).
func TestSortByKeysOracle(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		wide := rapid.Bool().Draw(t, "wide")
		val := func(name string) int64 {
			if wide {
				return rapid.Int64Range(math.MinInt64/2, math.MaxInt64/2).Draw(t, name)
			}
			return rapid.Int64Range(0, 3).Draw(t, name)
		}
		n := rapid.IntRange(1, 60).Draw(t, "n")
		bufs := make([]Buffer, n)
		for i := range bufs {
			s := val("start")
			bufs[i] = Buffer{ID: val("id"), Start: s, End: s + 1 + rapid.Int64Range(0, 5).Draw(t, "life"), Size: max(val("size"), 0)}
		}
		for _, p := range singleOrders {
			if p.fields == nil {
				continue
			}
			c := p.compare(bufs)
			want := make([]int, n)
			for i := range want {
				want[i] = i
			}
			got := slices.Clone(want)
			slices.SortFunc(want, c)
			sortByKeys(bufs, got, p.fields, c)
			require.Equalf(t, want, got, "order %s", p.name)
		}
	})
}
