package planner

// Fit placement in start order, by a sweep over the live buffers.
//
// When the order never goes back in time (its starts do not decrease),
// every buffer placed before b that meets b in time is live at b.Start:
// it started no later, and a buffer that ended by then meets nothing from
// b.Start on. So the memory taken over b's lifespan, at b's turn, is the
// memory of the buffers live at b's start, and a sweep that keeps them
// sorted by offset lists b's gaps directly: the spaces between them, then
// the one above them all. Those are the gaps the time index lists
// (placeInOrder), so both policies choose the same offsets, without the
// index; the portfolio's start order ("start") runs this way.
//
// A buffer's turn costs a scan of the live buffers (and an insertion into
// them), where the index costs O(log T) sets and the spans passed. With a
// few hundred live buffers the sweep is far cheaper (on 100,000 random
// rows, about 500 live, docs/BENCHMARKS.md); with thousands live at once
// it is not, and placeLive gives up once its scans pass liveSweepPerBuffer
// buffers a buffer placed, for placeInOrder to place them instead.
//
// Worked example, best-fit: a [0,3) 4 B, b [0,1) 2 B, c [1,3) 2 B, in
// start order. a: nothing live, at 0. b: live a [0,4); gaps [4, inf): at
// 4. c: b ended at step 1, live a [0,4); at 4 again. Arena 6, as the index
// gives.

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"slices"
	"sync/atomic"
)

// liveSweepPerBuffer bounds placeLive's work: the live buffers it may scan,
// on average over the buffers placed so far, before it gives up.
const liveSweepPerBuffer = 4096

// placeLive returns placeInOrder's offsets for bufs in order under policy
// (bound and the error on cancellation as there), or ok false when the
// sweep does not apply: a buffer is Fixed or invalid, the order's starts
// decrease somewhere, or the live buffers scanned pass perBuffer a buffer
// placed. Then nothing is returned and the caller runs placeInOrder.
func placeLive(ctx context.Context, bufs []Buffer, order []int, policy fitPolicy, bound *atomic.Int64, perBuffer int64) ([]int64, bool, error) {
	if len(order) != len(bufs) {
		return nil, false, nil
	}
	// The order first: it turns most orders away at once.
	for k := 1; k < len(order); k++ {
		if bufs[order[k]].Start < bufs[order[k-1]].Start {
			return nil, false, nil
		}
	}
	if slices.ContainsFunc(bufs, func(b Buffer) bool { return b.Fixed }) || validateBuffers(bufs) != nil {
		return nil, false, nil
	}
	offsets := make([]int64, len(bufs))
	var live liveSet
	var top, scanned int64
	for n, i := range order {
		if n&1023 == 1023 {
			if err := ctx.Err(); err != nil {
				return nil, true, fmt.Errorf("planner: placement cancelled after %d of %d buffers: %w", n, len(order), err)
			}
			if bound != nil && top > bound.Load() {
				return nil, true, errAbandoned
			}
		}
		b := &bufs[i]
		if b.Size == 0 {
			continue // offset 0, and it takes no memory
		}
		live.expire(b.Start)
		scanned += int64(len(live.lo))
		if scanned > perBuffer*int64(n+1) {
			return nil, false, nil
		}
		off := live.fit(b, policy)
		offsets[i] = off
		top = max(top, off+b.Size)
		live.add(off, off+b.Size, b.End)
	}
	return offsets, true, nil
}

// liveSet is the sweep's live buffers: their byte ranges [lo[k], hi[k])
// sorted by lo (they are disjoint), and a heap of their ends.
type liveSet struct {
	lo, hi []int64
	ends   liveEnds
}

// liveEnd is one live buffer in the heap: the step it ends and its lo.
type liveEnd struct{ end, lo int64 }

type liveEnds []liveEnd

func (h liveEnds) Len() int           { return len(h) }
func (h liveEnds) Less(i, j int) bool { return h[i].end < h[j].end }
func (h liveEnds) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *liveEnds) Push(x any)        { *h = append(*h, x.(liveEnd)) }
func (h *liveEnds) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// expire drops the buffers that end by step t.
func (s *liveSet) expire(t int64) {
	for len(s.ends) > 0 && s.ends[0].end <= t {
		e := heap.Pop(&s.ends).(liveEnd)
		k, _ := slices.BinarySearch(s.lo, e.lo)
		s.lo = slices.Delete(s.lo, k, k+1)
		s.hi = slices.Delete(s.hi, k, k+1)
	}
}

// add records bytes [lo, hi) as live until step end.
func (s *liveSet) add(lo, hi, end int64) {
	k, _ := slices.BinarySearch(s.lo, lo)
	s.lo = slices.Insert(s.lo, k, lo)
	s.hi = slices.Insert(s.hi, k, hi)
	heap.Push(&s.ends, liveEnd{end, lo})
}

// fit returns the offset policy picks for b among the gaps between the
// live buffers, by the rules of timeIndex.choose: best-fit takes the
// smallest gap that holds b (ties to the lower), first-fit the lowest;
// the gap above every live buffer holds anything.
func (s *liveSet) fit(b *Buffer, policy fitPolicy) int64 {
	a := alignOf(b)
	best, bestGap := int64(-1), int64(math.MaxInt64)
	prev := int64(0) // the top of the live buffers below the gap
	for k := 0; k <= len(s.lo); k++ {
		lo, hi := prev, int64(math.MaxInt64)
		if k < len(s.lo) {
			hi = s.lo[k]
			prev = max(prev, s.hi[k])
			if hi <= lo {
				continue // the buffers touch: no gap
			}
		}
		off := alignUp(lo, a)
		if hi == math.MaxInt64 {
			if best < 0 {
				best = off
			}
			break
		}
		if off > hi || hi-off < b.Size {
			continue
		}
		if policy == firstFit {
			return off
		}
		if g := hi - lo; g < bestGap {
			best, bestGap = off, g
			if g <= b.Size {
				break // a gap no larger than the buffer cannot be beaten
			}
		}
	}
	return best
}
