package planner

// Placement in pieces of time, on two cores.
//
// A fit placer is sequential: each buffer's offset depends on every buffer
// placed before it. But a buffer that ends by step t and one that starts
// at t or later never meet. placeSplit cuts time into pieces of about
// splitPiece buffers (splitCuts: each cut at a start that few buffers
// cross) and places:
//
//  1. the buffers that cross the middle cut T, first, in the given order;
//  2. then the two sides of T, each on its own goroutine, exactly in the
//     given order among the buffers of step 1 as fixed obstacles
//     (placeSide): each piece has a time index of its own, small enough
//     to stay in the processor's caches, and a buffer that crosses a cut
//     inside a side is placed at its turn over the indexes of the pieces
//     it meets.
//
//	steps   0 ......... T ......... end
//	left    [==)  [=====)               end at or before T
//	cross          [=========)          start before T, end after it
//	right               [====)  [==)    start at or after T
//
// The result is valid for any order. It is placeInOrder's for the order
// with the buffers of step 1 moved to the front, so it is a placement of
// its own, used by auto above autoPortfolioMax buffers, where it halves
// the placement's wall time and the pieces' indexes cut it again.
//
// Example: on the synthetic ladder's 1,000,000 buffers 122 cuts leave
// pieces of about 8,000 buffers; 68 buffers cross the middle one, and
// first-fit by size gives 1.0056 x LB as in one index.

import (
	"context"
	"slices"
	"sync"
)

// splitPiece is the number of buffers placeSplit aims at per piece
// (measured on the synthetic million, docs/BENCHMARKS.md).
const splitPiece = 1 << 13

// placeSplit places bufs in order under policy, in pieces of time as
// described above. It falls back to placeInOrder when a buffer is Fixed.
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
	lay := newPieceLayout(bufs, order, splitCuts(bufs, max(len(bufs)/max(piece, 1), 2)))
	if lay == nil {
		return placeInOrder(ctx, bufs, order, policy, nil)
	}
	off := make([]int64, len(bufs))
	// Step 1: the buffers across the middle cut, in an index of their own.
	var top []int
	for _, r := range lay.top {
		top = append(top, order[r])
	}
	ix := newTimeIndexOf(bufs, top)
	for n, i := range top {
		if n&1023 == 1023 {
			if err := ctxErr(ctx); err != nil {
				return nil, err
			}
		}
		b := &bufs[i]
		o := ix.fit(b, policy)
		off[i] = o
		ix.record(o, o+b.Size)
	}
	ix = nil
	// Step 2: the sides.
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for s := range 2 {
		wg.Go(func() {
			sd := &pieceSide{lay: lay, bufs: bufs, order: order, off: off, policy: policy, ctx: ctx}
			errs[s] = sd.place(s)
		})
	}
	wg.Wait()
	if err := joinErrors(errs); err != nil {
		return nil, err
	}
	return off, nil
}

// splitCuts returns up to k-1 increasing cut times: cut c is, among the
// distinct starts within a fifth of a piece (len(bufs)/k) of the c/k
// quantile of starts, the one the fewest buffers cross (start before it,
// end after it).
func splitCuts(bufs []Buffer, k int) []int64 {
	n := len(bufs)
	starts := make([]int64, n)
	ends := make([]int64, n)
	for i := range bufs {
		starts[i], ends[i] = bufs[i].Start, bufs[i].End
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
		if t > starts[0] && (len(cuts) == 0 || t > cuts[len(cuts)-1]) {
			cuts = append(cuts, t)
		}
	}
	return cuts
}
