package planner

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
)

// maxOverlapErrors caps the errors VerifyPlacement lists one by one.
const maxOverlapErrors = 1000

// VerifyPlacement checks a placement of bufs and reports every violation
// (errors.Join): a length mismatch, a negative offset, an offset that is not
// a multiple of the buffer's alignment, a Fixed buffer away from its Offset,
// and every pair of buffers that share both a step and a byte. Past
// maxOverlapErrors errors, further overlapping pairs are counted in one
// last error instead of listed, so a wildly wrong placement (every offset
// 0) costs memory in proportion to the buffers, not to the pairs.
//
// It is independent of the placers and simple: a sweep over time keeps the
// live buffers sorted by offset (anyOverlap), and only when it finds an
// overlap does a second, plainer sweep compare every pair of live buffers
// to list them all (listOverlaps). Buffers of size 0 occupy no bytes and
// never overlap.
func VerifyPlacement(bufs []Buffer, offsets []int64) error {
	if len(offsets) != len(bufs) {
		return fmt.Errorf("planner: %d offsets for %d buffers: %w", len(offsets), len(bufs), ErrLength)
	}
	var errs []error
	for i := range bufs {
		b, off := &bufs[i], offsets[i]
		if b.End <= b.Start || b.Size < 0 {
			errs = append(errs, fmt.Errorf("planner: buffer %d (id %d): lifespan [%d, %d), size %d: %w", i, b.ID, b.Start, b.End, b.Size, ErrInvalidBuffer))
		}
		if off < 0 {
			errs = append(errs, fmt.Errorf("planner: buffer %d (id %d): offset %d: %w", i, b.ID, off, ErrNegativeOffset))
		}
		if b.Align > 1 && off%b.Align != 0 {
			errs = append(errs, fmt.Errorf("planner: buffer %d (id %d): offset %d is not a multiple of %d: %w", i, b.ID, off, b.Align, ErrMisaligned))
		}
		if b.Fixed && off != b.Offset {
			errs = append(errs, fmt.Errorf("planner: buffer %d (id %d): fixed at %d, placed at %d: %w", i, b.ID, b.Offset, off, ErrFixedMoved))
		}
	}
	if anyOverlap(bufs, offsets) {
		errs = append(errs, listOverlaps(bufs, offsets, maxOverlapErrors-min(len(errs), maxOverlapErrors))...)
	}
	return joinErrors(errs)
}

// anyOverlap reports whether two buffers share a step and a byte, in
// O(n log n + n*k) for k live buffers at a step (memmove only).
//
// The sweep visits lifespan ends before starts at equal times (half-open
// lifespans) and keeps the live buffers sorted by offset. While no overlap
// has been seen the live buffers are disjoint in memory, and then a new
// buffer X overlaps some live buffer exactly when it overlaps its
// neighbour on either side in offset order: a live buffer I with
// I.lo <= X.lo < I.hi is the last one starting at or below X.lo (any later
// one would start inside I), and one with X.lo < I.lo < X.hi makes the
// first one starting above X.lo start inside X too.
func anyOverlap(bufs []Buffer, offsets []int64) bool {
	type event struct {
		t     int64
		start bool
		i     int
	}
	evs := make([]event, 0, 2*len(bufs))
	for i := range bufs {
		if occupies(&bufs[i]) {
			evs = append(evs, event{bufs[i].Start, true, i}, event{bufs[i].End, false, i})
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
	// pos finds buffer i's place among the live buffers, by (offset, index).
	pos := func(live []int, i int) int {
		k, _ := slices.BinarySearchFunc(live, i, func(j, _ int) int {
			if c := cmp.Compare(offsets[j], offsets[i]); c != 0 {
				return c
			}
			return cmp.Compare(j, i)
		})
		return k
	}
	var live []int
	for _, e := range evs {
		k := pos(live, e.i)
		if !e.start {
			live = slices.Delete(live, k, k+1)
			continue
		}
		b := &bufs[e.i]
		if k > 0 && overlaps(&bufs[live[k-1]], offsets[live[k-1]], b, offsets[e.i]) {
			return true
		}
		if k < len(live) && overlaps(&bufs[live[k]], offsets[live[k]], b, offsets[e.i]) {
			return true
		}
		live = slices.Insert(live, k, e.i)
	}
	return false
}

// listOverlaps returns an error for every pair of buffers that share a step
// and a byte, the first limit of them one by one and the rest as a count.
// It compares each starting buffer with every live one: quadratic in the
// live set, and only run when anyOverlap found something.
func listOverlaps(bufs []Buffer, offsets []int64, limit int) []error {
	idx := make([]int, 0, len(bufs))
	for i := range bufs {
		if occupies(&bufs[i]) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(x, y int) bool { return bufs[idx[x]].Start < bufs[idx[y]].Start })
	var errs []error
	var live []int
	more := 0
	for _, i := range idx {
		b := &bufs[i]
		keep := live[:0]
		for _, j := range live {
			if bufs[j].End > b.Start {
				keep = append(keep, j)
			}
		}
		live = keep
		for _, j := range live {
			if !overlaps(&bufs[j], offsets[j], b, offsets[i]) {
				continue
			}
			if len(errs) >= limit {
				more++
				continue
			}
			lo, hi := min(i, j), max(i, j)
			errs = append(errs, fmt.Errorf("planner: buffers %d (id %d, bytes [%d, %d), steps [%d, %d)) and %d (id %d, bytes [%d, %d), steps [%d, %d)): %w",
				lo, bufs[lo].ID, offsets[lo], offsets[lo]+bufs[lo].Size, bufs[lo].Start, bufs[lo].End,
				hi, bufs[hi].ID, offsets[hi], offsets[hi]+bufs[hi].Size, bufs[hi].Start, bufs[hi].End, ErrOverlap))
		}
		live = append(live, i)
	}
	if more > 0 {
		errs = append(errs, fmt.Errorf("planner: %d more overlapping pairs not listed: %w", more, ErrOverlap))
	}
	return errs
}

// occupies reports whether b takes bytes at some step (a size and a
// non-empty lifespan); only such buffers can overlap.
func occupies(b *Buffer) bool { return b.Size > 0 && b.End > b.Start }
