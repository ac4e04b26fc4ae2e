package planner

// The peak order: place the buffers of the fullest step first, as a stack.
//
// At the step where the live total equals the lower bound, an arena of LB
// bytes has no room to spare: the buffers live there must form one
// gap-free stack. Size order (best-fit, largest first) does not know this:
// on the XLA trace S_1 it places the big short buffers first, and the
// long-lived activations that cross the peak then land in whatever holes
// are left, 1.58% above LB. The peak order builds the stack on purpose.
// It repeatedly takes the step with the largest total of buffers not yet
// ordered and appends those buffers, longest lifespan first (ties by size
// order), then removes them from the totals. Best-fit then places the
// first group as a stack, the longest-lived at the bottom, so the bytes
// the group frees on either side of the step are near the top, where the
// next groups (the fullest remaining steps) find them contiguous.
//
// Worked example, four buffers; the fullest step is 2 (a + b = 6 = LB):
//
//	a [1,3) 3   b [2,4) 3   c [3,6) 2   d [4,5) 3
//
// Round 1 takes step 2: a and b (equal lifespans; a starts first) stack at
// 0 and 3. Round 2 takes step 4 (c + d = 5): c (longer) drops below b
// into the bytes [0, 3) that a has freed, at 0, and d goes on c at 2.
// Arena 6 = LB. Size order places a, b, then d at 0 (nothing placed is
// live at step 4), so c, which meets both b and d, goes on top at 6: 8.
//
// On S_1 the order gives 1.0026 x LB (size order: 1.0158); it is one more
// starting point for improve.go, not a portfolio member: on pangu_2.6B it
// loses to first-fit by size.

import (
	"cmp"
	"slices"
)

// peakOrder returns the buffer indices in peak order.
func peakOrder(bufs []Buffer) []int {
	n := len(bufs)
	pts := make([]int64, 0, 2*n)
	for _, b := range bufs {
		pts = append(pts, b.Start, b.End)
	}
	slices.Sort(pts)
	pts = slices.Compact(pts)
	nseg := max(len(pts)-1, 1)
	seg := func(t int64) int {
		i, _ := slices.BinarySearch(pts, t)
		return i
	}
	lo, hi := make([]int, n), make([]int, n)
	tr := newMaxTree(nseg)
	for i, b := range bufs {
		lo[i], hi[i] = seg(b.Start), seg(b.End)
		tr.add(lo[i], hi[i], b.Size)
	}
	// The buffers by start, in a tree that finds those live at a step
	// (start <= s < end) in O(log n) each and removes them as it goes.
	byLo := make([]int, n)
	for i := range byLo {
		byLo[i] = i
	}
	slices.SortFunc(byLo, func(a, b int) int {
		if c := cmp.Compare(lo[a], lo[b]); c != 0 {
			return c
		}
		return a - b
	})
	live := newStabTree(byLo, lo, hi)
	order := make([]int, 0, n)
	for len(order) < n {
		if tr.max() <= 0 {
			// Only empty buffers are left: their order does not matter.
			order = live.rest(order)
			break
		}
		s := tr.argmax()
		k := len(order)
		order = live.take(s, order)
		grp := order[k:]
		for _, i := range grp {
			tr.add(lo[i], hi[i], -bufs[i].Size)
		}
		sortLongestFirst(bufs, grp)
	}
	return order
}

// stabTree holds buffer indices sorted by their first segment, with a
// max tree of their end segments, so that take finds the buffers live at
// segment s (lo <= s < hi) without scanning those that end earlier: a
// subtree whose largest end is at or below s holds none.
type stabTree struct {
	idx  []int   // buffer indices by lo
	lo   []int   // first segment of idx[k]
	size int     // leaves, a power of two
	hi   []int32 // max tree of end segments; -1 for taken or padding
}

func newStabTree(byLo []int, lo, hi []int) *stabTree {
	size := 1
	for size < len(byLo) {
		size *= 2
	}
	t := &stabTree{idx: byLo, lo: make([]int, len(byLo)), size: size, hi: make([]int32, 2*size)}
	for p := range t.hi {
		t.hi[p] = -1
	}
	for k, i := range byLo {
		t.lo[k] = lo[i]
		t.hi[size+k] = int32(hi[i])
	}
	for v := size - 1; v >= 1; v-- {
		t.hi[v] = max(t.hi[2*v], t.hi[2*v+1])
	}
	return t
}

// take appends to out, in start order, every buffer not yet taken that is
// live at segment s, and removes them.
func (t *stabTree) take(s int, out []int) []int {
	p, _ := slices.BinarySearch(t.lo, s+1) // leaves [0, p) start at or before s
	return t.collect(1, 0, t.size, p, int32(s), out)
}

func (t *stabTree) collect(v, vl, vr, p int, s int32, out []int) []int {
	if vl >= p || t.hi[v] <= s {
		return out
	}
	if v >= t.size {
		out = append(out, t.idx[v-t.size])
		t.hi[v] = -1
		return out
	}
	m := (vl + vr) / 2
	out = t.collect(2*v, vl, m, p, s, out)
	out = t.collect(2*v+1, m, vr, p, s, out)
	t.hi[v] = max(t.hi[2*v], t.hi[2*v+1])
	return out
}

// rest appends every buffer not yet taken, in start order.
func (t *stabTree) rest(out []int) []int {
	for k, i := range t.idx {
		if t.hi[t.size+k] >= 0 {
			out = append(out, i)
		}
	}
	return out
}

// maxTree is a segment tree over [0, n) with range add and a query for the
// maximum and its lowest position.
type maxTree struct {
	n    int
	mx   []int64
	pend []int64
}

func newMaxTree(n int) *maxTree {
	size := 1
	for size < n {
		size *= 2
	}
	t := &maxTree{n: size, mx: make([]int64, 2*size), pend: make([]int64, 2*size)}
	// Positions beyond n must never win.
	for p := n; p < size; p++ {
		t.mx[size+p] = -1 << 62
	}
	for v := size - 1; v >= 1; v-- {
		t.mx[v] = max(t.mx[2*v], t.mx[2*v+1])
	}
	return t
}

// add adds d to positions [l, r).
func (t *maxTree) add(l, r int, d int64) { t.update(1, 0, t.n, l, r, d) }

func (t *maxTree) update(v, vl, vr, l, r int, d int64) {
	if r <= vl || vr <= l {
		return
	}
	if l <= vl && vr <= r {
		t.mx[v] += d
		t.pend[v] += d
		return
	}
	m := (vl + vr) / 2
	t.update(2*v, vl, m, l, r, d)
	t.update(2*v+1, m, vr, l, r, d)
	t.mx[v] = max(t.mx[2*v], t.mx[2*v+1]) + t.pend[v]
}

func (t *maxTree) max() int64 { return t.mx[1] }

// argmax returns the lowest position holding the maximum.
func (t *maxTree) argmax() int {
	v := 1
	for v < t.n {
		// The pending add of v applies to both children alike.
		if t.mx[2*v] >= t.mx[2*v+1] {
			v = 2 * v
		} else {
			v = 2*v + 1
		}
	}
	return v - t.n
}

// sortLongestFirst sorts idx (indices into bufs) longest lifespan first,
// ties by size order, then by content, then by index: the order the peak
// order and the peak fill stack a group in.
func sortLongestFirst(bufs []Buffer, idx []int) {
	slices.SortFunc(idx, func(i, j int) int {
		if c := byLifespan(&bufs[i], &bufs[j]); c != 0 {
			return c
		}
		if c := byContent(&bufs[i], &bufs[j]); c != 0 {
			return c
		}
		return cmp.Compare(i, j)
	})
}
