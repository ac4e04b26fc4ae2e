package planner

// Improvement of large placements by exact re-packing around the peak.
//
// Real traces have tens of thousands of buffers; the exact search cannot
// take them whole, but the arena is set by a few buffers at the peak. Take
// the best placement so far (arena A) and aim at T = A-1. Pick a buffer p
// whose top exceeds T, gather the buffers live at the same time as p and
// the k of them that reach highest (p among them), and re-pack those k with
// the exact search under capacity T, every other buffer fixed as an
// obstacle. A success moves only the k buffers, all below T now, so no
// other buffer's top changes; when no buffer is left above T the arena is
// at most T and the next round aims lower. A failure retries with a larger
// k (twice), then gives up on this T.
//
// Worked example: a trace at arena 1,000 with LB 990 has three buffers
// reaching 1,000 around step 5,000. The first window takes the 64 highest
// buffers live with the first of them; the exact search re-packs them
// under 999 and finds 993, gaps closed among the 64. The next buffer above
// 999 is handled the same way; then the round aims at 992.

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"time"
)

// improve lowers m.best by local search over the placement order, then by
// windowed exact re-packing, until the deadline.
func (m *srchMin) improve(free []int) {
	m.localSearch()
	m.windows(free)
}

// windows lowers m.best by windowed exact re-packing until the deadline.
func (m *srchMin) windows(free []int) {
	bufs := m.bufs
	cur := slices.Clone(m.best)
	arena := m.arena
	isFree := make([]bool, len(bufs))
	for _, i := range free {
		isFree[i] = true
	}
	cursor := 0 // where the scan for buffers above the target resumes
	k := 64
	for !m.stop() && arena > m.lb {
		target := arena - 1
		p := -1
		for j := range bufs {
			i := (cursor + j) % len(bufs)
			if isFree[i] && cur[i]+bufs[i].Size > target {
				p = i
				break
			}
		}
		if p < 0 {
			arena = ArenaSize(bufs, cur)
			if arena < m.arena && VerifyPlacement(bufs, cur) == nil {
				m.best, m.arena, m.method = slices.Clone(cur), arena, "search/window"
			}
			k = 64
			continue
		}
		cursor = p
		ok := false
		for size := k; size <= 4*k && !ok && !m.stop(); size *= 2 {
			ok = m.repack(cur, isFree, p, size, target)
		}
		if !ok {
			// No window around p fits under the target: give up on it.
			break
		}
	}
	if a := ArenaSize(bufs, cur); a < m.arena && VerifyPlacement(bufs, cur) == nil {
		m.best, m.arena, m.method = cur, a, "search/window"
	}
}

// repack re-places the size highest buffers live with p under capacity
// target, all others fixed; it updates cur and reports success.
func (m *srchMin) repack(cur []int64, isFree []bool, p, size int, target int64) bool {
	bufs := m.bufs
	pb := bufs[p]
	var cand []int
	for i, b := range bufs {
		if isFree[i] && b.Start < pb.End && pb.Start < b.End {
			cand = append(cand, i)
		}
	}
	slices.SortFunc(cand, func(a, b int) int {
		if c := cmpI64(cur[b]+bufs[b].Size, cur[a]+bufs[a].Size); c != 0 {
			return c
		}
		return a - b
	})
	if len(cand) > size {
		cand = cand[:size]
	}
	if !slices.Contains(cand, p) {
		cand = append(cand, p)
	}
	slices.Sort(cand)
	lo, hi := bufs[cand[0]].Start, bufs[cand[0]].End
	for _, i := range cand {
		lo, hi = min(lo, bufs[i].Start), max(hi, bufs[i].End)
	}
	var fixed []int
	var fixedOff []int64
	for i, b := range bufs {
		if b.Start < hi && lo < b.End && !inSorted(cand, i) {
			fixed, fixedOff = append(fixed, i), append(fixedOff, cur[i])
		}
	}
	in := newSrchInst(bufs, cand, fixed, fixedOff)
	r := newSrchRun(in)
	r.stop = m.stop
	limit := int64(20 * len(cand))
	for _, rank := range srchOrders(in) {
		st := r.solve(target, rank, limit)
		m.nodes += r.nodes
		if st == srchFound {
			for k, i := range cand {
				cur[i] = r.sol[k]
			}
			return true
		}
		if st == srchInfeasible || r.stopped || time.Now().After(m.deadline) {
			return false
		}
	}
	return false
}

func inSorted(s []int, x int) bool {
	_, ok := slices.BinarySearch(s, x)
	return ok
}

// srchSeed seeds the local search: runs are deterministic for a given
// number of iterations.
const srchSeed = 0x5eed

// localSearch perturbs the order of the best portfolio member: a few of the
// buffers that reach above the lower bound move to a random earlier place in
// the order, the order is re-placed with the member's fit policy (abandoned
// as soon as it exceeds the best arena), and an order that ties or beats
// the best is kept.
func (m *srchMin) localSearch() {
	bufs := m.bufs
	op := singleOrders[0]
	for _, o := range singleOrders {
		if "portfolio/"+o.name == m.method {
			op = o
		}
	}
	order := make([]int, len(bufs))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(i, j int) int {
		if c := op.less(&bufs[i], &bufs[j]); c != 0 {
			return c
		}
		if c := byContent(&bufs[i], &bufs[j]); c != 0 {
			return c
		}
		return cmp.Compare(i, j)
	})
	pos := make([]int, len(bufs))
	rng := rand.New(rand.NewPCG(srchSeed, uint64(len(bufs))))
	best := m.best
	arena := m.arena
	var bound atomic.Int64
	ctx := context.WithoutCancel(m.ctx)
	for !m.stop() && arena > m.lb {
		for k, i := range order {
			pos[i] = k
		}
		// The buffers poking above the lower bound, highest first.
		var peak []int
		for i, b := range bufs {
			if !b.Fixed && best[i]+b.Size > m.lb {
				peak = append(peak, i)
			}
		}
		slices.SortFunc(peak, func(a, b int) int {
			if c := cmpI64(best[b]+bufs[b].Size, best[a]+bufs[a].Size); c != 0 {
				return c
			}
			return a - b
		})
		cand := slices.Clone(order)
		moves := 1 + rng.IntN(4)
		for range moves {
			// Favour the highest buffers.
			i := peak[min(rng.IntN(len(peak)), rng.IntN(len(peak)))]
			from := slices.Index(cand, i)
			to := rng.IntN(from + 1)
			copy(cand[to+1:from+1], cand[to:from])
			cand[to] = i
		}
		bound.Store(arena)
		off, err := placeInOrder(ctx, bufs, cand, op.policy, &bound)
		if err != nil {
			continue
		}
		if a := ArenaSize(bufs, off); a <= arena {
			order, best = cand, off
			if a < arena {
				arena = a
				m.best, m.arena, m.method = off, a, "search/local"
			}
		}
	}
}
