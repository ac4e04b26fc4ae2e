package memranges

import (
	"errors"
	"testing"

	"pgregory.net/rapid"
)

// TestReorderMinimal: after Reorder, greedy barriers equal the longest
// conflict chain minus one (brute-force chain), the order keeps every
// conflicting pair, and the barriers verify on the reordered list.
func TestReorderMinimal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ds := genDispatches(t, 14)
		perm, lv, err := Reorder(ds, ReorderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := VerifyOrder(ds, perm); err != nil {
			t.Fatalf("VerifyOrder: %v", err)
		}
		re, err := Permute(ds, perm)
		if err != nil {
			t.Fatal(err)
		}
		bs := PlaceBarriers(Exact, re)
		chain := bruteLongestChain(ds)
		if want := max(chain-1, 0); len(bs) != want {
			t.Fatalf("%d barriers after reorder, longest chain %d", len(bs), chain)
		}
		if cp := CriticalPath(ds); cp != chain {
			t.Fatalf("CriticalPath %d, brute force %d", cp, chain)
		}
		if maxLevel(lv) != chain {
			t.Fatalf("max level %d, chain %d", maxLevel(lv), chain)
		}
		if err := Verify(re, bs); err != nil {
			t.Fatalf("Verify: %v", err)
		}
		// Deterministic: the same input gives the same permutation.
		perm2, _, _ := Reorder(ds, ReorderOptions{})
		for i := range perm {
			if perm[i] != perm2[i] {
				t.Fatalf("Reorder not deterministic: %v vs %v", perm, perm2)
			}
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
		if err != nil {
			t.Fatal(err)
		}
		if err := VerifyOrder(ds, perm); err != nil {
			t.Fatalf("VerifyOrder: %v", err)
		}
		for k, i := range perm {
			if k-i > w || i-k > w {
				t.Fatalf("dispatch %d moved to %d, window %d", i, k, w)
			}
		}
		re, _ := Permute(ds, perm)
		if got, orig := len(PlaceBarriers(Exact, re)), len(PlaceBarriers(Exact, ds)); got > orig {
			t.Fatalf("window reorder needs %d barriers, original order %d", got, orig)
		}
	})
}

func TestReorderErrors(t *testing.T) {
	if _, _, err := Reorder(nil, ReorderOptions{Window: -1}); !errors.Is(err, ErrOptions) {
		t.Errorf("negative window: %v", err)
	}
	ds := []Dispatch{{Uses: []Use{use(0, 0, 8, Write)}}, {Uses: []Use{use(0, 0, 8, Read)}}}
	for _, perm := range [][]int{{0}, {0, 0}, {0, 2}, {1, 0}} {
		if err := VerifyOrder(ds, perm); !errors.Is(err, ErrOrder) {
			t.Errorf("VerifyOrder(%v) = %v, want ErrOrder", perm, err)
		}
	}
	if _, err := Permute(ds, []int{1}); !errors.Is(err, ErrOrder) {
		t.Errorf("Permute short: %v", err)
	}
}
