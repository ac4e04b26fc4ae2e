package planner

// Placement in pieces of time, on two cores.
//
// A fit placer is sequential: each buffer's offset depends on every buffer
// placed before it. But a buffer that ends by step t and one that starts
// at t or later never meet, so once the buffers that cross t are placed,
// the two sides can be placed independently, each among the crossing
// buffers as fixed obstacles. placeSplit cuts at the start between the
// 40th and 60th percentile of starts that the fewest buffers cross:
//
//	steps   0 ......... t ......... T
//	left    [==)  [=====)               end at or before t
//	cross          [=========)          starts before t, ends after it
//	right               [====)  [==)    start at or after t
//
// It places the crossing buffers first, in the given order, then each side
// in that order on its own goroutine. The result is valid for any order;
// it equals placeInOrder's only when every crossing buffer comes before
// the others in the order, so it is a placement of its own (the crossing
// buffers go first), used by auto above autoPortfolioMax buffers, where it
// halves the placement's wall time.
//
// Each side is placed exactly in the given order (placePieces), but not
// in one time index: in pieces of about splitPiece buffers, cut the same
// way, each with an index of its own. A piece's index fits in the
// processor's caches where a side's does not, and a buffer that crosses a
// cut inside the side is placed at its turn among the indexes of the
// pieces it meets. The offsets are those of one index over the side.
//
// Example: on the synthetic ladder's 1,000,000 buffers about 3,000 cross
// the median start; first-fit by size gives 1.0056 x LB either way.

import (
	"context"
	"slices"
	"sync"
)

// splitPiece is the number of buffers placePieces aims at per piece
// (measured on the synthetic million, docs/BENCHMARKS.md).
const splitPiece = 1 << 13

// placeSplit places bufs in order under policy, split at the median start
// as described above. It falls back to placeInOrder when a buffer is Fixed.
func placeSplit(ctx context.Context, bufs []Buffer, order []int, policy fitPolicy) ([]int64, error) {
	return placeSplitPieces(ctx, bufs, order, policy, splitPiece)
}

// placeSplitPieces is placeSplit with pieces of about piece buffers.
func placeSplitPieces(ctx context.Context, bufs []Buffer, order []int, policy fitPolicy, piece int) ([]int64, error) {
	if err := validateBuffers(bufs); err != nil {
		return nil, err
	}
	if slices.ContainsFunc(bufs, func(b Buffer) bool { return b.Fixed }) || len(bufs) < 2 {
		return placeInOrder(ctx, bufs, order, policy, nil)
	}
	t := splitCuts(bufs, order, 2)[0]
	// side: 0 left, 1 right, 2 crossing.
	side := func(b *Buffer) int {
		switch {
		case b.End <= t:
			return 0
		case b.Start >= t:
			return 1
		}
		return 2
	}
	var cross []int
	for _, i := range order {
		if side(&bufs[i]) == 2 {
			cross = append(cross, i)
		}
	}
	off := make([]int64, len(bufs))
	if err := placePieces(ctx, bufs, cross, nil, off, policy, len(bufs)); err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for s := range 2 {
		wg.Go(func() {
			var part []int
			for _, i := range order {
				if side(&bufs[i]) == s {
					part = append(part, i)
				}
			}
			errs[s] = placePieces(ctx, bufs, part, cross, off, policy, piece)
		})
	}
	wg.Wait()
	if err := joinErrors(errs); err != nil {
		return nil, err
	}
	return off, nil
}

// splitCuts returns up to k-1 increasing cut times for the buffers idx of
// bufs: cut c is, among the distinct starts within a fifth of a piece
// (len(idx)/k) of the c/k quantile of starts, the one the fewest of them
// cross (start before it, end after it).
func splitCuts(bufs []Buffer, idx []int, k int) []int64 {
	n := len(idx)
	starts := make([]int64, n)
	ends := make([]int64, n)
	for j, i := range idx {
		starts[j], ends[j] = bufs[i].Start, bufs[i].End
	}
	var wg sync.WaitGroup
	wg.Go(func() { radixSort[int64, struct{}](ends, nil) })
	radixSort[int64, struct{}](starts, nil)
	wg.Wait()
	var cuts []int64
	w := n / k / 5
	for c := 1; c < k; c++ {
		q := c * n / k
		t, fewest := starts[q], n+1
		for j := max(q-w, 0); j <= min(q+w, n-1); j++ {
			if j > 0 && starts[j] == starts[j-1] {
				continue
			}
			e, _ := slices.BinarySearch(ends, starts[j]+1) // ends <= starts[j]
			if x := j - e; x < fewest {
				t, fewest = starts[j], x
			}
		}
		if len(cuts) == 0 || t > cuts[len(cuts)-1] {
			cuts = append(cuts, t)
		}
	}
	return cuts
}
