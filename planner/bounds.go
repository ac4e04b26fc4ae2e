package planner

import (
	"cmp"
	"math"
	"slices"
)

// LowerBound returns the peak over time of the sum of the sizes of the
// buffers live at that step: no valid placement has a smaller arena, because
// the buffers live at the peak step are pairwise disjoint inside it.
//
// Sizes are taken as given. PlanGraph has already rounded every size up to
// the alignment (all graph buffers share one alignment), so for graph plans
// this is the peak of aligned live sizes. For a DSA instance with mixed
// alignments the sizes are NOT rounded: rounding could exceed the optimum
// (a 10-byte buffer aligned to 64 and a 54-byte unaligned buffer live together
// fit in 64 bytes, while rounded sizes sum to 118), and a lower bound must
// never exceed the optimum.
//
// Buffers with End <= Start contribute nothing.
func LowerBound(bufs []Buffer) int64 { return lowerBound(bufs, radixSmall) }

// lowerBound is LowerBound, its sorts radix sorts from radixFrom buffers
// (sortStartsEnds).
func lowerBound(bufs []Buffer, radixFrom int) int64 {
	n := len(bufs)
	st, et := make([]int64, 0, n), make([]int64, 0, n) // start and end times
	ss := make([]int64, 0, n)                          // their sizes
	for _, b := range bufs {
		if b.End > b.Start && b.Size > 0 {
			st, et = append(st, b.Start), append(et, b.End)
			ss = append(ss, b.Size)
		}
	}
	es := slices.Clone(ss)
	sortStartsEnds(st, ss, et, es, radixFrom)
	// Merge by time; at equal times ends come first (half-open lifespans).
	var cur, peak int64
	j := 0
	for i, t := range st {
		for j < len(et) && et[j] <= t {
			cur = satAdd(cur, -es[j])
			j++
		}
		cur = satAdd(cur, ss[i])
		peak = max(peak, cur)
	}
	return peak
}

// radixMin is the length from which the planner's large-input sorts use
// radixSort instead of a comparison sort.
const radixMin = 4096

// liveSteps calls visit once per distinct start or end time of the buffers
// of positive size, in ascending order, with the live total from that time
// on; last marks the final time, after which nothing is live.
func liveSteps(bufs []Buffer, visit func(t, live int64, last bool)) {
	type event struct{ t, size int64 }
	ev := make([]event, 0, 2*len(bufs))
	for _, b := range bufs {
		if b.End > b.Start && b.Size > 0 {
			ev = append(ev, event{b.Start, b.Size}, event{b.End, -b.Size})
		}
	}
	slices.SortFunc(ev, func(a, b event) int { return cmp.Compare(a.t, b.t) })
	var live int64
	for k := 0; k < len(ev); {
		t := ev[k].t
		for ; k < len(ev) && ev[k].t == t; k++ {
			live += ev[k].size
		}
		visit(t, live, k == len(ev))
	}
}

// ArenaSize returns the arena a placement needs: the largest offset+size over
// buffers of positive size (0 when there are none). offsets is index-aligned
// with bufs; missing offsets count as 0.
func ArenaSize(bufs []Buffer, offsets []int64) int64 {
	var top int64
	for i, b := range bufs {
		if b.Size <= 0 {
			continue
		}
		var off int64
		if i < len(offsets) {
			off = offsets[i]
		}
		top = max(top, satAdd(off, b.Size))
	}
	return top
}

// UnsharedSize returns the sum of the sizes: the arena needed when no two
// buffers share memory.
func UnsharedSize(bufs []Buffer) int64 {
	var sum int64
	for _, b := range bufs {
		if b.Size > 0 {
			sum = satAdd(sum, b.Size)
		}
	}
	return sum
}

// alignOf returns the effective alignment (at least 1).
func alignOf(b *Buffer) int64 {
	if b.Align > 1 {
		return b.Align
	}
	return 1
}

// alignUp rounds x up to a multiple of a (a >= 1), saturating.
func alignUp(x, a int64) int64 {
	if a <= 1 {
		return x
	}
	r := x % a
	if r == 0 {
		return x
	}
	return satAdd(x, a-r)
}

// satAdd adds without wrapping past math.MaxInt64 or math.MinInt64.
func satAdd(a, b int64) int64 {
	s := a + b
	if a > 0 && b > 0 && s < 0 {
		return math.MaxInt64
	}
	if a < 0 && b < 0 && s >= 0 {
		return math.MinInt64
	}
	return s
}
