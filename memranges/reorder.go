package memranges

import (
	"fmt"
	"sort"
)

// Reorder finds an order of the dispatches that needs the fewest barriers.
//
// Any order that keeps every conflicting pair in its original relative order
// is correct (see ConflictDAG). In any such order, the dispatches of a
// longest conflict chain (c dispatches) stay in chain order and each
// consecutive pair needs a barrier between them, so every order needs at
// least c-1 barriers. Sorting by ASAP level reaches that bound: no two
// dispatches of a level conflict, so a barrier between consecutive levels
// suffices, and there are c levels. This is Mirsky's theorem (a poset's
// height equals the fewest antichains that cover it) used constructively.
// Within a level the original order is kept, so ties are deterministic and
// the reorder is the identity when no dispatch can move.
//
//	original          levels             reordered (1 barrier)
//	#0 write A        #0 1               #0 write A   #1 write B
//	#1 read A  (RAW)  #1 2               --- barrier ---
//	#2 write B        #2 1               #1 read A    #3 read B
//	#3 read B  (RAW)  #3 2
//	needs 2 barriers in the original order, 1 after reordering.
//
// Window bounds movement, to keep the planner's memory pressure roughly as
// planned: with Window w > 0 a dispatch is never placed before one that
// came more than w positions earlier. ASAP levels with the extra constraint
// level(j) >= level(i) for every i < j-w keep each dispatch within w
// positions of where it was (everything more than w before it still comes
// first; everything more than w after it still comes later), and are the
// fewest levels under that rule. The bound c-1 may then not be reached.

// ReorderOptions tunes Reorder.
type ReorderOptions struct {
	// Window, when positive, bounds how far a dispatch may move from its
	// original position. Zero means unbounded; negative is an error.
	Window int
}

// Reorder returns a permutation perm of ds (position k of the new order runs
// ds[perm[k]]) that keeps every conflicting pair in order and minimises the
// number of barriers (CriticalPath-1 when Window is 0), with the level of
// each dispatch (indexed like ds).
func Reorder(ds []Dispatch, opts ReorderOptions) (perm, levels []int, err error) {
	if opts.Window < 0 {
		return nil, nil, fmt.Errorf("memranges: reorder window %d is negative: %w", opts.Window, ErrOptions)
	}
	preds := ConflictDAG(ds)
	lv := Levels(preds)
	if w := opts.Window; w > 0 {
		// prefixMax[k] = max level among positions < k, updated as we go.
		prefixMax := make([]int, len(ds)+1)
		for j := range ds {
			l := lv[j]
			for _, i := range preds[j] {
				l = max(l, lv[i]+1)
			}
			if j-w > 0 {
				l = max(l, prefixMax[j-w])
			}
			lv[j] = l
			prefixMax[j+1] = max(prefixMax[j], l)
		}
	}
	perm = make([]int, len(ds))
	for i := range perm {
		perm[i] = i
	}
	sort.SliceStable(perm, func(a, b int) bool { return lv[perm[a]] < lv[perm[b]] })
	return perm, lv, nil
}

// Permute returns the dispatches of ds in the order perm gives (as from
// Reorder), sharing their Uses slices.
func Permute(ds []Dispatch, perm []int) ([]Dispatch, error) {
	if err := checkPerm(len(ds), perm); err != nil {
		return nil, err
	}
	out := make([]Dispatch, len(ds))
	for k, i := range perm {
		out[k] = ds[i]
	}
	return out, nil
}

func checkPerm(n int, perm []int) error {
	if len(perm) != n {
		return fmt.Errorf("memranges: permutation has %d entries for %d dispatches: %w", len(perm), n, ErrOrder)
	}
	seen := make([]bool, n)
	for k, i := range perm {
		if i < 0 || i >= n || seen[i] {
			return fmt.Errorf("memranges: permutation entry %d is %d, out of range or repeated: %w", k, i, ErrOrder)
		}
		seen[i] = true
	}
	return nil
}
