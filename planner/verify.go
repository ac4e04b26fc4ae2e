package planner

import (
	"fmt"
	"sort"
)

// VerifyPlacement checks a placement of bufs and reports every violation
// (errors.Join): a length mismatch, a negative offset, an offset that is not
// a multiple of the buffer's alignment, a Fixed buffer away from its Offset,
// and every pair of buffers that share both a step and a byte.
//
// It is deliberately simple and independent of the placers: a sweep over
// time keeps the list of buffers live at the current step and compares each
// starting buffer with every one of them. Buffers of size 0 occupy no bytes
// and never overlap.
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
	// Sweep: visit buffers by start; drop the live ones that ended.
	idx := make([]int, 0, len(bufs))
	for i := range bufs {
		if bufs[i].Size > 0 && bufs[i].End > bufs[i].Start {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(x, y int) bool { return bufs[idx[x]].Start < bufs[idx[y]].Start })
	var live []int
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
			if overlaps(&bufs[j], offsets[j], b, offsets[i]) {
				lo, hi := min(i, j), max(i, j)
				errs = append(errs, fmt.Errorf("planner: buffers %d (id %d, bytes [%d, %d), steps [%d, %d)) and %d (id %d, bytes [%d, %d), steps [%d, %d)): %w",
					lo, bufs[lo].ID, offsets[lo], offsets[lo]+bufs[lo].Size, bufs[lo].Start, bufs[lo].End,
					hi, bufs[hi].ID, offsets[hi], offsets[hi]+bufs[hi].Size, bufs[hi].Start, bufs[hi].End, ErrOverlap))
			}
		}
		live = append(live, i)
	}
	return joinErrors(errs)
}
