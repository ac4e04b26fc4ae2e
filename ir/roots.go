package ir

import "fmt"

// Roots resolves every value's view chain at once: roots[v] is the value
// that owns v's storage and offs[v] the byte offset of v's start inside it,
// as Root returns them. Each value is walked once (resolved prefixes are
// reused), so a graph with a 100k-deep chain of views costs linear time,
// where calling Root for every value would be quadratic. Offsets saturate
// far beyond MaxBytes instead of wrapping. A broken or cyclic chain returns
// an error naming the first value (by ID) whose chain fails.
func (g *Graph) Roots() (roots []ValueID, offs []int64, err error) {
	n := len(g.Values)
	roots = make([]ValueID, n)
	offs = make([]int64, n)
	state := make([]uint8, n) // 0 new, 1 on the current path, 2 resolved
	var path []ValueID
	for i := range g.Values {
		path = path[:0]
		cur := ValueID(i)
		for {
			v := g.Value(cur)
			if v == nil {
				return nil, nil, &ValueError{Value: ValueID(i), Name: g.Values[i].Name, Err: fmt.Errorf("view chain reaches value %d: %w", cur, ErrUndefined)}
			}
			if state[cur] == 2 {
				break
			}
			if state[cur] == 1 {
				return nil, nil, &ValueError{Value: ValueID(i), Name: g.Values[i].Name, Err: fmt.Errorf("view chain: %w", ErrCycle)}
			}
			state[cur] = 1
			path = append(path, cur)
			if v.View == nil {
				roots[cur], offs[cur], state[cur] = cur, 0, 2
				path = path[:len(path)-1]
				break
			}
			cur = v.View.Base
		}
		// cur is resolved; unwind the path from its end.
		for k := len(path) - 1; k >= 0; k-- {
			p := path[k]
			roots[p] = roots[cur]
			offs[p] = satAdd(offs[cur], clamp(g.Values[p].View.OffsetBytes))
			state[p] = 2
			cur = p
		}
	}
	return roots, offs, nil
}
