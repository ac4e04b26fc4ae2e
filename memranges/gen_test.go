package memranges

import (
	"math/bits"

	"pgregory.net/rapid"
)

// genDispatches draws a small random dispatch list: up to maxN dispatches,
// each with one to three uses on one of three buffers, over a 36-byte space
// so that overlaps, touches and disjoint ranges are all common; about one
// use in 30 has an invalid buffer, to exercise the conservative path.
func genDispatches(t *rapid.T, maxN int) []Dispatch {
	n := rapid.IntRange(0, maxN).Draw(t, "n")
	ds := make([]Dispatch, n)
	for i := range ds {
		k := rapid.IntRange(1, 3).Draw(t, "uses")
		ds[i].Node = -1
		for range k {
			// Coarse 4-byte steps make touching ranges common (where ggml's
			// test differs); fine steps give partial overlaps.
			step := int64(rapid.SampledFrom([]int{4, 4, 1}).Draw(t, "step"))
			u := Use{
				Range: Range{
					Buf: BufferID(rapid.IntRange(-1, 29).Draw(t, "buf") % 3),
					Off: step * int64(rapid.IntRange(0, int(24/step)).Draw(t, "off")),
					Len: step * int64(rapid.IntRange(0, int(12/step)).Draw(t, "len")),
				},
				Access: Access(rapid.IntRange(0, 1).Draw(t, "acc")),
				Value:  -1,
			}
			ds[i].Uses = append(ds[i].Uses, u)
		}
	}
	return ds
}

// bruteMinBarriers tries every set of cut positions (bit p-1 set = barrier
// before position p) and returns the fewest cuts that separate every
// conflicting pair under mode m.
func bruteMinBarriers(m Mode, ds []Dispatch) int {
	n := len(ds)
	if n < 2 {
		return 0
	}
	type pr struct{ i, j int }
	var pairs []pr
	for j := range n {
		for i := range j {
			if _, ok := Conflicts(m, &ds[i], &ds[j]); ok {
				pairs = append(pairs, pr{i, j})
			}
		}
	}
	best := n
	for cuts := uint(0); cuts < 1<<(n-1); cuts++ {
		c := bits.OnesCount(cuts)
		if c >= best {
			continue
		}
		ok := true
		for _, p := range pairs {
			// cut bits for positions i+1..j are bits i..j-1.
			mask := (uint(1)<<(p.j) - 1) &^ (uint(1)<<(p.i) - 1)
			if cuts&mask == 0 {
				ok = false
				break
			}
		}
		if ok {
			best = c
		}
	}
	return best
}

// bruteLongestChain returns the number of dispatches on the longest chain
// of conflicting pairs (exact mode), by plain recursion over every pair.
func bruteLongestChain(ds []Dispatch) int {
	memo := make([]int, len(ds))
	var from func(i int) int
	from = func(i int) int {
		if memo[i] > 0 {
			return memo[i]
		}
		best := 1
		for j := i + 1; j < len(ds); j++ {
			if _, ok := Conflicts(Exact, &ds[i], &ds[j]); ok {
				best = max(best, 1+from(j))
			}
		}
		memo[i] = best
		return best
	}
	best := 0
	for i := range ds {
		best = max(best, from(i))
	}
	return best
}
