package planner

import "math"

// spanSet is a growing union of half-open byte ranges [lo, hi), kept as
// sorted, disjoint, non-touching spans: inserting [4, 8) into {[0, 4), [8, 9)}
// leaves {[0, 9)}. The placer only ever adds memory to a set (placement never
// frees), so a set stays short when placements pack tightly: a thousand
// adjacent buffers are one span.
type spanSet struct {
	lo, hi []int64
}

func (s *spanSet) empty() bool { return len(s.lo) == 0 }

// search returns the index of the first span with hi > x.
func (s *spanSet) search(x int64, from int) int {
	i, j := from, len(s.hi)
	for i < j {
		h := int(uint(i+j) >> 1)
		if s.hi[h] <= x {
			i = h + 1
		} else {
			j = h
		}
	}
	return i
}

// insert adds [lo, hi) to the set, merging spans it overlaps or touches.
// It reports whether the set already held all of [lo, hi) (and so did not
// change).
func (s *spanSet) insert(lo, hi int64) bool {
	if lo >= hi {
		return true
	}
	// i: first span with hi >= lo (touching merges); j: first span with lo > hi.
	i := s.search(lo-1, 0)
	if i < len(s.lo) && s.lo[i] <= lo && hi <= s.hi[i] {
		return true
	}
	j := i
	for j < len(s.lo) && s.lo[j] <= hi {
		j++
	}
	if i == j {
		s.lo = append(s.lo, 0)
		s.hi = append(s.hi, 0)
		copy(s.lo[i+1:], s.lo[i:])
		copy(s.hi[i+1:], s.hi[i:])
		s.lo[i], s.hi[i] = lo, hi
		return false
	}
	s.lo[i] = min(s.lo[i], lo)
	s.hi[i] = max(s.hi[j-1], hi)
	if j > i+1 {
		s.lo = append(s.lo[:i+1], s.lo[j:]...)
		s.hi = append(s.hi[:i+1], s.hi[j:]...)
	}
	return false
}

// startAt returns the start of span j, or math.MaxInt64 past the end.
func (s *spanSet) startAt(j int) int64 {
	if j < len(s.lo) {
		return s.lo[j]
	}
	return math.MaxInt64
}

// skip returns the first span index at or after j with hi > x: a few linear
// steps (the usual case, x moves little), then a binary search.
func (s *spanSet) skip(x int64, j int) int {
	for k := 0; k < 4; k++ {
		if j >= len(s.hi) || s.hi[j] > x {
			return j
		}
		j++
	}
	return s.search(x, j)
}
