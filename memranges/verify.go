package memranges

import (
	"errors"
	"fmt"
)

// The verifiers are deliberately naive: they compare every pair of
// dispatches with the definition of a conflict (Conflicts, exact mode) and
// share no code with the tracker, the greedy placer, Reorder or Edges. They
// cost O(n^2) pair tests (VerifyEdges adds an O(n * e / 64) bitset
// reachability sweep) and report every violation.

// Verify checks that barriers bs make dispatch list ds safe: positions are
// strictly increasing in [1, len(ds)), and every conflicting pair i < j has a
// barrier at some position p with i < p <= j.
func Verify(ds []Dispatch, bs []Barrier) error {
	var errs []error
	// cut[p] = number of barriers at positions <= p.
	cut := make([]int, len(ds)+1)
	prev := 0
	for k, b := range bs {
		if b.Before < 1 || b.Before >= len(ds) || b.Before <= prev {
			errs = append(errs, fmt.Errorf("memranges: barrier %d at position %d: not strictly increasing in [1,%d): %w",
				k, b.Before, len(ds), ErrBarrier))
			continue
		}
		prev = b.Before
		cut[b.Before]++
	}
	for p := 1; p <= len(ds); p++ {
		cut[p] += cut[p-1]
	}
	eachConflict(Exact, ds, func(pr Pair) {
		if cut[pr.Second]-cut[pr.First] == 0 {
			errs = append(errs, fmt.Errorf("memranges: no barrier between dispatch %d %q and %d %q: %v: %w",
				pr.First, ds[pr.First].Name, pr.Second, ds[pr.Second].Name, pr, ErrBarrier))
		}
	})
	return errors.Join(errs...)
}

// VerifyEdges checks that edges es order every conflicting pair of ds: each
// edge points forward inside the list, and for every conflicting pair i < j
// there is a path of edges from i to j.
func VerifyEdges(ds []Dispatch, es []Edge) error {
	var errs []error
	n := len(ds)
	succ := make([][]int, n)
	for k, e := range es {
		if e.From < 0 || e.To >= n || e.From >= e.To {
			errs = append(errs, fmt.Errorf("memranges: edge %d %d->%d does not point forward inside [0,%d): %w",
				k, e.From, e.To, n, ErrEdge))
			continue
		}
		succ[e.From] = append(succ[e.From], e.To)
	}
	// reach[i] is the set of positions reachable from i, one bit each.
	// Positions only grow along edges, so a backward sweep fills each row
	// from rows already complete.
	words := (n + 63) / 64
	reach := make([][]uint64, n)
	for i := n - 1; i >= 0; i-- {
		reach[i] = make([]uint64, words)
		for _, j := range succ[i] {
			reach[i][j/64] |= 1 << (uint(j) % 64)
			for w, x := range reach[j] {
				reach[i][w] |= x
			}
		}
	}
	eachConflict(Exact, ds, func(pr Pair) {
		if reach[pr.First][pr.Second/64]&(1<<(uint(pr.Second)%64)) == 0 {
			errs = append(errs, fmt.Errorf("memranges: no edge path from dispatch %d %q to %d %q: %v: %w",
				pr.First, ds[pr.First].Name, pr.Second, ds[pr.Second].Name, pr, ErrEdge))
		}
	})
	return errors.Join(errs...)
}

// VerifyOrder checks that perm is a permutation of ds that keeps every
// conflicting pair of ds in its original relative order, so running the
// dispatches in the new order computes the same bytes.
func VerifyOrder(ds []Dispatch, perm []int) error {
	if err := checkPerm(len(ds), perm); err != nil {
		return err
	}
	pos := make([]int, len(ds))
	for k, i := range perm {
		pos[i] = k
	}
	var errs []error
	eachConflict(Exact, ds, func(pr Pair) {
		if pos[pr.First] > pos[pr.Second] {
			errs = append(errs, fmt.Errorf("memranges: reorder runs dispatch %d %q (now %d) before %d %q (now %d): %v: %w",
				pr.Second, ds[pr.Second].Name, pos[pr.Second], pr.First, ds[pr.First].Name, pos[pr.First], pr, ErrOrder))
		}
	})
	return errors.Join(errs...)
}
