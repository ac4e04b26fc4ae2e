package memranges

import "github.com/emirpasic/gods/v2/trees/redblacktree"

// An ivset is a set of bytes kept as sorted, disjoint, non-touching
// half-open intervals [off, end): a gods red-black tree maps each
// interval's off to its end.
//
// The tracker only ever asks "does any recorded range of this kind overlap
// the new one?", never "which one?", so the set may forget where one
// recorded range stops and the next begins. Add merges a new interval with
// every interval it overlaps or touches:
//
//	recorded  [0,64)        [128,192)      [256,320)
//	add               [64,130)
//	result    [0,192)                      [256,320)
//
// Merging keeps the union of bytes unchanged, and both overlap tests of
// [Mode] depend only on that union (for non-empty ranges), so the answers
// are the same as for the unmerged list. Because intervals are disjoint and
// sorted, the first interval that ends after q.Off is the only candidate
// for an overlap with q: one tree search answers the query.
//
// Costs, for n intervals in the set: overlaps is O(log n); add is O(log n)
// plus O(log n) per interval it absorbs, and those leave the set for good.
type ivset struct {
	t *redblacktree.Tree[int64, int64]
}

type ivnode = redblacktree.Node[int64, int64]

// firstEndAfter returns the interval with the smallest off whose end is
// above x, or nil.
func (s *ivset) firstEndAfter(x int64) *ivnode {
	if f, ok := s.t.Floor(x); ok && f.Value > x {
		return f
	}
	c, _ := s.t.Ceiling(x)
	return c
}

// overlaps reports whether the non-empty range [lo,hi) overlaps the set
// under mode m (see Mode.overlaps).
func (s *ivset) overlaps(m Mode, lo, hi int64) bool {
	if s.t == nil || s.t.Empty() {
		return false
	}
	n := s.firstEndAfter(lo)
	if n == nil {
		return false
	}
	if m == GGML {
		return n.Key <= hi
	}
	return n.Key < hi
}

// add inserts the non-empty range [lo,hi), merging it with every interval
// it overlaps or touches.
func (s *ivset) add(lo, hi int64) {
	if s.t == nil {
		s.t = redblacktree.New[int64, int64]()
	}
	// Fast path: past the last interval.
	if r := s.t.Right(); r == nil || lo > r.Value {
		s.t.Put(lo, hi)
		return
	}
	// Intervals that overlap or touch [lo,hi): end >= lo and off <= hi.
	n := s.firstEndAfter(lo - 1)
	var gone []int64
	for it := s.t.IteratorAt(n); n != nil && n.Key <= hi; n = it.Node() {
		lo, hi = min(lo, n.Key), max(hi, n.Value)
		gone = append(gone, n.Key)
		if !it.Next() {
			break
		}
	}
	for _, k := range gone {
		s.t.Remove(k)
	}
	s.t.Put(lo, hi)
}

// reset empties the set.
func (s *ivset) reset() {
	if s.t != nil {
		s.t.Clear()
	}
}

// len returns the number of disjoint intervals.
func (s *ivset) len() int {
	if s.t == nil {
		return 0
	}
	return s.t.Size()
}

// spans returns the intervals' offs and ends, in order (for tests and
// messages).
func (s *ivset) spans() (off, end []int64) {
	if s.t == nil {
		return nil, nil
	}
	for it := s.t.Iterator(); it.Next(); {
		off, end = append(off, it.Key()), append(end, it.Value())
	}
	return off, end
}
