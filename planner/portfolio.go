package planner

import (
	"cmp"
	"context"
	"errors"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// portfolio runs several placers and keeps the smallest arena.
type portfolio struct {
	members []Placer
}

// Portfolio returns the portfolio placer (the "portfolio" strategy; the
// default, "auto", runs it as its second stage): best-fit under the size,
// lifespan, area and start orders plus first-fit by size (ties to longer
// lifespans), run concurrently (at most GOMAXPROCS at a time). It keeps the smallest arena;
// ties go to the earlier member, so the result does not depend on timing.
func Portfolio() Placer {
	p := &portfolio{}
	for _, o := range singleOrders {
		p.members = append(p.members, o)
	}
	return p
}

// Name returns "portfolio".
func (p *portfolio) Name() string { return "portfolio" }

// Place runs every member and returns the best placement. An error is
// returned only when every member failed.
func (p *portfolio) Place(ctx context.Context, bufs []Buffer) ([]int64, error) {
	off, _, err := p.placeBest(ctx, bufs)
	return off, err
}

// placeBest also returns the index of the winning member.
func (p *portfolio) placeBest(ctx context.Context, bufs []Buffer) ([]int64, int, error) {
	return p.placeBound(ctx, bufs, math.MaxInt64)
}

// placeBound is placeBest with a known arena: members stop as soon as they
// are above it, and when every member did, it returns errAbandoned.
func (p *portfolio) placeBound(ctx context.Context, bufs []Buffer, arena int64) ([]int64, int, error) {
	off, k, _, err := p.placeKeep(ctx, bufs, arena, -1)
	return off, k, err
}

// placeKeep is placeBound, except that member keep (an index; -1: none)
// runs without the bound, to its end, and its placement is returned too
// (nil if it failed), whether it wins or not. A winner below arena is the
// same as placeBound's: the bound stops only members above the best
// arena. (Above arena the winner depends on which members the bound
// stopped, and so on timing, with or without keep; auto keeps none.)
func (p *portfolio) placeKeep(ctx context.Context, bufs []Buffer, arena int64, keep int) ([]int64, int, []int64, error) {
	if err := validateBuffers(bufs); err != nil {
		return nil, -1, nil, err
	}
	results := make([][]int64, len(p.members))
	errs := make([]error, len(p.members))
	// bound is the smallest arena finished so far. A member whose arena so
	// far is strictly above it stops: it would lose, and a tie could not
	// have happened, so the winner does not depend on timing.
	var bound atomic.Int64
	bound.Store(arena)
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for _, i := range launchOrder(p.members) {
		m := p.members[i]
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if op, ok := m.(*orderPlacer); ok {
				b := &bound
				if i == keep {
					b = nil
				}
				results[i], errs[i] = op.place(ctx, bufs, b)
			} else {
				results[i], errs[i] = m.Place(ctx, bufs)
			}
			if errs[i] == nil {
				a := ArenaSize(bufs, results[i])
				for cur := bound.Load(); a < cur && !bound.CompareAndSwap(cur, a); cur = bound.Load() {
				}
			}
		}()
	}
	wg.Wait()
	var kept []int64
	if keep >= 0 && errs[keep] == nil {
		kept = results[keep]
	}
	best, bestArena := -1, int64(0)
	abandoned := 0
	for i, off := range results {
		if errors.Is(errs[i], errAbandoned) {
			errs[i] = nil
			abandoned++
			continue
		}
		if errs[i] != nil {
			continue
		}
		if a := ArenaSize(bufs, off); best < 0 || a < bestArena {
			best, bestArena = i, a
		}
	}
	if best < 0 {
		if abandoned == len(results) {
			return nil, -1, kept, errAbandoned
		}
		return nil, -1, kept, errors.Join(errs...)
	}
	return results[best], best, kept, nil
}

// launchOrder lists the members by their launch rank (orderPlacer.launch;
// other placers last), ties in member order. First-fit starts first: it is
// the cheapest member (it stops at
// the first gap that fits) and often the best, so the bound it sets lets
// the others be abandoned early. The lifespan order goes next, beside it:
// it places long-lived buffers first, so its arena so far rises slowly and
// a bound stops it late, if at all; started early it is not the last to
// finish. The size-led orders put the big buffers down first and reach
// most of their final arena early, so once the bound is known they stop
// soon. On 1,000,000 synthetic buffers, with first-fit's bound known from
// the start, size stops after 1.1 s, area after 0.3 s, start after 0.8 s,
// and lifespan only after 6.3 s. Which member wins still depends only on
// the arenas and the member index, never on this order.
func launchOrder(members []Placer) []int {
	rank := func(i int) uint8 {
		if op, ok := members[i].(*orderPlacer); ok {
			return op.launch
		}
		return math.MaxUint8
	}
	order := make([]int, len(members))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(rank(a), rank(b)) })
	return order
}
