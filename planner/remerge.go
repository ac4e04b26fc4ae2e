package planner

// Re-merging: a destroy-and-repair search over pair merges (pairmerge.go)
// for a reduced instance with fewer buffers.
//
// One pass of pair merges stops where no two items match: no lifespan is
// shared and no boundary has an ender and a starter of one size. If the
// items left could tile the arena at LB in a guillotine way, two of them
// would be neighbours that make a rectangle, and those two would match;
// so a pass that stops at more than one item has guessed wrong somewhere
// (or no tiling at LB is a guillotine one). Re-merging takes a random
// item, splits every merged item that overlaps its lifespan a random
// number of levels (1 to remergeDepths) back into its parts, and merges
// again: ties drawn anew, and each step starting, with chance
// remergeSkip, at a random class of rivals instead of the lowest, so that
// a pair the first pass always took first can be left for another. The
// result is kept when it leaves no more items than before, and with
// chance remergeTemper / d when it leaves d more (so the search does not
// stick); the fewest items seen are what it returns.
//
// The search places the smaller instance better. With re-merging, the
// search strategy came closer to LB under 10 s on most of the large
// packable instances measured, p5000 among them, and reached LB on two;
// one ended higher (docs/BENCHMARKS.md, issue 18). TestRemergeP5000
// counts the items. The price is in the items no tiling at LB may hold
// as merged: on p5000 the first pass's items that the generator's tiling
// does not show right (mergeright_test.go) are small, 8% of the area;
// after 1,000 iterations re-merging has joined them into large ones,
// 36% of the area, twin buffers swapped or not (TestMergeRightnessP5000;
// 23% and 55% before pairs with a follow-up went first).
//
// Example (TestRemergeWorkedExample): a [0,1) 1 B, b [0,1) 1 B, c [0,2)
// 2 B, d [1,2) 1 B, e [1,4) 1 B, f [2,4) 3 B; live total 4. The first
// pass stacks a and b (a lifespan shared by two comes before boundary 1,
// where two 1 B buffers end and two start: four pairs) and then sticks
// at five items: nothing else shares a lifespan, and the 2 B stack ends
// at step 1 where no 2 B buffer starts. Re-merging splits the stack;
// starting at the boundary's class, a continues into d. Then b and e
// are the boundary's only pair left, c stacks with a and d, f continues
// that stack, and the two rows stack: one item, a tiling at LB.

import (
	"context"
	"math/rand/v2"
	"slices"
)

// remergeDepths bounds how many levels an overlapping item is split;
// remergeSkip is the chance that a step of the repair starts at a random
// class; remergeTemper is the chance, divided by how many items more it
// leaves, that a worse result is kept.
const (
	remergeDepths = 6
	remergeSkip   = 0.5
	remergeTemper = 0.02
)

// remergeShare is the percentage of the merged piece's time (pieceSearch)
// that re-merging may take, remergeIters its most iterations per buffer.
const (
	remergeShare = 40
	remergeIters = 10
)

// remerge merges pairs of bufs (a perfect instance) as pairMerge does,
// then re-merges up to iters times (fewer when ctx ends), and returns the
// reduced instance with the fewest buffers it saw, its expansion
// (pairMerge), and the iterations it made. With iters 0 it is pairMerge.
func remerge(ctx context.Context, bufs []Buffer, seed uint64, iters int) ([]Buffer, func([]int64) []int64, int) {
	p, best, it := remergeTree(ctx, bufs, seed, iters)
	red, expand := p.reducedFrom(best)
	return red, expand, it
}

// remergeTree is remerge's work: it returns the merger, whose items hold
// every merge made, the items of the fewest seen (the reduced instance's
// buffers, in no order), and the iterations made.
func remergeTree(ctx context.Context, bufs []Buffer, seed uint64, iters int) (*pairMerger, []int, int) {
	return remergeRun(ctx, newPairMerger(bufs, seed), seed, iters)
}

// remergeRun is remergeTree's work on a merger of the original buffers
// made already (BenchmarkPairChoice sets its anyPair).
func remergeRun(ctx context.Context, p *pairMerger, seed uint64, iters int) (*pairMerger, []int, int) {
	for p.step() {
	}
	rng := rand.New(rand.NewPCG(seed, uint64(p.n)+1))
	p.skip = remergeSkip
	best := slices.Clone(p.live)
	it := 0
	var removed, pieces, prev []int
	var stamp []int // it+1 on the items live before iteration it
	for ; it < iters && len(p.live) > 1; it++ {
		if it%256 == 0 {
			if ctx.Err() != nil {
				break
			}
			p.sweep()
		}
		prev = append(prev[:0], p.live...)
		oldLen := len(p.items)
		if len(stamp) < oldLen {
			stamp = append(stamp, make([]int, oldLen-len(stamp))...)
		}
		for _, i := range prev {
			stamp[i] = it + 1
		}
		// Destroy: the merged items over the lifespan of a random one,
		// a random number of levels down.
		r0 := p.items[p.live[rng.IntN(len(p.live))]]
		depth := 1 + rng.IntN(remergeDepths)
		removed, pieces = removed[:0], pieces[:0]
		for _, r := range prev {
			if x := p.items[r]; x.s < r0.e && x.e > r0.s && x.a >= 0 {
				removed = append(removed, r)
			}
		}
		for _, r := range removed {
			p.drop(r)
			pieces = p.split(r, depth, pieces)
		}
		for _, i := range pieces {
			p.refile(i)
		}
		// Repair.
		for p.step() {
		}
		d := len(p.live) - len(prev)
		if d <= 0 || rng.Float64() < remergeTemper/float64(d) {
			if len(p.live) < len(best) {
				best = append(best[:0], p.live...)
			}
			continue
		}
		// Undo: the items live now and not before go, those live before
		// come back, and the merges made are forgotten.
		for _, i := range slices.Clone(p.live) {
			if i >= oldLen || stamp[i] != it+1 {
				p.drop(i)
			}
		}
		for _, i := range prev {
			if p.pos[i] < 0 {
				p.refile(i)
			}
		}
		p.items, p.pos, p.gs = p.items[:oldLen], p.pos[:oldLen], p.gs[:oldLen]
	}
	return p, best, it
}

// split appends to out the parts of item r, depth levels down (r itself
// at depth 0 or when it is an original buffer).
func (p *pairMerger) split(r, depth int, out []int) []int {
	it := p.items[r]
	if it.a < 0 || depth == 0 {
		return append(out, r)
	}
	return p.split(it.b, depth-1, p.split(it.a, depth-1, out))
}
