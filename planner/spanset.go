package planner

import (
	"math"

	"github.com/emirpasic/gods/v2/trees/redblacktree"
)

// spanSet is a growing union of half-open byte ranges [lo, hi), kept as
// sorted, disjoint, non-touching spans: inserting [4, 8) into {[0, 4), [8, 9)}
// leaves {[0, 9)}. The placer only ever adds memory to a set (placement never
// frees), so a set stays short when placements pack tightly: a thousand
// adjacent buffers are one span. The spans live in a gods red-black tree
// that maps each span's lo to its hi; a span is named by its tree node (a
// spanRef), nil past the last span.
type spanSet struct {
	t *redblacktree.Tree[int64, int64]
}

// spanRef is one span of a spanSet: Key is its lo, Value its hi.
type spanRef = *redblacktree.Node[int64, int64]

// first returns the span with the smallest lo whose hi is above x, or nil.
func (s *spanSet) first(x int64) spanRef {
	if s.t == nil {
		return nil
	}
	if f, ok := s.t.Floor(x); ok && f.Value > x {
		return f
	}
	c, _ := s.t.Ceiling(x)
	return c
}

// nextSpan returns the span after r, or nil (the in-order successor in the tree).
func nextSpan(r spanRef) spanRef {
	if r.Right != nil {
		r = r.Right
		for r.Left != nil {
			r = r.Left
		}
		return r
	}
	for r.Parent != nil {
		c := r
		r = r.Parent
		if c == r.Left {
			return r
		}
	}
	return nil
}

// insert adds [lo, hi) to the set, merging spans it overlaps or touches.
// It reports whether the set already held all of [lo, hi) (and so did not
// change).
func (s *spanSet) insert(lo, hi int64) bool {
	if lo >= hi {
		return true
	}
	if s.t == nil {
		s.t = redblacktree.New[int64, int64]()
	}
	// r: first span with hi >= lo (touching merges).
	r := s.first(lo - 1)
	if r != nil && r.Key <= lo && hi <= r.Value {
		return true
	}
	var gone []int64
	for ; r != nil && r.Key <= hi; r = nextSpan(r) {
		lo, hi = min(lo, r.Key), max(hi, r.Value)
		gone = append(gone, r.Key)
	}
	for _, k := range gone {
		s.t.Remove(k)
	}
	s.t.Put(lo, hi)
	return false
}

// startAt returns the lo of span r, or math.MaxInt64 past the end.
func startAt(r spanRef) int64 {
	if r != nil {
		return r.Key
	}
	return math.MaxInt64
}

// skip returns the first span at or after r with hi > x: r itself when it
// still ends above x (the usual case, x moves little), else a tree search.
func (s *spanSet) skip(x int64, r spanRef) spanRef {
	if r != nil && r.Value > x {
		return r
	}
	return s.first(x)
}
