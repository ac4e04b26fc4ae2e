package ir

import (
	"fmt"
	"slices"
)

// Roots resolves every value's view chain at once: roots[v] is the value
// that owns v's storage and offs[v] the byte offset of v's start inside it,
// as Root returns them. Each value is walked once (resolved prefixes are
// reused), so a graph with a 100k-deep chain of views costs linear time,
// where calling Root for every value would be quadratic. Offsets saturate
// far beyond MaxBytes instead of wrapping. A broken or cyclic chain returns
// an error naming the first value (by ID) whose chain fails.
func (g *Graph) Roots() (roots []ValueID, offs []int64, err error) {
	roots, offs, cause := viewChains(g, nil)
	for i, c := range cause {
		if c != nil {
			return nil, nil, &ValueError{Value: ValueID(i), Name: g.Values[i].Name, Err: fmt.Errorf("view chain: %w", c)}
		}
	}
	return roots, offs, nil
}

// viewChains is the one walk of view chains, for Roots and the
// validator: root[v] and off[v] as Roots returns them, and cause[v] the
// defect that v's chain reaches (nil where it ends at a root). Each defect
// goes to bad (when not nil) once, at the value it belongs to: a cycle at
// its smallest member, a view of an undefined value at that view.
//
// Example: a view v (ID 2) of root r (ID 0) at +8, and a view w (ID 3) of
// v at +4: root[3] = 0, off[3] = 12. With r's view set to w instead, r, v
// and w form a cycle: bad(0, ...ErrCycle) once, and all three causes are
// that error.
func viewChains(g *Graph, bad func(ValueID, error)) (root []ValueID, off []int64, cause []error) {
	n := len(g.Values)
	root = make([]ValueID, n)
	off = make([]int64, n)
	cause = make([]error, n)
	state := make([]uint8, n) // 0 new, 1 on the current path, 2 done
	report := func(id ValueID, err error) {
		if bad != nil {
			bad(id, err)
		}
	}
	var path []ValueID
	for i := range g.Values {
		if g.Values[i] == nil {
			cause[i] = fmt.Errorf("value %d is not defined: %w", i, ErrUndefined)
			continue
		}
		path = path[:0]
		cur := ValueID(i)
		var end error // the defect the walk ran into, if any
		// Walk to a root, a resolved value, or trouble.
		for state[cur] != 2 {
			v := g.Values[cur]
			if state[cur] == 1 {
				k := slices.Index(path, cur)
				cyc := slices.Clone(path[k:])
				end = fmt.Errorf("view chain %v returns to itself: %w", cyc, ErrCycle)
				report(slices.Min(cyc), end)
				break
			}
			state[cur] = 1
			path = append(path, cur)
			if v.View == nil {
				root[cur] = cur
				break
			}
			base := v.View.Base
			if g.Value(base) == nil {
				end = fmt.Errorf("view of value %d, which is not defined: %w", base, ErrUndefined)
				report(cur, end)
				break
			}
			cur = base
		}
		// Resolve the path backwards from its end.
		for j := len(path) - 1; j >= 0; j-- {
			p := path[j]
			state[p] = 2
			v := g.Values[p]
			if v.View == nil {
				continue
			}
			b := v.View.Base
			switch {
			case end != nil && j == len(path)-1:
				cause[p] = end
			case cause[b] != nil:
				cause[p] = cause[b]
			default:
				root[p], off[p] = root[b], satAdd(off[b], clamp(v.View.OffsetBytes))
			}
		}
	}
	return root, off, cause
}
