package planner

// Refinement: the search strategy's step after the merged piece
// (pieceSearch) is placed.
//
// The merged piece is placed as whole items (pairmerge.go, remerge.go),
// and some merges are guesses no tiling at LB holds as merged. Where one
// is, the placement shows it: a hole (free bytes below the top at some
// step) next to an item, or an item reaching above LB. Each round of
// refinement splits every merged item that borders a hole at one of its
// steps, or reaches above LB, one level into its two parts, where they
// sit, so the placement still holds; then top repair (toprepair.go)
// searches the finer instance's top again. Rounds go on until the time
// ends, refineRounds have run, or nothing is left to split; the
// placement of the original buffers is the last round's, expanded.
//
// It runs in place of the piece's own search on pieces above
// srchExactMax, where that search is improve.go's improvement: on
// packable p5000 that left the merged placement as it was, while
// refinement lowers it, by about 80 units of 64 B in a few seconds, to a
// plateau (docs/BENCHMARKS.md, issue 18).
//
// Example: at one step the items live sit at bytes [0,4), [4,6) and
// [7,9); LB is 8. [6,7) is a hole: the items at [4,6) and [7,9) border
// it, and the one at [7,9) reaches above LB too. Each of them that is
// merged is split one level, its two parts staying where they are;
// [0,4) stays whole unless another step shows it next to a hole.

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"time"
)

// refineRounds bounds the rounds of refinement.
const refineRounds = 8

// refineMerged refines the placement off of the reduced instance whose
// buffers are p's items roots (in that order), as above, until end; lb
// is the piece's LB. It returns the placement of p's original buffers
// and leaves roots and off as they were.
func refineMerged(ctx context.Context, p *pairMerger, roots []int, off []int64, lb int64, end time.Time, progress io.Writer) []int64 {
	begin := time.Now()
	for round := 1; round <= refineRounds && ctx.Err() == nil; round++ {
		left := time.Until(end)
		if left <= time.Millisecond {
			break
		}
		split := refineSuspects(p, roots, off, lb)
		n := 0
		var nr []int
		var no []int64
		for k, r := range roots {
			it := p.items[r]
			if split[k] && it.a >= 0 {
				n++
				nr = append(nr, it.a, it.b)
				no = append(no, off[k], off[k]+it.boff)
				continue
			}
			nr = append(nr, r)
			no = append(no, off[k])
		}
		if n == 0 {
			break
		}
		roots, off = nr, no
		bs := p.buffers(roots)
		last := round == refineRounds
		deadline := time.Now().Add(left / 2)
		if last {
			deadline = end
		}
		off = refineTop(ctx, bs, off, lb, deadline)
		if progress != nil {
			fmt.Fprintf(progress, "search: refined (round %d): %d items split, %d items, arena %d  %.1fs\n", round, n, len(roots), ArenaSize(bs, off), time.Since(begin).Seconds())
		}
	}
	return p.expand(roots, off)
}

// refineSuspects marks the items (roots placed at off) that border a
// hole at one of their steps or reach above lb.
func refineSuspects(p *pairMerger, roots []int, off []int64, lb int64) []bool {
	var steps int64
	for _, r := range roots {
		steps = max(steps, p.items[r].e)
	}
	at := make([][]int, steps)
	split := make([]bool, len(roots))
	for k, r := range roots {
		it := p.items[r]
		if off[k]+it.h > lb {
			split[k] = true
		}
		for t := it.s; t < it.e; t++ {
			at[t] = append(at[t], k)
		}
	}
	for _, live := range at {
		slices.SortFunc(live, func(x, y int) int { return cmp.Compare(off[x], off[y]) })
		var top int64
		prev := -1
		for _, k := range live {
			if off[k] > top {
				split[k] = true
				if prev >= 0 {
					split[prev] = true
				}
			}
			top, prev = off[k]+p.items[roots[k]].h, k
		}
	}
	return split
}

// refineTop runs top repair on bufs from the placement off until
// deadline and returns the placement it leaves.
func refineTop(ctx context.Context, bufs []Buffer, off []int64, lb int64, deadline time.Time) []int64 {
	now := time.Now()
	m := &srchMin{ctx: ctx, bufs: bufs, begin: now, deadline: deadline, lb: lb, proven: lb,
		best: off, arena: ArenaSize(bufs, off), method: "merged"}
	free := make([]int, len(bufs))
	for i := range free {
		free[i] = i
	}
	m.topRepair(free)
	return m.best
}
