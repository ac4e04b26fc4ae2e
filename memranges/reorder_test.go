package memranges

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestReorderMinimal: after Reorder, greedy barriers equal the longest
// conflict chain minus one (brute-force chain), the order keeps every
// conflicting pair, and the barriers verify on the reordered list.
func TestReorderMinimal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ds := genDispatches(t, 14)
		perm, lv, err := Reorder(ds, ReorderOptions{})
		require.NoErrorf(t, err, "%v", err)
		if err := VerifyOrder(ds, perm); err != nil {
			t.Fatalf("VerifyOrder: %v", err)
		}
		re, err := Permute(ds, perm)
		require.NoErrorf(t, err, "%v", err)
		bs := PlaceBarriers(Exact, re)
		chain := bruteLongestChain(ds)
		want := max(chain-1, 0)
		require.Lenf(t, bs, want, "%d barriers after reorder, longest chain %d", len(bs), chain)
		cp := CriticalPath(ds)
		require.Equalf(t, chain, cp, "CriticalPath %d, brute force %d", cp, chain)
		if maxLevel(lv) != chain {
			t.Fatalf("max level %d, chain %d", maxLevel(lv), chain)
		}
		if err := Verify(re, bs); err != nil {
			t.Fatalf("Verify: %v", err)
		}
		// Deterministic: the same input gives the same permutation.
		perm2, _, _ := Reorder(ds, ReorderOptions{})
		for i := range perm {
			require.Equalf(t, perm2[i], perm[i], "Reorder not deterministic: %v vs %v", perm, perm2)
		}
	})
}

// TestReorderWindow: with a window w no dispatch moves more than w places,
// the order is still safe, and the result is never worse than the original.
func TestReorderWindow(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ds := genDispatches(t, 14)
		w := rapid.IntRange(1, 5).Draw(t, "window")
		perm, _, err := Reorder(ds, ReorderOptions{Window: w})
		require.NoErrorf(t, err, "%v", err)
		if err := VerifyOrder(ds, perm); err != nil {
			t.Fatalf("VerifyOrder: %v", err)
		}
		for k, i := range perm {
			require.Falsef(t, k-i > w || i-k > w, "dispatch %d moved to %d, window %d", i, k, w)
		}
		re, _ := Permute(ds, perm)
		got, orig := len(PlaceBarriers(Exact, re)), len(PlaceBarriers(Exact, ds))
		require.LessOrEqualf(t, got, orig, "window reorder needs %d barriers, original order %d", got, orig)
	})
}

func TestReorderErrors(t *testing.T) {
	_, _, err := Reorder(nil, ReorderOptions{Window: -1})
	assert.ErrorIsf(t, err, ErrOptions, "negative window: %v", err)
	ds := []Dispatch{{Uses: []Use{use(0, 0, 8, Write)}}, {Uses: []Use{use(0, 0, 8, Read)}}}
	for _, perm := range [][]int{{0}, {0, 0}, {0, 2}, {1, 0}} {
		err := VerifyOrder(ds, perm)
		assert.ErrorIsf(t, err, ErrOrder, "VerifyOrder(%v) = %v, want ErrOrder", perm, err)
	}
	_, err = Permute(ds, []int{1})
	assert.ErrorIsf(t, err, ErrOrder, "Permute short: %v", err)
}
