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
// Example: on the synthetic ladder's 1,000,000 buffers 121 cuts leave
// pieces of about 8,000 buffers; 70 buffers cross the middle one, and
// first-fit by size gives 1.0056 x LB, as one pass in order does.

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
	cuts, crossed := splitCuts(bufs, max(len(bufs)/max(piece, 1), 2))
	lay := newPieceLayout(bufs, order, cuts, middleCut(crossed))
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

// splitCuts returns up to k-1 increasing cut times, and how many buffers
// cross each (start before it, end after it): cut c is, among the
// distinct starts within a fifth of a piece (len(bufs)/k) of the c/k
// quantile of starts, the one the fewest buffers cross.
func splitCuts(bufs []Buffer, k int) (cuts []int64, crossed []int) {
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
			cuts, crossed = append(cuts, t), append(crossed, fewest)
		}
	}
	return cuts, crossed
}

// middleCut returns the index of the middle cut: of the cuts between the
// 40th and the 60th percentile of the list, the one the fewest buffers
// cross (the first of equals). The buffers across it are placed before
// their turn, so the fewer the closer the placement is to one pass in
// order. On the synthetic million, taking the cut in the middle of the
// list instead gave 1.0039 to 1.0267 x LB by the piece count (2,048 to
// 32,768 buffers; a scratch run at f08f030); this rule gives one pass's
// 1.0056 for each (BenchmarkSplitPieces).
func middleCut(crossed []int) int {
	best := len(crossed) / 2
	for c := len(crossed) * 2 / 5; c <= len(crossed)*3/5 && c < len(crossed); c++ {
		if crossed[c] < crossed[best] {
			best = c
		}
	}
	return best
}
