package ir

// The ordering passes of Validate (6 and 7). The dependencies are those of
// Graph.Deps: a node depends on the producers of what it reads and keeps
// alive, through view chains. They must form a DAG, and an explicit schedule
// must respect them. Kahn's algorithm orders what it can; the nodes left
// over lie on a cycle or behind one, and a walk back through the smallest
// leftover dependency from each closes one cycle to report. Example: with
// edges a -> b, b -> c, c -> b, Kahn's algorithm orders a and leaves {b, c},
// and the walk from b reports the cycle (b, c) once, on its smallest ID.

import "slices"

// dependencies reports node cycles, through view chains.
func (c *checker) dependencies() {
	// Deps leaves out a node's dependence on itself: find those first.
	for i, n := range c.g.Nodes {
		if n == nil {
			continue
		}
		seen := map[NodeID]bool{}
		for _, lists := range [2][]ValueID{n.Inputs, n.KeepAlive} {
			for _, v := range lists {
				_ = c.g.producersOf(v, seen) // errors reported by earlier passes
			}
		}
		if seen[NodeID(i)] {
			c.cyclic = true
			c.nodeErr(NodeID(i), "reads its own output: a cycle of one node: %w", ErrCycle)
		}
	}
	deps, _ := c.g.Deps() // broken references are reported by earlier passes
	left := unorderable(deps)
	if len(left) == 0 {
		return
	}
	c.cyclic = true
	inLeft := make([]bool, len(c.g.Nodes))
	for _, n := range left {
		inLeft[n] = true
	}
	reported := make([]bool, len(c.g.Nodes))
	for _, start := range left {
		if reported[start] {
			continue
		}
		// Every leftover node has a leftover dependency; walk back through
		// the smallest ones until a node repeats: that closes a cycle.
		pos := map[NodeID]int{}
		var walk []NodeID
		cur := start
		for {
			if k, seen := pos[cur]; seen {
				cyc := slices.Clone(walk[k:])
				fresh := true
				for _, m := range cyc {
					fresh = fresh && !reported[m]
				}
				if fresh {
					least := slices.Min(cyc)
					slices.Reverse(cyc) // walked backwards; print in flow order
					c.nodeErr(least, "nodes %v form a cycle: %w", cyc, ErrCycle)
				}
				break
			}
			if reported[cur] {
				break
			}
			pos[cur] = len(walk)
			walk = append(walk, cur)
			next := NodeID(-1)
			for _, d := range deps[cur] {
				if d >= 0 && int(d) < len(inLeft) && inLeft[d] && (next < 0 || d < next) {
					next = d
				}
			}
			if next < 0 {
				break // cannot happen for a Kahn leftover; stop safely
			}
			cur = next
		}
		for _, m := range walk {
			reported[m] = true
		}
	}
}

// schedule checks g.Order against the dependencies.
func (c *checker) schedule() {
	if c.g.Order == nil || c.cyclic {
		return
	}
	// Dependencies are only well defined on a sound structure; a broken
	// reference or view chain has been reported already.
	for i, n := range c.g.Nodes {
		if n == nil || !c.okNode[i] {
			return
		}
	}
	for i, v := range c.g.Values {
		if v == nil || c.chainErr[i] != nil {
			return
		}
	}
	if err := c.g.CheckSchedule(c.g.Order); err != nil {
		c.errs = append(c.errs, err)
	}
}

// unorderable returns the nodes Kahn's algorithm cannot order (those on a
// cycle or downstream of one), ascending.
func unorderable(deps [][]NodeID) []NodeID {
	indeg := make([]int, len(deps))
	users := make([][]NodeID, len(deps))
	for n, ds := range deps {
		for _, d := range ds {
			if d >= 0 && int(d) < len(deps) {
				indeg[n]++
				users[d] = append(users[d], NodeID(n))
			}
		}
	}
	var ready []NodeID
	for n, d := range indeg {
		if d == 0 {
			ready = append(ready, NodeID(n))
		}
	}
	for len(ready) > 0 {
		n := ready[len(ready)-1]
		ready = ready[:len(ready)-1]
		for _, u := range users[n] {
			if indeg[u]--; indeg[u] == 0 {
				ready = append(ready, u)
			}
		}
	}
	var left []NodeID
	for n, d := range indeg {
		if d > 0 {
			left = append(left, NodeID(n))
		}
	}
	return left
}
