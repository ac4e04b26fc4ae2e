package memranges

import "fmt"

// ggml-metal's own reorder, simulated
//
// llama.cpp's Metal backend improves concurrency with a greedy pass of its
// own before encoding: it opens a group with the first dispatch not yet
// issued and scans at most a fixed number of dispatches ahead (64); a
// scanned dispatch joins the group when it conflicts neither with the group
// nor with any dispatch it would jump over (those it scanned and left
// behind), and otherwise is left behind. When the scan ends the group is
// issued and a barrier follows. Its conflict test is the GGML mode on
// whole-root ranges (BuildOptions.WholeRoot). GGMLWindowOrder reproduces
// the pass so that reports can set what ggml would reach on the same plan
// beside memplan's optimum (Reorder: critical path - 1 barriers).
//
//	window 2, dispatches #0 #1 #2 #3, #1 reads what #0 writes:
//	group {#0}: scan #1 (RAW with #0, left behind), #2 (window full)
//	-> #0 issued alone; group {#1, #2?} ...
//
// It is a simulation for reports: the order it returns keeps every
// conflicting pair (in the mode it is given) in order, which VerifyOrder
// checks.

// GGMLWindow is the look-ahead of ggml-metal's reorder pass.
const GGMLWindow = 64

// GGMLWindowOrder returns the order ggml's greedy windowed reorder gives
// ds (a permutation, as from Reorder) and the positions of the barriers
// it issues between its groups, using conflict test m.
func GGMLWindowOrder(m Mode, ds []Dispatch, window int) (perm []int, barriers []int, err error) {
	if window < 1 {
		return nil, nil, fmt.Errorf("memranges: ggml window %d: want at least 1: %w", window, ErrOptions)
	}
	used := make([]bool, len(ds))
	group, behind := NewTracker(m), NewTracker(m)
	perm = make([]int, 0, len(ds))
	first := 0
	for first < len(ds) {
		if len(perm) > 0 {
			barriers = append(barriers, len(perm))
		}
		group.Reset()
		behind.Reset()
		scanned := 0
		for j := first; j < len(ds) && scanned < window; j++ {
			if used[j] {
				continue
			}
			scanned++
			if bad, _ := group.Check(ds[j].Uses); !bad {
				if bad, _ = behind.Check(ds[j].Uses); !bad {
					group.Add(ds[j].Uses)
					used[j] = true
					perm = append(perm, j)
					continue
				}
			}
			behind.Add(ds[j].Uses)
		}
		for first < len(ds) && used[first] {
			first++
		}
	}
	return perm, barriers, nil
}
