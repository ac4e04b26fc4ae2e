package planner

// Top repair: the search strategy's last step on a perfect instance that
// the guillotine cuts (and the renewal route) left above LB.
//
// A placement that the cuts build from exact bands and a fallback's
// placement of the piece without a band wastes bytes mostly near its top:
// the fallback's last buffers find ragged holes (on packable p5000 the
// top 2,800 units of 64 B of the arena are about 70% full, the bottom
// 6,000 units full). Top repair frees the buffers whose tops are within
// a depth of the arena's top, fixes every other buffer where it is, and
// gives the freed ones to the search again (squeaky-wheel passes and the
// exact search among the fixed obstacles, search.go). The depth cycles
// through one, two and three times the gap (arena - LB); each try gets
// half the time left, a success starts over from the new placement, and
// six failures in a row end it.
//
// Worked example, LB 4: A [0,4) 2 B, B [0,2) 2 B, C [2,4) 2 B placed
// B at 0, A at 2, C at 4 (arena 6, gap 2). Depth 2 frees the buffers
// whose tops are above 4: C alone. With B and A fixed, C drops to 0
// (B has ended by step 2), and the arena is 4.
//
//	before:          after:
//	4 |     C C      2 | A A A A
//	2 | A A A A      0 | B B C C
//	0 | B B            +--------  step
//	  +--------  step

import (
	"fmt"
	"slices"
	"time"
)

// topRepairFails is how many tries in a row may fail before top repair
// ends (two rounds of the three depths).
const topRepairFails = 6

// topRepair lowers m.best by re-searching its top (see above); free are
// the buffers it may move.
func (m *srchMin) topRepair(free []int) {
	fails := 0
	for k := 0; !m.stop() && m.arena > m.lb && fails < topRepairFails; k++ {
		depth := (m.arena - m.lb) * int64(1+k%3)
		bs, n := topRepairSet(m.bufs, free, m.best, m.arena-depth)
		if n == 0 || n == len(free) {
			fails++
			continue
		}
		budget := time.Until(m.deadline) / 2
		if budget <= 0 {
			return
		}
		cfg := SearchConfig{Initial: m.best, InitialMethod: m.method, noCuts: true, noRenew: true, end: m.deadline}
		res, err := search(m.ctx, bs, cfg, budget, 0)
		if err == nil && m.accept(res.Offsets, "search/top") {
			fails = 0
		} else {
			fails++
		}
		if m.progress != nil {
			fmt.Fprintf(m.progress, "search: top: %d highest buffers re-searched: arena %d  %.1fs\n",
				n, m.arena, time.Since(m.begin).Seconds())
		}
	}
}

// topRepairSet returns a copy of bufs with every buffer of free whose top
// (at off) is at most y0 fixed at its offset, and how many of free stay
// free.
func topRepairSet(bufs []Buffer, free []int, off []int64, y0 int64) ([]Buffer, int) {
	bs := slices.Clone(bufs)
	n := 0
	for _, i := range free {
		if off[i]+bs[i].Size <= y0 {
			bs[i].Fixed, bs[i].Offset = true, off[i]
		} else {
			n++
		}
	}
	return bs, n
}
