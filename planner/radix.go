package planner

import (
	"cmp"
	"slices"
	"sync"
)

// radixSort sorts keys in increasing order and permutes vals (nil, or as
// long as keys) the same way, stably: equal keys keep their relative
// order. It is a least-significant-digit radix sort, a byte per pass,
// that skips the bytes every key shares: O(n) per pass, at most eight
// passes, and twice the memory of keys and vals while it runs.
//
// The sorts of a million-buffer plan (the lower bound's events, the fit
// order, the cuts, the verifier's sweep) take a comparison sort about
// 20 comparisons an element, each a call; a pass here is two reads and a
// write an element.
//
// Example: keys {3, 1, 3, 0} with vals {a, b, c, d} become {0, 1, 3, 3}
// and {d, b, a, c}: a stays before c.
func radixSort[K ~int64 | ~uint64, V any](keys []K, vals []V) {
	n := len(keys)
	if n < 2 {
		return
	}
	// Signed keys sort by their bits with the sign bit flipped.
	var zero, one K = 0, 1
	var flip uint64
	if zero-one < zero {
		flip = 1 << 63
	}
	var count [8][256]int
	for _, k := range keys {
		u := uint64(k) ^ flip
		for d := range 8 {
			count[d][byte(u>>(8*d))]++
		}
	}
	ok, ov := keys, vals // the caller's slices
	var tk []K
	var tv []V
	for d := range 8 {
		c := &count[d]
		if c[byte((uint64(keys[0])^flip)>>(8*d))] == n {
			continue // every key has this byte
		}
		if tk == nil {
			tk = make([]K, n)
			if vals != nil {
				tv = make([]V, n)
			}
		}
		sum := 0
		for b := range c {
			c[b], sum = sum, sum+c[b]
		}
		shift := 8 * d
		if vals == nil {
			for _, k := range keys {
				b := byte((uint64(k) ^ flip) >> shift)
				tk[c[b]] = k
				c[b]++
			}
		} else {
			for j, k := range keys {
				b := byte((uint64(k) ^ flip) >> shift)
				tk[c[b]] = k
				tv[c[b]] = vals[j]
				c[b]++
			}
		}
		keys, tk = tk, keys
		vals, tv = tv, vals
	}
	if &keys[0] != &ok[0] {
		// An odd number of passes left the result in the scratch.
		copy(ok, keys)
		copy(ov, vals)
	}
}

// sortByKey sorts keys in increasing order and permutes vals the same
// way, stably: radixSort from radixFrom elements, a comparison sort
// below (radixSort's counts cost more than a few dozen elements do).
func sortByKey[V any](keys []int64, vals []V, radixFrom int) {
	if len(keys) >= radixFrom {
		radixSort(keys, vals)
		return
	}
	type kv struct {
		k int64
		j int // the position before sorting: ties keep their order
		v V
	}
	kvs := make([]kv, len(keys))
	for j := range keys {
		kvs[j] = kv{keys[j], j, vals[j]}
	}
	slices.SortFunc(kvs, func(a, b kv) int {
		if c := cmp.Compare(a.k, b.k); c != 0 {
			return c
		}
		return cmp.Compare(a.j, b.j)
	})
	for j, e := range kvs {
		keys[j], vals[j] = e.k, e.v
	}
}

// sortStartsEnds sorts the starts (st, with sv alongside) and the ends
// (et, ev) with sortByKey, on two goroutines from radixMin of them.
func sortStartsEnds[V any](st []int64, sv []V, et []int64, ev []V, radixFrom int) {
	if len(st) < radixMin {
		sortByKey(st, sv, radixFrom)
		sortByKey(et, ev, radixFrom)
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { sortByKey(et, ev, radixFrom) })
	sortByKey(st, sv, radixFrom)
	wg.Wait()
}

// radixSmall is the length from which sortByKey's callers (the lower
// bound, the verifier's sweep) radix-sort: on challenging J's buffers the
// lower bound's radix sorts take longer at 16 buffers and less from 64
// on, about a third of the time at all 409 (BenchmarkLowerBoundSorts,
// 2026-11-28).
const radixSmall = 64
