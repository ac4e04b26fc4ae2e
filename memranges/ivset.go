package memranges

// An ivset is a set of bytes kept as sorted, disjoint, non-touching
// half-open intervals [off[i], end[i]): off and end are both strictly
// increasing and end[i] < off[i+1].
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
// for an overlap with q: one binary search answers the query.
//
// Costs, for n intervals in the set: overlaps is O(log n). add is O(log n)
// to locate the insertion point, plus a memmove of the entries after it
// (none when the new range lies past the last, the common case of a stream
// that writes the arena in address order, or when it merges into a
// neighbour); the k intervals it absorbs leave the set for good, so their
// removal is paid for by their insertion.
//
// Why not gods: a gods red-black tree (off -> end, commit 1b2b3e2 on main) won on
// the synthetic 100,000-dispatch streams (BenchmarkPlaceBarriersWide 9.0 ->
// 6.3 ms, TrackerWide/shuffled 6.6 -> 5.7 ms: a tree insert beats the
// memmove of a random insertion into hundreds of intervals) but lost on
// every planned testdata stream, the real workload (TrackerTestdata/planner
// +7% to +53%, e.g. transformer_block 771 -> 1091 ns, wide_diamond 1697 ->
// 2603 ns): a reset drops the tree's nodes and the next group allocates
// them again, where the slices keep their storage. Median of 5,
// interleaved, load 4-8; docs/BENCHMARKS.md.
//
//	scripts/benchab.sh 6484e31 1b2b3e2 ./memranges 'Tracker|PlaceBarriers' 5 1s
type ivset struct {
	off []int64
	end []int64
}

// firstEndAfter returns the smallest i with end[i] > x, or len(end). The
// loop is the branch-free form of binary search: the comparisons of a lookup
// are unpredictable, so it turns each into a mask. (x - e) >> 63 is all ones
// when e > x and zero otherwise; it cannot overflow, since x >= -1 and
// every e is in [0, MaxInt64].
func (s *ivset) firstEndAfter(x int64) int {
	e := s.end
	n := len(e)
	if n == 0 {
		return 0
	}
	base := 0
	for n > 1 {
		half := n >> 1
		base += half &^ int((x-e[base+half])>>63)
		n -= half
	}
	if e[base] <= x {
		base++
	}
	return base
}

// overlaps reports whether the non-empty range [lo,hi) overlaps the set
// under mode m (see Mode.overlaps).
func (s *ivset) overlaps(m Mode, lo, hi int64) bool {
	n := len(s.end)
	if n == 0 || lo >= s.end[n-1] || hi < s.off[0] {
		return false // past the last interval, or before the first
	}
	i := s.firstEndAfter(lo)
	if m == GGML {
		return s.off[i] <= hi
	}
	return s.off[i] < hi
}

// add inserts the non-empty range [lo,hi), merging it with every interval
// it overlaps or touches.
func (s *ivset) add(lo, hi int64) {
	n := len(s.end)
	// Fast paths: empty set, past the last interval, touching the last.
	if n == 0 || lo > s.end[n-1] {
		s.off = append(s.off, lo)
		s.end = append(s.end, hi)
		return
	}
	if lo >= s.off[n-1] {
		s.end[n-1] = max(s.end[n-1], hi)
		return
	}
	// First interval that overlaps or touches [lo,hi): end >= lo.
	i := s.firstEndAfter(lo - 1)
	// Last such interval: off <= hi. Intervals i.. have increasing off.
	j := i
	for j < n && s.off[j] <= hi {
		j++
	}
	if j == i { // no neighbour: insert a fresh interval at i
		s.off = append(s.off, 0)
		s.end = append(s.end, 0)
		copy(s.off[i+1:], s.off[i:n])
		copy(s.end[i+1:], s.end[i:n])
		s.off[i], s.end[i] = lo, hi
		return
	}
	// Merge intervals i..j-1 with [lo,hi) into slot i, drop the rest.
	s.off[i] = min(s.off[i], lo)
	s.end[i] = max(s.end[j-1], hi)
	if j-i > 1 {
		copy(s.off[i+1:], s.off[j:n])
		copy(s.end[i+1:], s.end[j:n])
		s.off = s.off[:n-(j-i-1)]
		s.end = s.end[:n-(j-i-1)]
	}
}

// reset empties the set, keeping its storage.
func (s *ivset) reset() {
	s.off = s.off[:0]
	s.end = s.end[:0]
}

// len returns the number of disjoint intervals.
func (s *ivset) len() int { return len(s.end) }
