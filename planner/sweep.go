package planner

import (
	"cmp"
	"slices"
	"sync"

	"github.com/emirpasic/gods/v2/trees/redblacktree"
)

// The disjointness sweep
//
// Both verifiers (VerifyPlacement over buffers, Plan.Verify over the
// windows it re-derives from the graph) ask one question: do two occupants
// live at a common step share a byte? The sweep answers it in O(n log n).
//
// Events are visited by time, lifespan ends before starts at equal times
// (lifespans are half-open), starts in index order (radixSort's stable
// passes from radixMin occupants, a comparison sort below). The live occupants are
// kept in a balanced tree ordered by (first byte, index), and only
// occupants that conflict with nothing are ever inserted, so the tree's
// occupants are disjoint in memory. Then a starting occupant X overlaps a
// tree member exactly when it overlaps one of its two neighbours in the
// tree's order: a member I with I.lo <= X.lo < I.hi is the last one
// starting at or below X.lo (a later one would start inside I), and a
// member with X.lo < I.lo < X.hi makes the first one above X.lo start
// inside X too. A conflicting X is reported with that neighbour and left
// out of the tree, so every occupant that overlaps an earlier one is
// reported, and there is an overlapping pair exactly when at least one is.
//
//	steps  0   1   2   3
//	A      [=======)          bytes [0, 64)
//	B          [=======)      bytes [32, 96): enters at 1, its floor A
//	                          overlaps it: reported (B, A), B stays out
//	C              [===)      bytes [64, 128): A has ended; no conflict
//
// Byte ranges are compared exactly (an unsigned difference of the starts
// against the lower occupant's size), never through a saturating sum, so
// occupants near the top of int64 cannot slip past each other.

// sortEvents sorts times t (with the span indices i alongside) by time,
// then index.
func sortEvents(t []int64, i []int) {
	type ev struct {
		t int64
		i int
	}
	evs := make([]ev, len(t))
	for k := range t {
		evs[k] = ev{t[k], i[k]}
	}
	slices.SortFunc(evs, func(a, b ev) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	for k, e := range evs {
		t[k], i[k] = e.t, e.i
	}
}

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

// spansOverlap reports whether a and b share a step and a byte.
func spansOverlap(a, b *span) bool {
	return occupiesSpan(a) && occupiesSpan(b) && a.Start < b.End && b.Start < a.End && bytesOverlap(a.Lo, a.Size, b.Lo, b.Size)
}

// conflict is a pair of span indices that overlap: Later entered the sweep
// after Earlier.
type conflict struct{ Earlier, Later int }

// sweepConflicts returns, for every span that overlaps a span admitted to
// the sweep before it, one such pair (the first limit of them) and how many
// more conflicting spans it found past the limit.
func sweepConflicts(spans []span, limit int) (pairs []conflict, more int) {
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
	if len(st) >= radixMin {
		var wg sync.WaitGroup
		wg.Go(func() { radixSort(et, ei) })
		radixSort(st, si)
		wg.Wait()
	} else {
		sortEvents(st, si)
		sortEvents(et, ei)
	}
	type key struct {
		lo int64
		i  int
	}
	live := redblacktree.NewWith[key, struct{}](func(a, b key) int {
		if c := cmp.Compare(a.lo, b.lo); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	out := make([]bool, len(spans)) // conflicting spans, kept out of the tree
	j := 0                          // the next end; at equal times ends come first (half-open)
	for n, t := range st {
		for ; j < len(et) && et[j] <= t; j++ {
			if i := ei[j]; !out[i] {
				live.Remove(key{spans[i].Lo, i})
			}
		}
		i := si[n]
		k := key{spans[i].Lo, i}
		partner := -1
		if n, ok := live.Floor(k); ok && spansOverlap(&spans[n.Key.i], &spans[i]) {
			partner = n.Key.i
		} else if n, ok := live.Ceiling(k); ok && spansOverlap(&spans[n.Key.i], &spans[i]) {
			partner = n.Key.i
		}
		if partner < 0 {
			live.Put(k, struct{}{})
			continue
		}
		out[i] = true
		if len(pairs) < limit {
			pairs = append(pairs, conflict{partner, i})
		} else {
			more++
		}
	}
	return pairs, more
}
