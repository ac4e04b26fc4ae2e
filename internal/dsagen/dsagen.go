// Package dsagen generates dynamic storage allocation (DSA) instances for
// tests and benchmarks: blocks with a half-open lifespan [Start, End) in
// steps and a size in bytes, from a fixed seed.
//
// Three families:
//
//   - Synthetic(n): shaped like a model's trace (the size ladder of the
//     planner's benchmarks), optimum unknown.
//   - Rows(n, seed): uniformly random rows, fragmenting for fit placers
//     (the hostile corpus's million rows), optimum unknown.
//   - Packable(n, capacity, seed): a capacity x time rectangle cut into n
//     blocks by random guillotine cuts, so the blocks tile it exactly and
//     the optimum arena is the capacity (= the lower bound: every step's
//     live total is the capacity).
//
// Packable, worked: cut [0,8) x [0,16) across time at step 3, then the
// right part across bytes at 4:
//
//	16 +---+--------+
//	   |   |   c    |     a [0,3)  16 bytes at 0
//	 4 | a +--------+     b [3,8)   4 bytes at 0
//	   |   |   b    |     c [3,8)  12 bytes at 4
//	 0 +---+--------+
//	   0   3        8
//
// Every step has 16 bytes live; an arena of 16 holds them, as drawn.
//
// The package depends on nothing in the module, so the planner's own tests
// can use it.
package dsagen

import "math/rand/v2"

// Block is one buffer of an instance. Offset is where the generator put it
// (Packable: a placement of arena = capacity; Synthetic: 0).
type Block struct {
	Start, End, Size, Offset int64
}

// Synthetic returns n blocks shaped like a model's trace, from a fixed
// seed: a step per two blocks, mostly short lifespans (1-16 steps), one in
// 64 long-lived (up to 1% of the run), sizes log-uniform from 64 B to
// 4 MiB.
func Synthetic(n int) []Block {
	rng := rand.New(rand.NewPCG(uint64(n), 42))
	steps := int64(max(n/2, 1))
	bs := make([]Block, n)
	for i := range bs {
		start := rng.Int64N(steps)
		life := 1 + rng.Int64N(16)
		if rng.IntN(64) == 0 {
			life = 1 + rng.Int64N(max(steps/100, 1))
		}
		size := int64(64) << rng.IntN(17)
		size += rng.Int64N(size)
		bs[i] = Block{Start: start, End: start + life, Size: size}
	}
	return bs
}

// Rows returns n blocks with uniformly random lifespans (1 to 100 steps,
// starting in the first n/10 steps) and sizes (64 B to 64 KiB, multiples
// of 64), drawn from seed. About 500 blocks live at each step whatever n,
// of every size alike: first-fit and best-fit leave many small holes
// there, the costly case of their queries.
func Rows(n int, seed uint64) []Block {
	r := rand.New(rand.NewPCG(seed, 17))
	span := max(n/10, 1)
	bs := make([]Block, n)
	for i := range bs {
		lo := int64(r.IntN(span))
		end := lo + 1 + int64(r.IntN(100))
		bs[i] = Block{Start: lo, End: end, Size: 64 * int64(1+r.IntN(1024))}
	}
	return bs
}

// PackableGranule is the byte granule of Packable's cuts: every size and
// offset is a multiple of it.
const PackableGranule = 64

// Packable returns n blocks (fewer if the rectangle cannot be cut that
// often) tiling [0, steps) x [0, capacity), steps = n/2 + 1, by random
// guillotine cuts from seed: each cut takes a random block that can still
// be cut, and cuts it across time or across bytes (at a multiple of
// PackableGranule) at a uniform position. Blocks are returned in a random
// order, with their offsets in the tiling.
func Packable(n int, capacity int64, seed uint64) []Block {
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	steps := int64(n/2 + 1)
	units := capacity / PackableGranule
	bs := []Block{{Start: 0, End: steps, Size: units, Offset: 0}} // sizes in units while cutting
	for len(bs) < n {
		// A random block that can be cut one way or the other.
		var k int
		found := false
		for range 64 {
			k = rng.IntN(len(bs))
			if bs[k].End-bs[k].Start > 1 || bs[k].Size > 1 {
				found = true
				break
			}
		}
		if !found {
			break
		}
		b := bs[k]
		w := b.End - b.Start
		acrossTime := b.Size == 1 || (w > 1 && rng.IntN(2) == 0)
		if acrossTime {
			t := b.Start + 1 + rng.Int64N(w-1)
			bs[k].End = t
			bs = append(bs, Block{Start: t, End: b.End, Size: b.Size, Offset: b.Offset})
		} else {
			s := 1 + rng.Int64N(b.Size-1)
			bs[k].Size = s
			bs = append(bs, Block{Start: b.Start, End: b.End, Size: b.Size - s, Offset: b.Offset + s})
		}
	}
	for i := range bs {
		bs[i].Size *= PackableGranule
		bs[i].Offset *= PackableGranule
	}
	// The cut order says too much about the tiling: shuffle.
	rng.Shuffle(len(bs), func(i, j int) { bs[i], bs[j] = bs[j], bs[i] })
	return bs
}
