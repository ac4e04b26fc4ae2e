package planner

// Peak fill: the peak stack, with the short buffers around it placed
// exactly.
//
// At the fullest step the buffers live there must form one stack with no
// hole, or the arena passes the lower bound. The peak order (peak.go)
// builds that stack first, longest-lived at the bottom, and then places
// everything else best-fit around it. What it gets wrong on a real trace is
// the few short buffers next to the peak step: a short buffer in the stack
// sits wherever its lifespan ranks it, and the short buffers that come
// and go in the steps just before and after the peak (where the spare
// room is a few MB) must then find holes of their exact size among the
// stack's, which best-fit, one buffer at a time, does not plan for.
//
// Peak fill takes them out and solves them together:
//
//  1. From a placement (the peak order's), the offenders are the free
//     buffers whose top passes the lower bound; L is the shortest
//     offender's lifespan at first, then 4L and 16L.
//  2. R is the hull of the fullest step s and of the lifespans of the
//     offenders that live at most L steps; the short buffers are the
//     offenders and the free buffers that meet R and live at most L steps.
//  3. The stack is every other free buffer live at s, placed best-fit in
//     the peak order's stack order (longest lifespan first): a stack with
//     no hole at s.
//  4. The exact search of exact.go places the short buffers under a
//     capacity (the lower bound first, then a quarter and a half of the
//     gap to the arena) with the stack and the caller's fixed buffers as
//     obstacles.
//  5. With the stack and the short buffers fixed, every other buffer is
//     placed best-fit in peak order. The result replaces the best
//     placement when it is smaller.
//
// Each attempt costs one exact search over a few dozen buffers and one
// best-fit pass. On S_1 (28,526 buffers) the peak order leaves an 8 MiB
// buffer live 4 steps and a 6 MiB one live 6 steps above the lower bound
// (1.0026 x LB); with L = 4 the short buffers are 23 buffers around the
// peak, the exact search places them without backtracking, and the
// best-fit pass around them ends at the lower bound (0.16 s in all).
// Where the stack itself must change it does not help: on pangu_2.6B one
// offender is a 409 MB buffer live 13,174 steps, and the band re-packing
// of improve.go reaches the lower bound instead.
//
// Worked example, LB = 8 at every step (TestPeakFill):
//
//	a [0,3) 5   b [0,3) 1   c [0,1) 1   d [0,1) 1
//	e [1,3) 1   f [1,4) 1   g [3,4) 7
//
// The peak order stacks step 0's buffers a, b, c, d at 0, 5, 6, 7, then
// takes step 3 (f and g): f goes at 6, above a and b, and g (7 bytes)
// finds only the 6 bytes below f free at step 3, so it goes on top at 7:
// arena 14. Peak fill: the offender is g, so L = 1 and R = [0, 4) (g and
// the fullest step 0); the short buffers (g, and those meeting R that
// live at most 1 step) are c, d and g; the stack is a at 0 and b at 5.
// The exact search puts c at 6, d at 7 and g at 0 (no stack buffer lives
// at step 3); best-fit then puts f at 7 and e in the byte left at 6.
// Arena 8 = LB.

import (
	"context"
	"slices"
)

