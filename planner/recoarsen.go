package planner

// Re-coarsening: the search strategy's step after refinement (refine.go)
// on a large merged piece (pieceSearch).
//
// Refinement splits the merged items that the placement shows next to
// holes and searches the top again; after a second or so it stops
// gaining, and it never places the whole anew. Re-coarsening merges the
// piece's buffers again, this time along the refined placement: two
// items of one lifespan where one sits right on the other (a stack), or
// two of one size at one offset where one ends at the step the other
// starts (a continuation), pairs drawn at random until none is left.
// Every such merge holds in the placement, so the coarse instance places
// at its arena, and its items are rectangles of a placement near LB
// rather than the guesses of pairmerge.go. Squeaky-wheel passes
// (squeaky.go) place it anew from the size order, and refinement goes on
// from whichever placement is lower, theirs or the one coarsened. A cycle
// runs recoarsenWays coarse instances (their own seeds) side by side, one
// stream each, and keeps its result when it is lower than the placement
// it started from; cycles go on while recoarsenMin is left.
//
// Example (TestCoarsenPlacedWorkedExample): LB 4; a [0,2) 2 B at 0, b
// [0,2) 2 B at 2, c [2,4) 4 B at 0. b sits on a with a's lifespan: they
// stack into [0,2) 4 B at 0. That stack ends at step 2, where c starts at
// its offset with its size: c continues it, and one item [0,4) 4 B is
// left.

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"time"
)

// recoarsenWays is how many coarse instances a cycle searches side by
// side, one squeaky-wheel stream each, two to a core; recoarsenMin is the
// least time a cycle starts with.
const (
	recoarsenWays = 4
	recoarsenMin  = time.Second
)

// coarsenPlaced merges bufs, placed at off, as the file's comment says,
// pairs drawn with seed. It returns the merger, the items left (roots, in
// the reduced instance's order: pairMerger.sortedRoots) and their
// offsets; the expansion of those (pairMerger.expand) is off. Buffers of
// size 0 stay apart.
func coarsenPlaced(bufs []Buffer, off []int64, seed uint64) (*pairMerger, []int, []int64) {
	type stackKey struct{ s, e, off int64 }
	type contKey struct{ t, off, h int64 }
	p := newPairMerger(bufs, seed)
	at := slices.Clone(off) // each item's offset
	rng := rand.New(rand.NewPCG(seed, uint64(len(bufs))+2))
	var pairs [][3]int // x, y, 1 for a stack (y on x), 0 for a continuation
	used := map[int]bool{}
	for {
		on := make(map[stackKey]int, len(p.live))
		from := make(map[contKey]int, len(p.live))
		for _, i := range p.live {
			if it := p.items[i]; it.h > 0 {
				on[stackKey{it.s, it.e, at[i]}] = i
				from[contKey{it.s, at[i], it.h}] = i
			}
		}
		pairs = pairs[:0]
		for _, x := range p.live {
			it := p.items[x]
			if it.h == 0 {
				continue
			}
			if y, ok := on[stackKey{it.s, it.e, at[x] + it.h}]; ok {
				pairs = append(pairs, [3]int{x, y, 1})
			}
			if y, ok := from[contKey{it.e, at[x], it.h}]; ok {
				pairs = append(pairs, [3]int{x, y, 0})
			}
		}
		if len(pairs) == 0 {
			break
		}
		rng.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
		clear(used)
		for _, q := range pairs {
			x, y := q[0], q[1]
			if used[x] || used[y] {
				continue
			}
			used[x], used[y] = true, true
			a, b := p.items[x], p.items[y]
			p.drop(x)
			p.drop(y)
			if q[2] == 1 {
				p.add(pmItem{s: a.s, e: a.e, h: a.h + b.h, a: x, b: y, boff: a.h})
			} else {
				p.add(pmItem{s: a.s, e: b.e, h: a.h, a: x, b: y})
			}
			at = append(at, at[x])
		}
	}
	roots := p.sortedRoots(p.live)
	ro := make([]int64, len(roots))
	for k, r := range roots {
		ro[k] = at[r]
	}
	return p, roots, ro
}

// recoarsen runs cycles of re-coarsening on bufs (a perfect instance of
// LB lb) placed at off, with ways coarse instances a cycle, until end or
// ctx ends, and returns the lowest placement seen (off itself when no
// cycle lowers it). Progress lines go to progress when it is not nil.
func recoarsen(ctx context.Context, bufs []Buffer, off []int64, lb int64, end time.Time, ways int, progress io.Writer) []int64 {
	begin := time.Now()
	arena := ArenaSize(bufs, off)
	type way struct {
		p     *pairMerger
		roots []int
		off   []int64
		arena int64
	}
	for cycle := 1; arena > lb && ctx.Err() == nil; cycle++ {
		left := time.Until(end)
		if left < recoarsenMin {
			break
		}
		passEnd := time.Now().Add(left * 2 / 3)
		tried := make([]way, ways)
		var wg sync.WaitGroup
		for k := range tried {
			wg.Go(func() {
				p, roots, ro := coarsenPlaced(bufs, off, uint64((cycle-1)*ways+k+1))
				cb := p.buffers(roots)
				w := way{p: p, roots: roots, off: ro, arena: ArenaSize(cb, ro)}
				m := &srchMin{ctx: ctx, bufs: cb, begin: time.Now(), deadline: passEnd, lb: lb, proven: lb, arena: w.arena}
				if r := m.swoStream(uint64(k), swoPasses); r.off != nil && r.arena < w.arena {
					w.off, w.arena = r.off, r.arena
				}
				tried[k] = w
			})
		}
		wg.Wait()
		w := tried[0]
		for _, x := range tried[1:] {
			if x.arena < w.arena {
				w = x
			}
		}
		got := refineMerged(ctx, w.p, w.roots, w.off, lb, end, nil)
		a := ArenaSize(bufs, got)
		if a < arena {
			off, arena = got, a
		}
		if progress != nil {
			fmt.Fprintf(progress, "search: re-coarsened (cycle %d): %d items, passes' best %d, refined %d, arena %d  %.1fs\n",
				cycle, len(w.roots), w.arena, a, arena, time.Since(begin).Seconds())
		}
	}
	return off
}
