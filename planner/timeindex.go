package planner

import (
	"math"
	"math/bits"
	"slices"
)

// timeIndex answers the placer's one question: which byte ranges are taken,
// at some step of [start, end), by the buffers placed so far?
//
// It is a segment tree over the compressed time axis: one leaf per distinct
// Start value. Two half-open lifespans intersect exactly when one contains
// the other's start, so a lifespan is represented by the starts it contains
// and no other time point matters. A placed buffer is recorded at
// its canonical nodes, the O(log T) maximal tree nodes whose slot ranges tile
// its lifespan. Every node keeps two growing unions of byte ranges:
//
//	cover(N): buffers whose canonical node is N (they live through all of N);
//	sub(N):   buffers with a canonical node anywhere in N's subtree.
//
// Two segment-tree nodes either nest or are disjoint, so a buffer meets the
// slots of a query node Q exactly when one of its canonical nodes is inside
// Q's subtree (it is in sub(Q)) or is a strict ancestor of Q (it is in cover
// of that ancestor). The taken memory over [start, end) is therefore the
// union of sub(Q) over the query's canonical nodes and cover(A) over their
// strict ancestors: O(log T) sets, each a short list of merged spans, instead
// of every placed buffer that overlaps in time. Recording a buffer touches
// its canonical nodes and their ancestors, O(log T) sets.
//
// Worked example: slots 0..3 (leaves 4..7 of a 4-leaf tree). Buffer A lives
// in slots [0, 4) at bytes [0, 8): canonical node 1 (the root), so cover(1)
// and sub(1) get [0, 8). Buffer B lives in [2, 3) at bytes [8, 12): canonical
// leaf 6; sub(6), sub(3), sub(1) get [8, 12). A query for [0, 2) has the one
// canonical node 2: sub(2) is empty and the strict ancestor 1 has cover
// [0, 8), so bytes [0, 8) are taken and [8, inf) is free: B does not meet
// slots 0..1, and the index never looked at it.
type timeIndex struct {
	times []int64 // sorted distinct time coordinates
	// dense[d] is slot(t0+d) for 0 < d < len(dense), when the starts are
	// dense enough on their range for a table to be small (slotTable).
	t0    int64
	dense []int32
	size  int // number of leaves, a power of two
	// cover[n] is node n's cover set, sub[n] (n < size) its sub set; a
	// leaf's sub set is its cover set.
	cover []spanSet
	sub   []spanSet
	// subFrom is the lowest node whose sub set is kept: size >> cap, where
	// 2^cap slots is the widest canonical node of the buffers the index
	// was made for. Only a query wider than all of them meets a canonical
	// node below subFrom; collect then takes that node's sub set as its
	// parts (subSets). On short-lived buffers this saves the largest sets'
	// upkeep: a million random rows (1-100 steps) keep sub sets up to 64
	// slots in pieces of 4,096, not up to the root.
	subFrom int
	st      spanStore // the sets' spans
	stamp   []uint32
	clock   uint32

	nodes []int   // scratch: canonical nodes of one range
	sets  []spans // scratch: the sets of one query
	cur   []int   // scratch: one cursor per query set
	next  []int64 // scratch: start of each set's span at its cursor
}

func newTimeIndex(bufs []Buffer) *timeIndex { return newTimeIndexOf(bufs, nil) }

// newTimeIndexOf is newTimeIndex over the buffers idx of bufs (nil: all).
func newTimeIndexOf(bufs []Buffer, idx []int) *timeIndex {
	var times []int64
	if idx == nil {
		times = make([]int64, 0, len(bufs))
		for i := range bufs {
			times = append(times, bufs[i].Start)
		}
	} else {
		times = make([]int64, 0, len(idx))
		for _, i := range idx {
			times = append(times, bufs[i].Start)
		}
	}
	if len(times) >= radixMin {
		radixSort[int64, struct{}](times, nil)
	} else {
		slices.Sort(times)
	}
	k := 0
	for i, t := range times {
		if i == 0 || t != times[k-1] {
			times[k] = t
			k++
		}
	}
	times = slices.Clone(times[:k]) // the distinct starts only
	t0, dense := slotTable(times)
	size := 1
	for size < len(times) {
		size <<= 1
	}
	ix := &timeIndex{
		times: times,
		t0:    t0,
		dense: dense,
		size:  size,
		cover: make([]spanSet, 2*size),
		sub:   make([]spanSet, size),
		stamp: make([]uint32, 2*size),
	}
	// The widest buffer, in slots, bounds the level of its canonical nodes.
	wide := 1
	widen := func(b *Buffer) { wide = max(wide, ix.slot(b.End)-ix.slot(b.Start)) }
	if idx == nil {
		for i := range bufs {
			widen(&bufs[i])
		}
	} else {
		for _, i := range idx {
			widen(&bufs[i])
		}
	}
	ix.subFrom = max(size>>(bits.Len(uint(wide))-1), 1)
	return ix
}

