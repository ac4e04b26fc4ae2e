package planner

// Independent parts in time.
//
// When no buffer is live across some step boundary t (every buffer ends by
// t or starts at t or later), the buffers before t and those after share
// no step, so they can be placed apart: the arena is the larger of the
// two. Search (not under a work cap) cuts the instance at every such
// boundary and searches each part alone, smallest first, with a share of
// the budget in proportion to its buffers (what a part leaves unused goes
// to the parts searched after it, so the largest get what the small ones,
// often placed at once, leave), and stops once it is within the whole
// instance's lower bound (a part's own bound may be lower, and nothing is
// gained below the whole's). Each part gets the whole search: an exact
// search, a tiling or squeaky-wheel passes over one part are not
// distracted by the others, whose lowest segments and offenders interleave
// with its own otherwise.
// What is left at the end goes to a second run of the parts that make
// the arena (above the bound and not proven), each from its placement.
// Parts smaller than one 64th of the instance are joined to their
// neighbours, so a trace with thousands of cuts is searched in at most 64
// parts.
//
// Example: the packable instance p1000 falls into 8 parts (376, 13, 8, 23,
// 12, 21, 49 and 498 buffers), 6 once those under 16 buffers are joined
// (376, 21, 23, 33, 49 and 498); the search places each at LB.

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"time"
)

// srchMaxParts bounds the parts searched apart; srchMinRerun is the
// least time left over worth a second run of a part.
const (
	srchMaxParts = 64
	srchMinRerun = 200 * time.Millisecond
)

// timeParts returns the buffers of bufs by independent part in time (no
// buffer of one part is live in another's steps), in time order, joined so
// that each part has at least len(bufs)/srchMaxParts buffers; nil when
// there is only one.
func timeParts(bufs []Buffer) [][]int {
	idx := identity(len(bufs))
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(bufs[a].Start, bufs[b].Start) })
	least := max(1, (len(bufs)+srchMaxParts-1)/srchMaxParts)
	var parts [][]int
	var cur []int
	var reach int64
	for _, i := range idx {
		if len(cur) >= least && bufs[i].Start >= reach {
			parts = append(parts, cur)
			cur = nil
		}
		if len(cur) == 0 {
			reach = bufs[i].End
		}
		reach = max(reach, bufs[i].End)
		cur = append(cur, i)
	}
	if len(parts) > 0 && len(cur) < least {
		parts[len(parts)-1] = append(parts[len(parts)-1], cur...)
	} else {
		parts = append(parts, cur)
	}
	if len(parts) < 2 {
		return nil
	}
	return parts
}

// searchParts runs Search on each part of bufs alone and puts the
// placements together.
func searchParts(ctx context.Context, bufs []Buffer, parts [][]int, cfg SearchConfig, budget time.Duration) (*SearchResult, error) {
	begin := time.Now()
	res := &SearchResult{Offsets: make([]int64, len(bufs)), Parts: len(parts)}
	// Every part aims at the whole instance's lower bound: a part whose
	// own bound is lower gains nothing below it.
	floor := searchLB(bufs)
	left := len(bufs)
	init := cfg.Initial
	runs := make([]*SearchResult, len(parts))
	run := func(k int, share time.Duration, method string) error {
		p := parts[k]
		sub := make([]Buffer, len(p))
		for j, i := range p {
			sub[j] = bufs[i]
		}
		var pinit []int64
		if init != nil {
			pinit = make([]int64, len(p))
			for j, i := range p {
				pinit[j] = init[i]
			}
		}
		pcfg := SearchConfig{Initial: pinit, InitialMethod: method, end: cfg.end, noRenew: cfg.noRenew, flowBands: cfg.flowBands}
		if cfg.Progress != nil {
			pcfg.Progress = &partProgress{w: cfg.Progress, part: fmt.Sprintf("part %d of %d: ", k+1, len(parts))}
		}
		r, err := search(ctx, sub, pcfg, share, floor)
		if err != nil {
			return fmt.Errorf("planner: search: part %d of %d: %w", k+1, len(parts), err)
		}
		for j, i := range p {
			res.Offsets[i] = r.Offsets[j]
		}
		res.Nodes += r.Nodes
		runs[k] = r
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "search: part %d of %d (%d buffers): arena %d  LB %d  %.1fs\n",
				k+1, len(parts), len(p), r.Arena, r.LB, time.Since(begin).Seconds())
		}
		return nil
	}
	// Smallest first (ties in time order): challenging E falls into parts
	// of 131 and 84 buffers; in time order the 131 had 61% of the budget
	// and sometimes ended above LB, which it reaches with the 84's rest.
	order := identity(len(parts))
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(len(parts[a]), len(parts[b])) })
	for _, k := range order {
		p := parts[k]
		share := max((budget-time.Since(begin))*time.Duration(len(p))/time.Duration(left), time.Millisecond)
		if err := run(k, share, cfg.InitialMethod); err != nil {
			return nil, err
		}
		left -= len(p)
	}
	// Time the parts left unused goes to the parts that make the arena
	// (above the floor and not proven), each starting from its placement.
	init = res.Offsets
	top := slices.MaxFunc(runs, func(a, b *SearchResult) int { return cmp.Compare(a.Arena, b.Arena) }).Arena
	var worst []int
	for k, r := range runs {
		if r.Arena == top && r.Arena > floor && !r.Optimal {
			worst = append(worst, k)
		}
	}
	for n, k := range worst {
		rest := budget - time.Since(begin)
		if rest < srchMinRerun || ctx.Err() != nil {
			break
		}
		if err := run(k, rest/time.Duration(len(worst)-n), runs[k].Method); err != nil {
			return nil, err
		}
	}
	provenPart := false // a part whose arena is the largest is proven minimal
	for k, r := range runs {
		if r.Arena > res.Arena || k == 0 {
			res.Method = r.Method
		}
		if r.Arena > res.Arena {
			res.Arena, provenPart = r.Arena, r.Optimal
		} else if r.Arena == res.Arena {
			provenPart = provenPart || r.Optimal
		}
	}
	// The whole arena is optimal when it is the lower bound, or when a part
	// that needs it is proven to.
	res.LB = floor
	res.Optimal = res.Arena <= res.LB || provenPart
	return res, nil
}

// partProgress names the part in each of a part's progress lines.
type partProgress struct {
	w    io.Writer
	part string
}

func (p *partProgress) Write(b []byte) (int, error) {
	line, ok := bytes.CutPrefix(b, []byte("search: "))
	if !ok {
		return p.w.Write(b)
	}
	if _, err := fmt.Fprintf(p.w, "search: %s%s", p.part, line); err != nil {
		return 0, err
	}
	return len(b), nil
}
