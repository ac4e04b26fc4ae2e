package planner

import (
	"cmp"
	"slices"

	"github.com/emirpasic/gods/v2/trees/redblacktree"
)

// sweepSet is the disjointness sweep's set of live occupants (sweep.go),
// ordered by (first byte, index), each with its size. While it is small
// it is a sorted slice: an insertion or a removal moves at most
// sweepSliceMax entries in one copy, and a search stays in a few cache
// lines. Past sweepSliceMax members it moves into a red-black tree for
// good, so a sweep with many live occupants stays O(log n) an event. On
// the synthetic million (tens of occupants live at a time) the tree's
// allocations and pointer chasing were most of the sweep's time
// (BenchmarkMillionSteps, docs/BENCHMARKS.md).
//
// Example: members of 16 bytes at 0 (index 3) and at 64 (index 5). Adding
// 8 bytes at 32 (index 7) meets neither neighbour, and goes between
// them; then 8 bytes at 12 (index 9) meets its lower neighbour, the one
// at 0, and add returns 3.
type sweepSet struct {
	max  int // slice members at most; 0: the tree from the start
	s    []sweepEntry
	tree *redblacktree.Tree[sweepKey, int64]
}

// sweepSliceMax is the sweep's sweepSet.max.
const sweepSliceMax = 256

type sweepKey struct {
	lo int64
	i  int
}

type sweepEntry struct {
	sweepKey
	size int64
}

func cmpSweepKey(a, b sweepKey) int {
	if c := cmp.Compare(a.lo, b.lo); c != 0 {
		return c
	}
	return cmp.Compare(a.i, b.i)
}

// search returns the slice position of the first member at or above k.
func (l *sweepSet) search(k sweepKey) int {
	lo, hi := 0, len(l.s)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if e := &l.s[h]; e.lo < k.lo || (e.lo == k.lo && e.i < k.i) {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo
}

// add adds the occupant e (its key not a member) unless it overlaps a
// member in bytes, and returns that member's index, or -1 when it added
// e. The members are disjoint, so only e's two neighbours in the order
// can overlap it (sweep.go).
func (l *sweepSet) add(e sweepEntry) int {
	if l.tree == nil && len(l.s) >= l.max {
		l.tree = redblacktree.NewWith[sweepKey, int64](cmpSweepKey)
		for _, m := range l.s {
			l.tree.Put(m.sweepKey, m.size)
		}
		l.s = nil
	}
	if l.tree != nil {
		if n, ok := l.tree.Floor(e.sweepKey); ok && bytesOverlap(n.Key.lo, n.Value, e.lo, e.size) {
			return n.Key.i
		}
		if n, ok := l.tree.Ceiling(e.sweepKey); ok && bytesOverlap(n.Key.lo, n.Value, e.lo, e.size) {
			return n.Key.i
		}
		l.tree.Put(e.sweepKey, e.size)
		return -1
	}
	p := l.search(e.sweepKey)
	if p > 0 && bytesOverlap(l.s[p-1].lo, l.s[p-1].size, e.lo, e.size) {
		return l.s[p-1].i
	}
	if p < len(l.s) && bytesOverlap(l.s[p].lo, l.s[p].size, e.lo, e.size) {
		return l.s[p].i
	}
	l.s = slices.Insert(l.s, p, e)
	return -1
}

// remove removes the member k, if there is one.
func (l *sweepSet) remove(k sweepKey) {
	if l.tree != nil {
		l.tree.Remove(k)
		return
	}
	if p := l.search(k); p < len(l.s) && l.s[p].sweepKey == k {
		l.s = slices.Delete(l.s, p, p+1)
	}
}
