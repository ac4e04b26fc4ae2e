package planner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
)

// errAbandoned reports a placement stopped because it could no longer win.
var errAbandoned = errors.New("planner: placement abandoned: arena already above the best")

// Best-fit placement
//
// The placer takes buffers one at a time in a fixed order and puts each in
// the smallest free gap that holds it, among the bytes taken by the buffers
// already placed that overlap it in time; ties go to the lower offset. When
// no gap between placed buffers fits, the buffer goes on top (the gap that
// runs to infinity). The first-fit policy instead takes the lowest gap that
// fits. Fixed buffers are placed first, at their offsets.
//
// The order is the whole heuristic. Placing big buffers first (size order)
// leaves small holes for small buffers; placing long-lived buffers first
// (lifespan order) stacks them at the bottom like a skyline; no order wins
// everywhere, which is why the portfolio runs several.
//
// Worked example, size order, steps on the x axis, bytes upward:
//
//	A [0,4) 4 bytes      bytes
//	B [0,2) 2 bytes       6 |      C C
//	C [2,4) 2 bytes       4 | B B  C C       B and C never meet, so C
//	                      2 | A A  A A       reuses B's bytes [4, 6)
//	                      0 +---------- step
//
// A goes to 0. B overlaps A: the only gap is [4, inf), so B goes to 4. C
// overlaps A but not B: the gap above A is [4, inf) again and C goes to 4.
// The arena is 6 bytes, equal to the lower bound (4+2 at every step).
//
// Finding the taken bytes is the costly part; timeIndex answers it with a
// segment tree over time holding merged byte ranges, so a query costs
// O(log T) set lookups per gap boundary instead of a scan of every placed
// buffer that overlaps in time.

// fitPolicy selects among the gaps that hold a buffer.
type fitPolicy uint8

const (
	bestFit  fitPolicy = iota // smallest gap, ties to the lower offset
	firstFit                  // lowest offset
)

// placeInOrder places bufs in the given order (a permutation of indices;
// Fixed buffers are placed first regardless). It checks ctx every 1024
// buffers.
//
// When bound is non-nil, placement is abandoned (errAbandoned) as soon as the
// arena so far exceeds *bound: arenas only grow, so this order cannot beat
// the placement that set the bound. The portfolio uses it to stop losers
// early without changing which order wins.
func placeInOrder(ctx context.Context, bufs []Buffer, order []int, policy fitPolicy, bound *atomic.Int64) ([]int64, error) {
	if err := validateBuffers(bufs); err != nil {
		return nil, err
	}
	return placeWith(ctx, newTimeIndex(bufs), make([]int64, len(bufs)), bufs, order, policy, bound)
}

// placeWith is placeInOrder with the index ix (made for bufs, empty) and
// the offsets written to offsets (len(bufs)); callers that place the same
// buffers again and again reset one index instead of making one each time
// (squeaky.go).
func placeWith(ctx context.Context, ix *timeIndex, offsets []int64, bufs []Buffer, order []int, policy fitPolicy, bound *atomic.Int64) ([]int64, error) {
	for i := range bufs {
		b := &bufs[i]
		if b.Fixed {
			offsets[i] = b.Offset
			ix.add(b.Start, b.End, b.Offset, satAdd(b.Offset, b.Size))
		}
	}
	var top int64
	for n, i := range order {
		if n&1023 == 1023 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("planner: placement cancelled after %d of %d buffers: %w", n, len(order), err)
			}
			if bound != nil && top > bound.Load() {
				return nil, errAbandoned
			}
		}
		b := &bufs[i]
		if b.Fixed {
			continue
		}
		if b.Size == 0 {
			offsets[i] = 0
			continue
		}
		off := ix.fit(b, policy)
		offsets[i] = off
		top = max(top, off+b.Size)
		ix.record(off, off+b.Size) // fit left b's canonical nodes in ix.nodes
	}
	return offsets, nil
}

// fit returns the offset policy picks for b among the free gaps over b's
// lifespan.
func (ix *timeIndex) fit(b *Buffer, policy fitPolicy) int64 {
	ix.collect(b.Start, b.End)
	return ix.choose(b, policy)
}

// choose is fit's answer over the sets ix.sets holds (left there by
// collect, or gathered from several indexes). A buffer of no bytes takes
// none: 0 (the placers never ask).
func (ix *timeIndex) choose(b *Buffer, policy fitPolicy) int64 {
	switch {
	case b.Size <= 0:
		return 0
	case policy == firstFit:
		return ix.firstFree(b.Size, alignOf(b))
	default:
		return ix.bestFree(b.Size, alignOf(b))
	}
}

// validateBuffers reports every malformed buffer, and Fixed buffers that
// collide (no placement can exist then).
func validateBuffers(bufs []Buffer) error {
	var errs []error
	for i := range bufs {
		b := &bufs[i]
		switch {
		case b.End <= b.Start:
			errs = append(errs, fmt.Errorf("planner: buffer %d (id %d): lifespan [%d, %d) is empty: %w", i, b.ID, b.Start, b.End, ErrInvalidBuffer))
		case b.Size < 0:
			errs = append(errs, fmt.Errorf("planner: buffer %d (id %d): negative size %d: %w", i, b.ID, b.Size, ErrInvalidBuffer))
		case b.Align < 0:
			errs = append(errs, fmt.Errorf("planner: buffer %d (id %d): negative alignment %d: %w", i, b.ID, b.Align, ErrInvalidBuffer))
		case b.Fixed && b.Offset < 0:
			errs = append(errs, fmt.Errorf("planner: buffer %d (id %d): negative fixed offset %d: %w", i, b.ID, b.Offset, ErrInvalidBuffer))
		case b.Fixed && b.Offset%alignOf(b) != 0:
			errs = append(errs, fmt.Errorf("planner: buffer %d (id %d): fixed offset %d is not a multiple of %d: %w", i, b.ID, b.Offset, b.Align, ErrInvalidBuffer))
		case b.Size > math.MaxInt64/4:
			errs = append(errs, fmt.Errorf("planner: buffer %d (id %d): size %d is too large: %w", i, b.ID, b.Size, ErrInvalidBuffer))
		}
	}
	if len(errs) > 0 {
		return joinErrors(errs)
	}
	var fixed []int
	for i := range bufs {
		if bufs[i].Fixed {
			fixed = append(fixed, i)
		}
	}
	for x, i := range fixed {
		for _, j := range fixed[x+1:] {
			if overlaps(&bufs[i], bufs[i].Offset, &bufs[j], bufs[j].Offset) {
				errs = append(errs, fmt.Errorf("planner: fixed buffers %d (id %d) and %d (id %d) overlap: %w", i, bufs[i].ID, j, bufs[j].ID, ErrFixedConflict))
			}
		}
	}
	return joinErrors(errs)
}

// overlaps reports whether two placed buffers share a step and a byte.
func overlaps(a *Buffer, aoff int64, b *Buffer, boff int64) bool {
	if a.Size <= 0 || b.Size <= 0 {
		return false
	}
	return a.Start < b.End && b.Start < a.End && aoff < satAdd(boff, b.Size) && boff < satAdd(aoff, a.Size)
}
