package planner

// First-fit (or best-fit) in pieces of time, on two cores.
//
// A fit placer is sequential: each buffer's offset depends on every buffer
// placed before it. But a buffer that ends by step t and one that starts
// at t or later never meet. placeSplit cuts time into pieces of about
// splitPiece buffers (splitCuts: each cut at a start that few buffers
// cross), gives each piece a time index of its own, small enough to stay
// in the processor's caches, and places the buffers in the given order:
//
//   - a buffer inside a piece meets only the buffers of that piece and
//     the ones that cross one of its cuts, so it is placed in its piece's
//     index alone;
//   - a buffer that crosses a cut is placed at its turn, once every piece
//     it meets has placed the buffers before it in the order, over those
//     pieces' indexes together, and recorded in each.
//
// So a piece runs ahead alone until the next crossing buffer that meets
// it, and the offsets are exactly those of one pass in order over one
// index (placeInOrder). The middle cut, the one that halves the buffers
// inside pieces, divides the pieces into two sides, placed on two
// goroutines; a buffer across the middle cut is placed by side 0 while
// side 1 waits at it (pieceRun).
//
//	steps   0 ......... T ......... end
//	side 0  [==)  [=====)               pieces before the middle cut T
//	across         [=========)          placed at their turn, both sides
//	side 1              [====)  [==)    stopped there
//
// Where long buffers cross the cuts, pieces cost more than they save, and
// placeSplit takes fewer cuts, or none (splitLimits).
//
// Example: on the synthetic ladder's 1,000,000 buffers, 121 cuts leave
// pieces of about 8,000 buffers, 85 buffers cross the middle cut, and
// first-fit by size gives 1.0056 x LB, one pass's arena, in 2.4 s where
// one pass takes 5.4 s and two halves of one index each 2.9 s
// (BenchmarkSplitPieces at f55f73d, docs/BENCHMARKS.md).

import (
	"context"
	"slices"
	"sync"
)

// splitPiece is the number of buffers placeSplit aims at per piece
// (measured on the synthetic million, BenchmarkSplitPieces).
const splitPiece = 1 << 13

// placeSplit places bufs in order under policy, in pieces of time as
// described above: placeInOrder's offsets. It runs placeInOrder itself
// when a buffer is Fixed or there are no cuts.
func placeSplit(ctx context.Context, bufs []Buffer, order []int, policy fitPolicy) ([]int64, error) {
	return placeSplitPieces(ctx, bufs, order, policy, splitPiece, splitBounds)
}

// splitBounds are placeSplit's limits (see splitLimits).
var splitBounds = splitLimits{incidence: 32, top: 256}

// splitLimits bounds the layouts placeSplit accepts, as divisors of the
// number of buffers (0: no bound): the pieces met by the buffers that
// cross a cut, summed, at most n/incidence, and the buffers across the
// middle cut at most n/top.
//
// Each piece a crossing buffer meets holds it in its index and takes part
// in its placement, and each buffer across the middle cut stops both
// sides. Where many long buffers cross the cuts, pieces cost more than
// they save: 300,000 buffers of which one in 64 lives through most of the
// run took 2.4 s in 122 pieces against 1.5 s for one pass, one in 8 34.5 s
// against 3.5 s (a scratch run at 75ab247). The synthetic million meets
// both bounds by far: 18,669 piece meetings (n/53) and 85 buffers across
// the middle cut (n/11,765).
type splitLimits struct{ incidence, top int }

// splitLayout returns the layout placeSplit places in: pieces of about
// piece buffers, or a quarter as many cuts at a time while the layout
// passes limits, down to one cut; nil when even that passes them (or
// there is no cut), for one pass over one index instead.
func splitLayout(bufs []Buffer, order []int, piece int, limits splitLimits) *pieceLayout {
	n := len(bufs)
	for k := max(n/max(piece, 1), 2); ; k = max(k/4, 2) {
		lay := newPieceLayout(bufs, order, splitCuts(bufs, k))
		if lay == nil {
			return nil
		}
		meets := 0
		for _, m := range lay.meet {
			meets += len(m)
		}
		if (limits.incidence == 0 || meets <= n/limits.incidence) && (limits.top == 0 || len(lay.top) <= n/limits.top) {
			return lay
		}
		if k == 2 {
			return nil
		}
	}
}

// placeSplitPieces is placeSplit with pieces of about piece buffers,
// under limits.
func placeSplitPieces(ctx context.Context, bufs []Buffer, order []int, policy fitPolicy, piece int, limits splitLimits) ([]int64, error) {
	if err := validateBuffers(bufs); err != nil {
		return nil, err
	}
	if slices.ContainsFunc(bufs, func(b Buffer) bool { return b.Fixed }) || len(bufs) < 2 {
		return placeInOrder(ctx, bufs, order, policy, nil)
	}
	lay := splitLayout(bufs, order, piece, limits)
	if lay == nil {
		return placeInOrder(ctx, bufs, order, policy, nil)
	}
	run := newPieceRun(ctx, lay, bufs, order, policy)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for s := range 2 {
		wg.Go(func() { errs[s] = run.side(s) })
	}
	wg.Wait()
	if err := joinErrors(errs); err != nil {
		return nil, err
	}
	return run.off, nil
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
