package planner

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestPeakOrderExample is the worked example of peak.go: the peak order
// reaches LB where size order does not.
func TestPeakOrderExample(t *testing.T) {
	bufs := []Buffer{
		{ID: 0, Start: 1, End: 3, Size: 3}, // a
		{ID: 1, Start: 2, End: 4, Size: 3}, // b
		{ID: 2, Start: 3, End: 6, Size: 2}, // c
		{ID: 3, Start: 4, End: 5, Size: 3}, // d
	}
	tests := []struct {
		name  string
		order []int
		want  []int64
		arena int64
	}{
		{"peak", peakOrder(bufs), []int64{0, 3, 0, 2}, 6},
		{"size", singleOrders[0].order(bufs), []int64{0, 3, 6, 0}, 8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			off, err := placeInOrder(context.Background(), bufs, tc.order, bestFit, nil)
			require.NoErrorf(t, err, "%v", err)
			if !slices.Equal(off, tc.want) || ArenaSize(bufs, off) != tc.arena {
				t.Fatalf("order %v: offsets %v arena %d, want %v arena %d", tc.order, off, ArenaSize(bufs, off), tc.want, tc.arena)
			}
		})
	}
	got := peakOrder(bufs)
	require.Truef(t, slices.Equal(got, []int{0, 1, 2, 3}), "peak order %v, want [0 1 2 3]", got)
}

// TestPeakOrderProperties: the peak order is a permutation; its first group
// is exactly the buffers live at the lowest step of the largest live total,
// longest first; best-fit in that order gives a valid placement.
func TestPeakOrderProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bufs := srchGenSmall(t, 30)
		order := peakOrder(bufs)
		got := slices.Sorted(slices.Values(order))
		require.Truef(t, slices.Equal(got, seqInts(len(bufs))), "not a permutation: %v", order)
		// Oracle: the live totals step by step.
		var end int64
		for _, b := range bufs {
			end = max(end, b.End)
		}
		peak, best := int64(-1), int64(-1)
		for s := int64(0); s < end; s++ {
			var tot int64
			for _, b := range bufs {
				if b.Start <= s && s < b.End {
					tot += b.Size
				}
			}
			if tot > best {
				peak, best = s, tot
			}
		}
		var live []int
		for i, b := range bufs {
			if b.Start <= peak && peak < b.End {
				live = append(live, i)
			}
		}
		if best > 0 {
			first := slices.Clone(order[:len(live)])
			for k := 1; k < len(first); k++ {
				require.GreaterOrEqualf(t, lifespan(&bufs[first[k-1]]), lifespan(&bufs[first[k]]), "first group %v not longest first", first)
			}
			slices.Sort(first)
			require.Truef(t, slices.Equal(first, live), "first group %v, want the buffers live at step %d: %v", first, peak, live)
		}
		off, err := placeInOrder(context.Background(), bufs, order, bestFit, nil)
		require.NoErrorf(t, err, "%v", err)
		if err := VerifyPlacement(bufs, off); err != nil {
			t.Fatal(err)
		}
	})
}

// TestMaxTree checks range add, max and argmax against a plain slice.
func TestMaxTree(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(t, "n")
		tr := newMaxTree(n)
		ref := make([]int64, n)
		for range rapid.IntRange(0, 30).Draw(t, "ops") {
			l := rapid.IntRange(0, n-1).Draw(t, "l")
			r := rapid.IntRange(l+1, n).Draw(t, "r")
			d := rapid.Int64Range(-50, 50).Draw(t, "d")
			tr.add(l, r, d)
			for p := l; p < r; p++ {
				ref[p] += d
			}
			want := slices.Max(ref)
			if tr.max() != want || tr.argmax() != slices.Index(ref, want) {
				t.Fatalf("max %d at %d, want %d at %d (%v)", tr.max(), tr.argmax(), want, slices.Index(ref, want), ref)
			}
		}
	})
}

func seqInts(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
