package memranges

// A pageset is a coarse filter in front of an interval set: one bit per
// 2^shift-byte page of a buffer, set for every page a recorded range
// touches. A query whose pages are all clear cannot overlap any recorded
// range, whatever the set holds, so it is answered without a search; a
// query that meets a set bit falls through to the exact set. The filter
// therefore never changes an answer, only its cost.
//
//	shift 10 (1 KiB pages); recorded write [4096,8096)
//	pages   0 1 2 3 4 5 6 7 8 ...
//	bits    . . . . 1 1 1 1 . ...
//	query [0,4000): pages 0-3 clear, no overlap, no search
//	query [8000,8200): page 7 set, ask the exact set (it overlaps)
//
// Marking and testing cost one word operation per 64 pages, at most
// maxMarkWords: a wider range, or one past the bitmap's capacity,
// saturates the filter instead (every query falls through) until reset,
// and a wider query falls through at once. Reset clears only the words it
// set.
type pageset struct {
	shift     uint
	words     []uint64
	used      []int32 // indices of the non-zero words
	saturated bool
}

const (
	// defaultPageShift is the tracker's page size, 1 KiB.
	defaultPageShift = 10
	// maxMarkWords bounds the words one range may mark (8192 pages).
	maxMarkWords = 128
	// maxPageWords bounds the bitmap (2^22 pages, 512 KiB of words).
	maxPageWords = 1 << 16
)

// mark records the non-empty range [lo,hi).
func (p *pageset) mark(lo, hi int64) {
	if p.saturated {
		return
	}
	first, last := lo>>p.shift, (hi-1)>>p.shift
	w0, w1 := first>>6, last>>6
	if w1-w0 >= maxMarkWords || w1 >= maxPageWords {
		p.saturated = true
		return
	}
	if int(w1) >= len(p.words) {
		n := max(int(w1)+1, 2*len(p.words))
		p.words = append(p.words, make([]uint64, min(n, maxPageWords)-len(p.words))...)
	}
	for w := w0; w <= w1; w++ {
		m := ^uint64(0)
		if w == w0 {
			m &= ^uint64(0) << uint(first&63)
		}
		if w == w1 {
			m &= ^uint64(0) >> uint(63-last&63)
		}
		if p.words[w] == 0 {
			p.used = append(p.used, int32(w))
		}
		p.words[w] |= m
	}
}

// maybe reports whether any page of the closed byte range [lo, last] is
// marked (or the filter is saturated).
func (p *pageset) maybe(lo, last int64) bool {
	if p.saturated {
		return true
	}
	if len(p.used) == 0 {
		return false
	}
	first, lastPage := lo>>p.shift, last>>p.shift
	w0, w1 := first>>6, lastPage>>6
	if w0 >= int64(len(p.words)) {
		return false
	}
	if w0 == w1 { // the common case: one word
		return p.words[w0]&(^uint64(0)<<uint(first&63))&(^uint64(0)>>uint(63-lastPage&63)) != 0
	}
	if w1-w0 >= maxMarkWords {
		return true // too wide to test cheaply: let the exact set answer
	}
	if w1 >= int64(len(p.words)) {
		w1, lastPage = int64(len(p.words))-1, int64(len(p.words))*64-1
	}
	for w := w0; w <= w1; w++ {
		m := ^uint64(0)
		if w == w0 {
			m &= ^uint64(0) << uint(first&63)
		}
		if w == w1 {
			m &= ^uint64(0) >> uint(63-lastPage&63)
		}
		if p.words[w]&m != 0 {
			return true
		}
	}
	return false
}

// reset clears the marked words and the saturation.
func (p *pageset) reset() {
	for _, w := range p.used {
		p.words[w] = 0
	}
	p.used = p.used[:0]
	p.saturated = false
}
