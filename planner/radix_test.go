package planner

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestRadixSortOracle: radixSort orders signed and unsigned keys as a
// stable comparison sort does, carrying each value with its key.
func TestRadixSortOracle(t *testing.T) {
	type kv struct {
		k int64
		v int
	}
	rapid.Check(t, func(t *rapid.T) {
		keys := rapid.SliceOf(rapid.OneOf(rapid.Int64(), rapid.Int64Range(-3, 3), rapid.Int64Range(1<<40, 1<<40+300))).Draw(t, "keys")
		want := make([]kv, len(keys))
		vals := make([]int, len(keys))
		for i, k := range keys {
			want[i], vals[i] = kv{k, i}, i
		}
		slices.SortStableFunc(want, func(a, b kv) int { return cmp.Compare(a.k, b.k) })
		radixSort(keys, vals)
		for i := range want {
			require.Equalf(t, want[i].k, keys[i], "key %d", i)
			require.Equalf(t, want[i].v, vals[i], "value %d (key %d)", i, keys[i])
		}
		u := make([]uint64, len(keys))
		for i, k := range keys {
			u[i] = uint64(k)
		}
		radixSort[uint64, struct{}](u, nil)
		require.Truef(t, slices.IsSorted(u), "unsigned keys not sorted: %v", u)
	})
}

// TestSortEventsAgree: sortByKey's two sorts (radixSort from radixFrom
// elements, a stable comparison sort below) put the sweep's events, times
// with increasing indices, in the same order.
func TestSortEventsAgree(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ts := rapid.SliceOf(rapid.Int64Range(-5, 5)).Draw(t, "times")
		idx := make([]int, len(ts)) // increasing, as the sweep lists them
		for k := range idx {
			idx[k] = 3*k + rapid.IntRange(0, 2).Draw(t, "gap")
		}
		rt, ri := slices.Clone(ts), slices.Clone(idx)
		sortByKey(rt, ri, 0)
		sortByKey(ts, idx, len(ts)+1)
		require.Equal(t, ts, rt, "times")
		require.Equal(t, idx, ri, "indices")
	})
}

// TestVerifyPlacementLarge: on an instance past radixMin (the radix
// sorts of the sweep), first-fit's placement verifies, and three buffers
// moved onto others are each caught.
func TestVerifyPlacementLarge(t *testing.T) {
	bufs := synthetic(3 * radixMin)
	off, err := singleOrders[3].Place(context.Background(), bufs)
	require.NoErrorf(t, err, "%v", err)
	require.NoErrorf(t, VerifyPlacement(bufs, off), "valid placement rejected")
	moved := 0
	for i := 1; i < len(bufs) && moved < 3; i++ {
		a, b := &bufs[i-1], &bufs[i]
		if a.Start < b.End && b.Start < a.End && b.Size > 0 && a.Size > 0 {
			off[i] = off[i-1]
			moved++
		}
	}
	require.Equal(t, 3, moved, "buffers moved")
	err = VerifyPlacement(bufs, off)
	require.ErrorIsf(t, err, ErrOverlap, "moved buffers: %v", err)
	var joined interface{ Unwrap() []error }
	require.Truef(t, errors.As(err, &joined), "error %T is not a joined list", err)
	assert.Lenf(t, joined.Unwrap(), 3, "errors: %v", err)
}
