package planner

import (
	"cmp"
	"slices"

	"github.com/emirpasic/gods/v2/trees/redblacktree"
)

// The disjointness sweep
//
// Both verifiers (VerifyPlacement over buffers, Plan.Verify over the
// windows it re-derives from the graph) ask one question: do two occupants
// live at a common step share a byte? The sweep answers it in O(n log n).
//
// Events are visited by time, lifespan ends before starts at equal times
// (lifespans are half-open), starts in index order. The live occupants are
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
	type event struct {
		t     int64
		start bool
		i     int
	}
	evs := make([]event, 0, 2*len(spans))
	for i := range spans {
		if occupiesSpan(&spans[i]) {
			evs = append(evs, event{spans[i].Start, true, i}, event{spans[i].End, false, i})
		}
	}
	slices.SortFunc(evs, func(a, b event) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		if a.start != b.start {
			if a.start {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.i, b.i)
	})
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
	for _, e := range evs {
		k := key{spans[e.i].Lo, e.i}
		if !e.start {
			if !out[e.i] {
				live.Remove(k)
			}
			continue
		}
		partner := -1
		if n, ok := live.Floor(k); ok && spansOverlap(&spans[n.Key.i], &spans[e.i]) {
			partner = n.Key.i
		} else if n, ok := live.Ceiling(k); ok && spansOverlap(&spans[n.Key.i], &spans[e.i]) {
			partner = n.Key.i
		}
		if partner < 0 {
			live.Put(k, struct{}{})
			continue
		}
		out[e.i] = true
		if len(pairs) < limit {
			pairs = append(pairs, conflict{partner, e.i})
		} else {
			more++
		}
	}
	return pairs, more
}