// peakFill tries the peak fill from the placement start with the buffers
// in peak order order, and keeps the result when it beats m.best.
func (m *srchMin) peakFill(start []int64, order []int) {
	bufs := m.bufs
	s, ok := fullestStep(bufs)
	if !ok {
		return
	}
	shortest := int64(-1)
	for i, b := range bufs {
		if !b.Fixed && start[i]+b.Size > m.lb && (shortest < 0 || b.End-b.Start < shortest) {
			shortest = b.End - b.Start
		}
	}
	if shortest < 0 {
		return // nothing above LB
	}
	ctx, cancel := context.WithDeadline(m.ctx, m.deadline)
	defer cancel()
	prev := -1
	for _, l := range []int64{shortest, 4 * shortest, 16 * shortest} {
		lo, hi := s, s+1
		for i, b := range bufs {
			if !b.Fixed && start[i]+b.Size > m.lb && b.End-b.Start <= l {
				lo, hi = min(lo, b.Start), max(hi, b.End)
			}
		}
		var stack, short []int
		for i, b := range bufs {
			switch {
			case b.Fixed || b.Size == 0:
			case start[i]+b.Size > m.lb:
				short = append(short, i)
			case b.Start < hi && lo < b.End && b.End-b.Start <= l:
				short = append(short, i)
			case b.Start <= s && s < b.End:
				stack = append(stack, i)
			}
		}
		if len(short) == prev {
			continue // the same set as the last attempt
		}
		prev = len(short)
		if len(short) > srchExactMax || (m.workCap > 0 && len(short) > peakFillCapped) || m.stop() {
			return
		}
		if off := m.peakFillWith(ctx, stack, short, order); off != nil {
			m.accept(off, "search/peakfill")
			if m.arena <= m.lb {
				return
			}
		}
	}
}

// peakFillWith stacks the buffers stack, places the buffers short exactly
// around them and the others best-fit in order; it returns the offsets, or
// nil when the exact search finds no placement.
func (m *srchMin) peakFillWith(ctx context.Context, stack, short, order []int) []int64 {
	bufs := m.bufs
	sortLongestFirst(bufs, stack)
	stackOff, err := placeInOrder(ctx, bufs, stack, bestFit, nil)
	if err != nil {
		return nil
	}
	var fixed []int
	var fixedOff []int64
	for i, b := range bufs {
		if b.Fixed {
			fixed, fixedOff = append(fixed, i), append(fixedOff, b.Offset)
		}
	}
	for _, i := range stack {
		fixed, fixedOff = append(fixed, i), append(fixedOff, stackOff[i])
	}
	in := newSrchInst(bufs, short, fixed, fixedOff)
	r := newSrchRun(in)
	r.stop = m.stop
	gap := m.arena - m.lb
	var sol []int64
	for _, c := range []int64{m.lb, m.lb + gap/4, m.lb + gap/2} {
		if sol != nil || m.stop() {
			break
		}
		orders := srchOrders(in)
		if m.workCap > 0 {
			orders = orders[:1]
			r.limitBranches(srchBranchesPerNode * int64(peakFillNodes*len(short)))
		}
		for k, rank := range orders {
			r.rekey = srchOrderKeys[k]
			st := r.solve(c, rank, int64(peakFillNodes*len(short)))
			m.nodes += r.nodes
			if st == srchFound {
				sol = r.sol
			}
			if st != srchAborted || r.stopped {
				break
			}
		}
	}
	if sol == nil {
		return nil
	}
	fx := slices.Clone(bufs)
	for _, i := range stack {
		fx[i].Fixed, fx[i].Offset = true, stackOff[i]
	}
	for k, i := range short {
		fx[i].Fixed, fx[i].Offset = true, sol[k]
	}
	off, err := placeInOrder(ctx, fx, order, bestFit, nil)
	if err != nil {
		return nil
	}
	return off
}

// peakFillNodes is the node limit of one exact attempt per short buffer.
const peakFillNodes = 200

// peakFillCapped is the most short buffers peak fill takes under a work
// cap (auto, SearchConfig.Work), where it also tries one static order per
// capacity, not every one, and bounds an attempt's branches as the exact
// stage does (srchBranchesPerNode). Its case is a few dozen short buffers
// (S_1: 23; pangu_2.6B: 7 to 12). Random rows make sets of hundreds to
// thousands, where a branch costs up to a fifth of a millisecond against
// the stack's obstacles, so that node limits no longer bound the time:
// the clock ended auto's search there, which the work cap promises it
// never does (TestPeakFillCappedUnderWork).
const peakFillCapped = 256

// fullestStep returns the earliest step at which the live total of bufs
// is largest (false when no buffer has a size).
func fullestStep(bufs []Buffer) (int64, bool) {
	var peak, at int64
	found := false
	liveSteps(bufs, func(t, live int64, _ bool) {
		found = true
		if live > peak {
			peak, at = live, t
		}
	})
	return at, found
}
