package planner

import (
	"slices"
	"sync"
)

// The disjointness sweep
//
// Both verifiers (VerifyPlacement over buffers, Plan.Verify over the
// windows it re-derives from the graph) ask one question: do two occupants
// live at a common step share a byte? The sweep answers it in O(n log n).
//
// Events are visited by time, lifespan ends before starts at equal times
// (lifespans are half-open), starts in index order (the sorts are stable:
// sortStartsEnds). The live occupants are kept ordered by (first byte,
// index) in a sweepSet (a sorted slice while they are few, a balanced
// tree past that), and only occupants that conflict with nothing are
// ever added, so the set's members are disjoint in memory. Then a
// starting occupant X overlaps a member exactly when it overlaps one of
// its two neighbours in that order: a member I with I.lo <= X.lo < I.hi
// is the last one starting at or below X.lo (a later one would start
// inside I), and a member with X.lo < I.lo < X.hi makes the first one
// above X.lo start inside X too. A conflicting X is reported with that
// neighbour and left out of the set, so every occupant that overlaps an
// earlier one is reported, and there is an overlapping pair exactly when
// at least one is.
//
//	steps  0   1   2   3
//	A      [=======)          bytes [0, 64)
//	B          [=======)      bytes [32, 96): enters at 1, its floor A
//	                          overlaps it: reported (B, A), B stays out
//	C              [===)      bytes [64, 128): A has ended; no conflict
//
// From sweepParallel occupants the sweep runs in two halves of time on two
// goroutines, cut at the median start T: one sweeps the starts before T,
// the other the starts from T, with the occupants live across T inserted
// into its set first (those that overlap one inserted before them stay
// out: their pair begins before T, where the first half reports it). A
// pair of overlapping occupants meets first at the later one's start,
// before T or not, so one of the halves still reports at least one of
// every overlapping pair's occupants or of the pairs that kept it out.
//
// Byte ranges are compared exactly (an unsigned difference of the starts
// against the lower occupant's size), never through a saturating sum, so
// occupants near the top of int64 cannot slip past each other.

// span is one occupant: bytes [Lo, Lo+Size) during steps [Start, End).
type span struct {
	Start, End int64
	Lo, Size   int64
}

// occupiesSpan reports whether s takes bytes at some step.
func occupiesSpan(s *span) bool { return s.Size > 0 && s.End > s.Start }

// bytesOverlap reports whether [alo, alo+asize) and [blo, blo+bsize) share
// a byte, for positive sizes, exactly for any int64 starts.
func bytesOverlap(alo, asize, blo, bsize int64) bool {
	if alo <= blo {
		return uint64(blo)-uint64(alo) < uint64(asize)
	}
	return uint64(alo)-uint64(blo) < uint64(bsize)
}

// conflict is a pair of span indices that overlap: Later entered the sweep
// after Earlier.
type conflict struct{ Earlier, Later int }

// sweepConflicts returns, for every span that overlaps a span admitted to
// the sweep before it, one such pair (the first limit of them) and how many
// more conflicting spans it found past the limit.
func sweepConflicts(spans []span, limit int) (pairs []conflict, more int) {
	return sweepConflictsSplit(spans, limit, sweepParallel, sweepSliceMax)
}

// sweepConflictsSplit is sweepConflicts, in two halves of time from
// splitMin occupants, with live sets of sliceMax (sweepSet.max).
func sweepConflictsSplit(spans []span, limit, splitMin, sliceMax int) (pairs []conflict, more int) {
	// The starts and the ends, each by time and then by index.
	st, et := make([]int64, 0, len(spans)), make([]int64, 0, len(spans))
	si := make([]int, 0, len(spans))
	for i := range spans {
		if occupiesSpan(&spans[i]) {
			st, et = append(st, spans[i].Start), append(et, spans[i].End)
			si = append(si, i)
		}
	}
	ei := slices.Clone(si)
	sortStartsEnds(st, si, et, ei, radixSmall)
	if len(st) < splitMin {
		return sweepPart(spans, st, si, et, ei, nil, limit, sliceMax)
	}
	// Two halves at the median start T, on two goroutines: the left one
	// takes the starts before T, the right one the rest, with the spans
	// live across T (start before it, end after it) in its set first.
	m, _ := slices.BinarySearch(st, st[len(st)/2])
	if m == 0 {
		return sweepPart(spans, st, si, et, ei, nil, limit, sliceMax)
	}
	t := st[m]
	var across []int
	for i := range spans {
		if occupiesSpan(&spans[i]) && spans[i].Start < t && spans[i].End > t {
			across = append(across, i)
		}
	}
	e, _ := slices.BinarySearch(et, t+1) // the ends after T
	var rp []conflict
	var rm int
	var wg sync.WaitGroup
	wg.Go(func() { rp, rm = sweepPart(spans, st[m:], si[m:], et[e:], ei[e:], across, limit, sliceMax) })
	pairs, more = sweepPart(spans, st[:m], si[:m], et, ei, nil, limit, sliceMax)
	wg.Wait()
	for _, c := range rp {
		if len(pairs) < limit {
			pairs = append(pairs, c)
		} else {
			more++
		}
	}
	return pairs, more + rm
}

// sweepParallel is the number of occupants from which the sweep runs in
// two halves of time.
const sweepParallel = 100_000

// sweepPart sweeps the starts st (span indices si) and the ends et (ei),
// each sorted by time and index, after inserting the spans pre into the
// set (those that overlap one inserted before them stay out, unreported:
// the sweep of the steps before them reports their pair).
func sweepPart(spans []span, st []int64, si []int, et []int64, ei []int, pre []int, limit, sliceMax int) (pairs []conflict, more int) {
	live := sweepSet{max: sliceMax}
	for _, i := range pre {
		live.add(sweepEntry{sweepKey{spans[i].Lo, i}, spans[i].Size})
	}
	// The starts' bytes and the ends' first bytes in the sweep's order,
	// each gathered in one pass: the sweep then reads them in order, not
	// spans at random, and a gather's loads do not wait for each other
	// (a third of the sweep's time on a million buffers went to those
	// looks). The ends after the last start are never swept.
	if len(st) > 0 {
		e, _ := slices.BinarySearch(et, st[len(st)-1]+1)
		et, ei = et[:e], ei[:e]
	}
	slo, ssize, elo := make([]int64, len(si)), make([]int64, len(si)), make([]int64, len(ei))
	for n, i := range si {
		slo[n], ssize[n] = spans[i].Lo, spans[i].Size
	}
	for n, i := range ei {
		elo[n] = spans[i].Lo
	}
	j := 0 // the next end; at equal times ends come first (half-open)
	for n, t := range st {
		for ; j < len(et) && et[j] <= t; j++ {
			live.remove(sweepKey{elo[j], ei[j]}) // nothing, for one kept out
		}
		partner := live.add(sweepEntry{sweepKey{slo[n], si[n]}, ssize[n]})
		if partner < 0 {
			continue
		}
		if len(pairs) < limit {
			pairs = append(pairs, conflict{partner, si[n]})
		} else {
			more++
		}
	}
	return pairs, more
}
