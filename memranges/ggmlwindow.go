package memranges

import "fmt"

// ggml-metal's own reorder, simulated
//
// llama.cpp's Metal backend reorders a graph for concurrency before it
// encodes it, greedily. It walks the dispatches in order, growing a
// concurrent set. A dispatch that conflicts with the set cannot join it;
// before closing the set (a barrier), the pass looks at the next
// dispatches, up to GGMLWindow positions from the blocked one, and pulls
// into the set each one that conflicts neither with the set nor with any
// dispatch it would jump over (the blocked one and those scanned and left
// behind). Then the set closes, and the blocked dispatch opens the next.
// Its conflict test is GGML mode on whole-root ranges
// (BuildOptions.WholeRoot). GGMLWindowOrder reproduces the pass so that
// reports can set what ggml would reach on the same plan beside memplan's
// optimum (Reorder: critical path - 1 barriers).
//
//	#0 write A   set {#0}
//	#1 read A    RAW with the set: look ahead from #2
//	#2 write B   free of the set and of #1: pulled in, set {#0, #2}
//	#3 read B    RAW with #2: left behind
//	             barrier; set {#1}, #3 joins it: 1 barrier in all
//
// One simplification: ggml stops looking ahead at an op outside a list of
// ops it deems safe to move (matrix products, norms, elementwise ops,
// rope, row gathers, copies), which memranges, free of op names, cannot
// tell; here every dispatch may move, so the figure is the best ggml's
// pass could reach. The order it returns keeps every conflicting pair (in
// the mode it is given) in order, which VerifyOrder checks.

// GGMLWindow is the look-ahead of ggml-metal's reorder pass (its
// N_FORWARD): the blocked dispatch and the next GGMLWindow-1 positions.
const GGMLWindow = 64

// GGMLWindowOrder returns the order ggml's greedy windowed reorder gives
// ds (a permutation, as from Reorder) and the positions of the barriers
// it closes its sets with, using conflict test m. A window of 1 looks at
// nothing ahead and keeps the order.
func GGMLWindowOrder(m Mode, ds []Dispatch, window int) (perm []int, barriers []int, err error) {
	if window < 1 {
		return nil, nil, fmt.Errorf("memranges: ggml window %d: want at least 1: %w", window, ErrOptions)
	}
	used := make([]bool, len(ds))
	set, behind := NewTracker(m), NewTracker(m)
	perm = make([]int, 0, len(ds))
	for i0 := range ds {
		if used[i0] {
			continue
		}
		if bad, _ := set.Check(ds[i0].Uses); bad {
			behind.Reset()
			behind.Add(ds[i0].Uses)
			for i1 := i0 + 1; i1 < i0+window && i1 < len(ds); i1++ {
				if used[i1] {
					continue
				}
				if bad, _ := set.Check(ds[i1].Uses); !bad {
					if bad, _ = behind.Check(ds[i1].Uses); !bad {
						set.Add(ds[i1].Uses)
						perm = append(perm, i1)
						used[i1] = true
						continue
					}
				}
				behind.Add(ds[i1].Uses)
			}
			set.Reset()
			barriers = append(barriers, len(perm))
		}
		set.Add(ds[i0].Uses)
		perm = append(perm, i0)
		used[i0] = true
	}
	return perm, barriers, nil
}
