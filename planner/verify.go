package planner

import (
	"fmt"
	"math"
)

// maxOverlapErrors caps the overlap errors a verifier lists one by one.
const maxOverlapErrors = 1000

// VerifyPlacement checks a placement of bufs and reports every violation
// (errors.Join): a length mismatch, an invalid buffer (empty lifespan,
// negative size), a negative offset, an offset that is not a multiple of
// the buffer's alignment, a Fixed buffer away from its Offset, a buffer
// whose end does not fit in int64, and every buffer that shares a step and
// a byte with a buffer entering the sweep before it (each named with one
// such partner). Past maxOverlapErrors overlapping buffers, the rest are
// counted in one last error instead of listed.
//
// It is independent of the placers and simple: one O(n log n) sweep over
// time with the live buffers ordered by offset (sweep.go), with exact byte
// comparisons. Buffers of size 0 occupy no bytes and never
// overlap anything; they are still checked for alignment and lifespan.
func VerifyPlacement(bufs []Buffer, offsets []int64) error {
	if len(offsets) != len(bufs) {
		return fmt.Errorf("planner: %d offsets for %d buffers: %w", len(offsets), len(bufs), ErrLength)
	}
	var errs []error
	spans := make([]span, len(bufs))
	for i := range bufs {
		b, off := &bufs[i], offsets[i]
		spans[i] = span{Start: b.Start, End: b.End, Lo: off, Size: b.Size}
		if b.End <= b.Start || b.Size < 0 || b.Align < 0 {
			errs = append(errs, fmt.Errorf("planner: buffer %d (id %d): lifespan [%d, %d), size %d, align %d: %w", i, b.ID, b.Start, b.End, b.Size, b.Align, ErrInvalidBuffer))
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
		if off >= 0 && b.Size > 0 && off > math.MaxInt64-b.Size {
			errs = append(errs, fmt.Errorf("planner: buffer %d (id %d): offset %d + size %d passes the largest int64: %w", i, b.ID, off, b.Size, ErrOutsideArena))
		}
	}
	pairs, more := sweepConflicts(spans, maxOverlapErrors)
	for _, c := range pairs {
		lo, hi := min(c.Earlier, c.Later), max(c.Earlier, c.Later)
		errs = append(errs, fmt.Errorf("planner: buffers %d (id %d, bytes %s, steps [%d, %d)) and %d (id %d, bytes %s, steps [%d, %d)): %w",
			lo, bufs[lo].ID, byteRange(offsets[lo], bufs[lo].Size), bufs[lo].Start, bufs[lo].End,
			hi, bufs[hi].ID, byteRange(offsets[hi], bufs[hi].Size), bufs[hi].Start, bufs[hi].End, ErrOverlap))
	}
	if more > 0 {
		errs = append(errs, fmt.Errorf("planner: %d more buffers overlap an earlier one, not listed: %w", more, ErrOverlap))
	}
	return joinErrors(errs)
}

// byteRange formats [off, off+size) without wrapping past int64.
func byteRange(off, size int64) string {
	if size > 0 && off > math.MaxInt64-size {
		return fmt.Sprintf("[%d, %d+%d)", off, off, size)
	}
	return fmt.Sprintf("[%d, %d)", off, off+size)
}