// slotTable returns slot's table for the sorted distinct starts times:
// entry d is the number of starts below times[0]+d, for d up to the last
// start. It returns nil where that range is more than slotTableSpan
// times the number of starts (sparse time coordinates: the binary search
// then), or there are fewer than two starts.
func slotTable(times []int64) (int64, []int32) {
	if len(times) < 2 || len(times) > math.MaxInt32 {
		return 0, nil
	}
	t0 := times[0]
	span := times[len(times)-1] - t0 // negative when it overflows
	if span < 0 || span/slotTableSpan >= int64(len(times)) {
		return 0, nil
	}
	dense := make([]int32, span+1)
	k := int32(0)
	for d := range dense {
		for times[k] < t0+int64(d) {
			k++
		}
		dense[d] = k
	}
	return t0, dense
}

// slotTableSpan bounds slotTable's range, per start: a table costs at
// most 4 bytes times this a start, on top of the 8 of the start itself.
const slotTableSpan = 4

// slot maps a time coordinate to its index on the compressed axis: the
// number of starts below t. A table answers where the starts are dense
// (slotTable); a binary search elsewhere.
func (ix *timeIndex) slot(t int64) int {
	if ix.dense != nil {
		switch {
		case t <= ix.t0:
			return 0
		case t > ix.times[len(ix.times)-1]:
			return len(ix.times)
		default:
			return int(ix.dense[t-ix.t0])
		}
	}
	i, j := 0, len(ix.times)
	for i < j {
		h := int(uint(i+j) >> 1)
		if ix.times[h] < t {
			i = h + 1
		} else {
			j = h
		}
	}
	return i
}

// canonical fills ix.nodes with the canonical nodes of [start, end).
func (ix *timeIndex) canonical(start, end int64) {
	ix.nodes = ix.nodes[:0]
	l, r := ix.slot(start)+ix.size, ix.slot(end)+ix.size
	for l < r {
		if l&1 == 1 {
			ix.nodes = append(ix.nodes, l)
			l++
		}
		if r&1 == 1 {
			r--
			ix.nodes = append(ix.nodes, r)
		}
		l >>= 1
		r >>= 1
	}
}

// reset empties the index for a new placement of the buffers it was made
// for, keeping its memory.
func (ix *timeIndex) reset() {
	clear(ix.cover)
	clear(ix.sub)
	ix.st.reset()
}

func (ix *timeIndex) tick() {
	ix.clock++
	if ix.clock == 0 {
		clear(ix.stamp)
		ix.clock = 1
	}
}

// add records bytes [lo, hi) as taken during [start, end).
func (ix *timeIndex) add(start, end, lo, hi int64) {
	if lo >= hi || start >= end {
		return
	}
	ix.canonical(start, end)
	ix.record(lo, hi)
}

// record is add for the range whose canonical nodes ix.nodes holds (left
// there by the query that placed the buffer).
func (ix *timeIndex) record(lo, hi int64) {
	ix.tick()
	for _, c := range ix.nodes {
		held := ix.st.insert(&ix.cover[c], lo, hi)
		n := c
		if c >= ix.size {
			// A leaf's subtree is the leaf: sub and cover are one set.
			ix.stamp[c] = ix.clock
			if held {
				for m := c >> 1; m >= 1 && ix.stamp[m] != ix.clock; m >>= 1 {
					ix.stamp[m] = ix.clock
				}
				continue
			}
			n = c >> 1
		}
		// sub(parent) contains sub(child), so once an ancestor already
		// holds [lo, hi) every ancestor above it does too. Sub sets below
		// subFrom are not kept.
		for ; n >= ix.subFrom && ix.stamp[n] != ix.clock; n >>= 1 {
			ix.stamp[n] = ix.clock
			if ix.st.insert(&ix.sub[n], lo, hi) {
				for m := n >> 1; m >= 1 && ix.stamp[m] != ix.clock; m >>= 1 {
					ix.stamp[m] = ix.clock
				}
				break
			}
		}
	}
}

// collect fills ix.sets with the non-empty sets whose union is the memory
// taken at some step of [start, end): views of the store, valid until the
// next record.
func (ix *timeIndex) collect(start, end int64) {
	ix.canonical(start, end)
	ix.tick()
	ix.sets = ix.sets[:0]
	for _, c := range ix.nodes {
		ix.stamp[c] = ix.clock
		switch {
		case c >= ix.size:
			ix.addSet(&ix.cover[c])
		case c >= ix.subFrom:
			ix.addSet(&ix.sub[c])
		default:
			ix.subSets(c)
		}
	}
	for _, c := range ix.nodes {
		for n := c >> 1; n >= 1 && ix.stamp[n] != ix.clock; n >>= 1 {
			ix.stamp[n] = ix.clock
			ix.addSet(&ix.cover[n])
		}
	}
	ix.cur = ix.cur[:0]
	for range ix.sets {
		ix.cur = append(ix.cur, 0)
	}
}

// addSet adds s to the query's sets unless it is empty.
func (ix *timeIndex) addSet(s *spanSet) {
	if s.n > 0 {
		ix.sets = append(ix.sets, ix.st.view(s))
	}
}

