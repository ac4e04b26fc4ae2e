package planner

// Circulations with bounds, kept feasible one change at a time: the
// relaxation behind the flow band search (flowband.go).
//
// Nodes are step boundaries, arcs are buffers (from the boundary where one
// starts to the one where it ends) plus whatever the caller adds. Arc e
// carries a flow f[e] within [lo[e], hi[e]], and at every node inflow
// equals outflow. Setting an arc's bounds to one value v moves its flow
// from f to v, which leaves one end with a surplus and the other with a
// deficit of |f - v|: reroute sends that amount back between them through
// the residual graph (forward where an arc is below hi, backward where it
// is above lo), by blocking flows as in Dinic's algorithm. If it cannot,
// the nodes the residual graph reaches from the surplus end are a cut
// whose arcs prove that no circulation within the bounds exists: every
// arc leaving it is at hi and every arc entering it at lo, and still the
// surplus is there. Every change is trailed, so a search can undo to a
// mark.
//
// Example (TestCirculationWorkedExample): boundaries 0, 1, 2; a [0,2)
// 2, b [0,1) 1, c [1,2) 1, and a return arc 2 -> 0 fixed at 2 (a band of
// height 2). The circulation may send 2 along a, or 1 along a and 1
// along b then c. Fixing a at 0 leaves boundary 0 with 2 to send and
// boundary 2 short of 2. The residual graph reaches boundary 2 only
// through b and c, which take 1; then nothing leaves boundary 0: the cut
// {0}, with a fixed at 0 and b full, proves there is no band of height 2
// without a.

// circSave is one trailed arc: its flow and bounds before a change.
type circSave struct {
	arc       int
	f, lo, hi int64
}

// circ is a circulation over n nodes (see above).
type circ struct {
	from, to  []int
	lo, hi, f []int64
	adj       [][]int // per node: the arcs at either end
	trail     []circSave
	level, it []int // per node: BFS level (-1 unreached) and DFS cursor
	queue     []int
}

func newCirc(n int) *circ {
	return &circ{adj: make([][]int, n), level: make([]int, n), it: make([]int, n)}
}

// add adds an arc from u to v with bounds [lo, hi], its flow at lo (the
// caller balances the nodes: feasible does).
func (c *circ) add(u, v int, lo, hi int64) int {
	e := len(c.from)
	c.from, c.to = append(c.from, u), append(c.to, v)
	c.lo, c.hi, c.f = append(c.lo, lo), append(c.hi, hi), append(c.f, lo)
	c.adj[u] = append(c.adj[u], e)
	c.adj[v] = append(c.adj[v], e)
	return e
}

// feasible moves the flows, all at their lower bounds, to a circulation,
// or reports that there is none. It adds two nodes and their arcs for the
// time it runs and removes them.
func (c *circ) feasible() bool {
	n, m := len(c.adj), len(c.from)
	excess := make([]int64, n)
	for e := range c.from {
		excess[c.to[e]] += c.f[e]
		excess[c.from[e]] -= c.f[e]
	}
	c.adj = append(c.adj, nil, nil)
	c.level = append(c.level, 0, 0)
	c.it = append(c.it, 0, 0)
	s, t := n, n+1
	var need int64
	for v, x := range excess {
		if x > 0 {
			c.add(s, v, 0, x)
			need += x
		} else if x < 0 {
			c.add(v, t, 0, -x)
		}
	}
	ok := c.route(s, t, need)
	// Drop the two nodes and their arcs: they are the last of every list.
	for e := len(c.from) - 1; e >= m; e-- {
		for _, x := range []int{c.from[e], c.to[e]} {
			c.adj[x] = c.adj[x][:len(c.adj[x])-1]
		}
	}
	c.from, c.to, c.lo, c.hi, c.f = c.from[:m], c.to[:m], c.lo[:m], c.hi[:m], c.f[:m]
	c.adj, c.level, c.it = c.adj[:n], c.level[:n], c.it[:n]
	c.trail = c.trail[:0]
	return ok
}

// set fixes arc e at v (both bounds) and reroutes what that moves; false
// if no circulation is left (reached then marks the cut).
func (c *circ) set(e int, v int64) bool {
	c.save(e)
	old := c.f[e]
	c.f[e], c.lo[e], c.hi[e] = v, v, v
	if v < old {
		return c.route(c.from[e], c.to[e], old-v)
	}
	return c.route(c.to[e], c.from[e], v-old)
}

// reached reports whether node x was reached from the surplus end by the
// last reroute that failed.
func (c *circ) reached(x int) bool { return c.level[x] >= 0 }

func (c *circ) save(e int) { c.trail = append(c.trail, circSave{e, c.f[e], c.lo[e], c.hi[e]}) }

// undo takes back every change since mark (a length of the trail).
func (c *circ) undo(mark int) {
	for len(c.trail) > mark {
		s := c.trail[len(c.trail)-1]
		c.trail = c.trail[:len(c.trail)-1]
		c.f[s.arc], c.lo[s.arc], c.hi[s.arc] = s.f, s.lo, s.hi
	}
}

// residual returns how much more e can carry away from x, and where to.
func (c *circ) residual(e, x int) (int64, int) {
	if c.from[e] == x {
		return c.hi[e] - c.f[e], c.to[e]
	}
	return c.f[e] - c.lo[e], c.from[e]
}

// route sends d from a to b through the residual graph; false if it
// cannot (what it sent stays, for undo).
func (c *circ) route(a, b int, d int64) bool {
	for d > 0 {
		if !c.levels(a, b) {
			return false
		}
		clear(c.it)
		for d > 0 {
			x := c.push(a, b, d)
			if x == 0 {
				break
			}
			d -= x
		}
	}
	return true
}

// levels numbers the nodes by BFS from a over the residual graph, up to
// b's level; false if b is not reached (then every node a reaches is).
func (c *circ) levels(a, b int) bool {
	for i := range c.level {
		c.level[i] = -1
	}
	c.level[a] = 0
	c.queue = append(c.queue[:0], a)
	for k := 0; k < len(c.queue); k++ {
		x := c.queue[k]
		if c.level[b] >= 0 && c.level[x] >= c.level[b] {
			break
		}
		for _, e := range c.adj[x] {
			if r, y := c.residual(e, x); r > 0 && c.level[y] < 0 {
				c.level[y] = c.level[x] + 1
				c.queue = append(c.queue, y)
			}
		}
	}
	return c.level[b] >= 0
}

// push sends at most d from x to b along rising levels (one path).
func (c *circ) push(x, b int, d int64) int64 {
	if x == b {
		return d
	}
	for ; c.it[x] < len(c.adj[x]); c.it[x]++ {
		e := c.adj[x][c.it[x]]
		r, y := c.residual(e, x)
		if r <= 0 || c.level[y] != c.level[x]+1 {
			continue
		}
		if got := c.push(y, b, min(d, r)); got > 0 {
			c.save(e)
			if c.from[e] == x {
				c.f[e] += got
			} else {
				c.f[e] -= got
			}
			return got
		}
	}
	return 0
}
