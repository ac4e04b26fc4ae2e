package planner

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSweepSetExample: sweepSet's worked example, as a slice, as a tree,
// and as a slice that moves into a tree at its third member; then a
// removal frees the bytes for an occupant that met the removed one.
func TestSweepSetExample(t *testing.T) {
	for _, max := range []int{sweepSliceMax, 0, 2} {
		l := sweepSet{max: max}
		require.Equalf(t, -1, l.add(sweepEntry{sweepKey{0, 3}, 16}), "max %d: first member", max)
		require.Equalf(t, -1, l.add(sweepEntry{sweepKey{64, 5}, 16}), "max %d: second member", max)
		require.Equalf(t, -1, l.add(sweepEntry{sweepKey{32, 7}, 8}), "max %d: 8 bytes at 32 meet neither neighbour", max)
		require.Equalf(t, 3, l.add(sweepEntry{sweepKey{12, 9}, 8}), "max %d: 8 bytes at 12 meet the member at 0", max)
		require.Equalf(t, 5, l.add(sweepEntry{sweepKey{60, 11}, 8}), "max %d: 8 bytes at 60 meet the member at 64", max)
		l.remove(sweepKey{0, 3})
		l.remove(sweepKey{12, 9}) // never added: nothing to remove
		require.Equalf(t, -1, l.add(sweepEntry{sweepKey{12, 9}, 8}), "max %d: 8 bytes at 12 after the member at 0 left", max)
	}
}