// subSets adds the sets whose union is sub(c) for a node c whose sub set
// is not kept (c < subFrom): the cover sets of c's subtree down to the
// level of subFrom, and the sub sets (cover sets, for leaves) of the nodes
// at that level.
func (ix *timeIndex) subSets(c int) {
	for lo, hi := c, c+1; ; lo, hi = 2*lo, 2*hi {
		if lo >= ix.subFrom {
			for m := lo; m < hi; m++ {
				if m >= ix.size {
					ix.addSet(&ix.cover[m])
				} else {
					ix.addSet(&ix.sub[m])
				}
			}
			return
		}
		for m := lo; m < hi; m++ {
			ix.addSet(&ix.cover[m])
		}
	}
}

// firstFree returns the lowest offset, a multiple of a, at which size > 0
// bytes meet no span of the sets that collect found: first-fit's answer,
// the start of the first free gap that holds the buffer, without listing
// the gaps before it (the tests' gapFirstFit lists them). The sets take
// turns (a leapfrog): each moves its cursor to its first span ending
// above x, and a span that starts below x+size moves x past it; x is free
// once every set in a row has left it where it was. Each step moves a
// cursor or x forward, so a query costs the spans passed plus one look
// per set, where listing gaps costs a look at every set per gap (many on
// a fragmented arena).
//
// A set's turn looks at its spans only when the start of its span at the
// cursor (kept in ix.next, a small array the query keeps in cache) lies
// below x+size: the span at the cursor is the set's first one ending
// above x when the turn that set it ran, so when it starts at or above
// x+size nothing of that set meets [x, x+size). On a million random rows
// (internal/hostile) a query looks at 14 sets 25 times on average; most
// of those looks are settled in ix.next without touching the spans.
//
// Example: sets {[0, 4), [10, 12)} and {[6, 8)}, size 3: x=0 meets [0, 4)
// and moves to 4; the second set's [6, 8) starts below 7: x moves to 8;
// the first set's [10, 12) starts below 11: x moves to 12, which both
// sets then leave: 12.
func (ix *timeIndex) firstFree(size, a int64) int64 {
	ix.loadNext()
	return ix.leap(alignUp(0, a), size, a)
}

// loadNext sets ix.next to the start of each set's span at its cursor.
func (ix *timeIndex) loadNext() {
	next := ix.next[:0]
	for i, s := range ix.sets {
		next = append(next, s.startAt(ix.cur[i]))
	}
	ix.next = next
}

// leap is firstFree's leapfrog from x, a multiple of a: the lowest such
// multiple at or above x where size > 0 bytes meet no span of ix.sets. Every
// span before a set's cursor (ix.cur) ends at or below x, and ix.next holds
// the start of the span at each cursor; both stay so for the answer.
func (ix *timeIndex) leap(x, size, a int64) int64 {
	n := len(ix.sets)
	next := ix.next
	end := satAdd(x, size)
	for i, held := 0, 0; held < n; {
		if next[i] < end {
			s := ix.sets[i]
			j := s.skip(x, ix.cur[i])
			if j < s.len() && s.lo(j) < end {
				x = alignUp(s.hi(j), a)
				end = satAdd(x, size)
				ix.cur[i], next[i] = j+1, s.startAt(j+1)
				held = 0
				continue
			}
			ix.cur[i], next[i] = j, s.startAt(j)
		}
		held++
		if i++; i == n {
			i = 0
		}
	}
	return x
}

// bestFree returns best-fit's answer for size > 0 bytes at alignment a
// over the sets that collect found: the aligned start of the smallest
// free gap that holds them (the lowest such gap on a tie; the top gap,
// which never ends, when no other holds them). It is the gap listing's
// answer (the tests' gapBestFit), found by leaps: leap skips the gaps too
// small for the buffer at the cost of the spans it passes, and only a gap
// that holds the buffer costs a look at every set, to find where it
// begins and ends. On a fragmented arena most gaps are too small.
//
// When leap returns p, every set has had its turn at p: the span at each
// cursor ends above p and, as it leaves p free, starts at or above
// p+size, and every span before it ends at or below p. So the gap at p
// runs from the highest end of the spans just before the cursors (0 if
// none) to the lowest start at them (ix.next). p is that gap's aligned
// start: a leap from the end of the previous gap passes no gap that
// holds the buffer.
func (ix *timeIndex) bestFree(size, a int64) int64 {
	ix.loadNext()
	best, bestGap := int64(-1), int64(math.MaxInt64)
	for x := alignUp(0, a); ; {
		p := ix.leap(x, size, a)
		lo, hi := int64(0), int64(math.MaxInt64)
		for i, s := range ix.sets {
			if j := ix.cur[i]; j > 0 {
				lo = max(lo, s.hi(j-1))
			}
			hi = min(hi, ix.next[i])
		}
		if hi == math.MaxInt64 {
			if best < 0 {
				best = p
			}
			return best
		}
		if g := hi - lo; g < bestGap {
			best, bestGap = p, g
			if g <= size {
				return best // a gap no larger than the buffer cannot be beaten
			}
		}
		x = alignUp(hi, a)
	}
}
