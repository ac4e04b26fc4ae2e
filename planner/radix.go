package planner

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
