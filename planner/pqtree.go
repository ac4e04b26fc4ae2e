package planner

// PQ-trees: every order of a set of buffers that a run of "these must be
// adjacent" constraints allows, in one tree (Booth and Lueker, 1976). The
// tiling sweep (tilesweep.go) keeps one over the buffers live at a step:
// bottom to top in the arena, their orders that the steps before allow.
//
// A leaf is a buffer. A P-node's children may stand in any order; a
// Q-node's children stand in the order given or its reverse. The orders
// the tree allows (its frontiers) are those read off its leaves, left to
// right, for every choice at every node. Making a set S adjacent (reduce)
// rewrites the tree so that its frontiers are exactly the old frontiers in
// which S is adjacent, or fails if there are none. The rewrite works
// bottom-up over the smallest subtree holding S, each node full (every
// leaf in S), empty (none) or partial; a partial node becomes a Q-node
// with its empty children at one end and its full ones at the other.
//
// Example, over a b c d under one P-node: reduce {a b} gives P(c d
// P(a b)); then reduce {b c}: the P-node holding a and b is partial, so it
// becomes the Q-node [a b], c joins its full end and the tree is
// P(d Q(a b c)): a b c or c b a, with d on either side.
//
// Here each reduction walks the whole tree (counting S under every node)
// instead of only S's part of it as Booth and Lueker do: the trees of the
// sweep hold a few hundred buffers, and the walk keeps the code short.

import "slices"

// pqKind is a node's kind.
type pqKind uint8

const (
	pqLeaf  pqKind = iota // a buffer
	pqP                   // children in any order
	pqQ                   // children in this order or its reverse
	pqToken               // a placeholder for a group (tilesweep's backward pass)
)

// pqNode is one node; buf is the buffer of a leaf or the group of a token.
type pqNode struct {
	kind pqKind
	buf  int32
	kids []int32
}

// pqTree is a PQ-tree in one slice; root is -1 for the empty tree.
type pqTree struct {
	n    []pqNode
	root int32
	cnt  []int32 // reduce's scratch: leaves of S under each node
	tot  []int32 // leaves under each node
}

// pqBlock is where a reduced set stands: the whole of node (lo < 0), or
// the run lo..hi of the children of node, a Q-node.
type pqBlock struct {
	node   int32
	lo, hi int
}

func newPQTree() *pqTree { return &pqTree{root: -1} }

func (t *pqTree) add(nd pqNode, cnt, tot int32) int32 {
	t.n = append(t.n, nd)
	t.cnt = append(t.cnt, cnt)
	t.tot = append(t.tot, tot)
	return int32(len(t.n) - 1)
}

// leaf adds a leaf for buffer b (not yet in the tree).
func (t *pqTree) leaf(b int32) int32 { return t.add(pqNode{kind: pqLeaf, buf: b}, 0, 1) }

// pnode adds a P-node over kids, or returns the one kid.
func (t *pqTree) pnode(kids []int32) int32 {
	if len(kids) == 1 {
		return kids[0]
	}
	var c, s int32
	for _, k := range kids {
		c += t.cnt[k]
		s += t.tot[k]
	}
	return t.add(pqNode{kind: pqP, buf: -1, kids: kids}, c, s)
}

// clone copies the nodes reachable from the root, compacted.
func (t *pqTree) clone() *pqTree {
	c := &pqTree{n: make([]pqNode, 0, len(t.n)), root: -1}
	if t.root < 0 {
		return c
	}
	kids := make([]int32, 0, len(t.n))
	var cp func(i int32) int32
	cp = func(i int32) int32 {
		src := &t.n[i]
		j := int32(len(c.n))
		c.n = append(c.n, pqNode{kind: src.kind, buf: src.buf})
		if len(src.kids) > 0 {
			at := len(kids)
			kids = append(kids, src.kids...)
			ks := kids[at : at+len(src.kids) : at+len(src.kids)]
			for k, x := range src.kids {
				ks[k] = cp(x)
			}
			c.n[j].kids = ks
		}
		return j
	}
	c.root = cp(t.root)
	c.cnt = make([]int32, len(c.n), cap(c.n))
	c.tot = make([]int32, len(c.n), cap(c.n))
	return c
}

// frontier calls emit for the leaves (and tokens) under i, in the order
// the tree holds them.
func (t *pqTree) frontier(i int32, emit func(pqNode)) {
	nd := &t.n[i]
	if nd.kind == pqLeaf || nd.kind == pqToken {
		emit(*nd)
		return
	}
	for _, k := range nd.kids {
		t.frontier(k, emit)
	}
}

// recount sizes cnt and tot to the nodes and fills them from the root.
func (t *pqTree) recount(in func(int32) bool) {
	t.cnt = slices.Grow(t.cnt[:0], len(t.n))[:len(t.n)]
	t.tot = slices.Grow(t.tot[:0], len(t.n))[:len(t.n)]
	clear(t.cnt)
	clear(t.tot)
	t.count(t.root, in)
}

// count fills cnt and tot under i; in reports whether a leaf is in S.
func (t *pqTree) count(i int32, in func(int32) bool) {
	nd := &t.n[i]
	if nd.kind == pqLeaf || nd.kind == pqToken {
		t.tot[i] = 1
		t.cnt[i] = 0
		if nd.kind == pqLeaf && in(nd.buf) {
			t.cnt[i] = 1
		}
		return
	}
	var c, s int32
	for _, k := range nd.kids {
		t.count(k, in)
		c += t.cnt[k]
		s += t.tot[k]
	}
	t.cnt[i], t.tot[i] = c, s
}

const (
	pqEmpty = iota
	pqFull
	pqPartial
)

func (t *pqTree) status(i int32) int {
	switch {
	case t.cnt[i] == 0:
		return pqEmpty
	case t.cnt[i] == t.tot[i]:
		return pqFull
	}
	return pqPartial
}

// reduce makes the size leaves for which in is true adjacent, and returns
// where they stand; false when no frontier has them adjacent (the tree is
// then damaged: reduce a clone).
func (t *pqTree) reduce(in func(int32) bool, size int32) (pqBlock, bool) {
	if t.root < 0 || size <= 0 {
		return pqBlock{}, false
	}
	t.recount(in)
	if t.cnt[t.root] != size {
		return pqBlock{}, false
	}
	r := t.root
descend:
	for {
		for _, k := range t.n[r].kids {
			if t.cnt[k] == size {
				r = k
				continue descend
			}
		}
		break
	}
	if t.cnt[r] == t.tot[r] {
		return pqBlock{node: r, lo: -1}, true
	}
	if t.n[r].kind == pqQ {
		return t.reduceQRoot(r)
	}
	return t.reducePRoot(r)
}

// split sorts the children of i by status.
func (t *pqTree) split(i int32) (e, f, p []int32) {
	for _, k := range t.n[i].kids {
		switch t.status(k) {
		case pqEmpty:
			e = append(e, k)
		case pqFull:
			f = append(f, k)
		default:
			p = append(p, k)
		}
	}
	return e, f, p
}

// fullRun returns the first and last full child of Q-node q (its full
// children are adjacent).
func (t *pqTree) fullRun(q int32) (int, int) {
	lo, hi := -1, -1
	for k, x := range t.n[q].kids {
		if t.status(x) == pqFull {
			if lo < 0 {
				lo = k
			}
			hi = k
		}
	}
	return lo, hi
}

func (t *pqTree) reducePRoot(r int32) (pqBlock, bool) {
	e, f, p := t.split(r)
	switch len(p) {
	case 0: // two or more full children: a P-node of them
		x := t.pnode(f)
		t.n[r].kids = append(e, x)
		return pqBlock{node: x, lo: -1}, true
	case 1:
		q := p[0]
		if !t.label(q) {
			return pqBlock{}, false
		}
		if len(f) > 0 {
			t.n[q].kids = append(t.n[q].kids, t.pnode(f))
		}
		return t.settle(r, e, q), true
	case 2:
		a, b := p[0], p[1]
		if !t.label(a) || !t.label(b) {
			return pqBlock{}, false
		}
		m := append([]int32(nil), t.n[a].kids...)
		if len(f) > 0 {
			m = append(m, t.pnode(f))
		}
		bk := t.n[b].kids
		for k := len(bk) - 1; k >= 0; k-- {
			m = append(m, bk[k])
		}
		return t.settle(r, e, t.add(pqNode{kind: pqQ, buf: -1, kids: m}, 0, 0)), true
	}
	return pqBlock{}, false
}

// settle puts Q-node q, which holds the full children, under root r
// beside r's empty children e (in r's place when there are none), and
// returns the run of q's full children.
func (t *pqTree) settle(r int32, e []int32, q int32) pqBlock {
	if len(e) == 0 {
		t.n[r] = t.n[q]
		q = r
	} else {
		t.n[r].kids = append(e, q)
	}
	lo, hi := t.fullRun(q)
	return pqBlock{node: q, lo: lo, hi: hi}
}

func (t *pqTree) reduceQRoot(r int32) (pqBlock, bool) {
	kids := t.n[r].kids
	a, b := -1, -1
	for k, x := range kids {
		if t.status(x) != pqEmpty {
			if a < 0 {
				a = k
			}
			b = k
		}
	}
	for k := a + 1; k < b; k++ {
		if t.status(kids[k]) != pqFull {
			return pqBlock{}, false
		}
	}
	var out []int32
	out = append(out, kids[:a]...)
	for k := a; k <= b; k++ {
		x := kids[k]
		if t.status(x) != pqPartial {
			out = append(out, x)
			continue
		}
		if !t.label(x) {
			return pqBlock{}, false
		}
		xk := t.n[x].kids
		if k == a { // empty end outward, full end toward the run
			out = append(out, xk...)
		} else {
			for j := len(xk) - 1; j >= 0; j-- {
				out = append(out, xk[j])
			}
		}
	}
	out = append(out, kids[b+1:]...)
	t.n[r].kids = out
	lo, hi := t.fullRun(r)
	return pqBlock{node: r, lo: lo, hi: hi}, true
}

// label turns partial node i (not the pertinent root) into a Q-node
// whose children are each full or empty, the empty ones first.
func (t *pqTree) label(i int32) bool {
	if t.n[i].kind == pqP {
		e, f, p := t.split(i)
		if len(p) > 1 {
			return false
		}
		var seq []int32
		if len(e) > 0 {
			seq = append(seq, t.pnode(e))
		}
		if len(p) == 1 {
			if !t.label(p[0]) {
				return false
			}
			seq = append(seq, t.n[p[0]].kids...)
		}
		if len(f) > 0 {
			seq = append(seq, t.pnode(f))
		}
		t.n[i].kind = pqQ
		t.n[i].kids = seq
		return true
	}
	kids := t.n[i].kids
	if !t.emptyFirst(kids) {
		rev := make([]int32, len(kids))
		for k, x := range kids {
			rev[len(kids)-1-k] = x
		}
		if !t.emptyFirst(rev) {
			return false
		}
		kids = rev
	}
	var out []int32
	for _, x := range kids {
		if t.status(x) == pqPartial {
			if !t.label(x) {
				return false
			}
			out = append(out, t.n[x].kids...)
			continue
		}
		out = append(out, x)
	}
	t.n[i].kids = out
	return true
}

// emptyFirst reports whether kids read empty*, at most one partial, full*.
func (t *pqTree) emptyFirst(kids []int32) bool {
	phase := 0 // 0: empties; 1: after the partial or a full
	for _, x := range kids {
		switch t.status(x) {
		case pqEmpty:
			if phase != 0 {
				return false
			}
		case pqPartial:
			if phase != 0 {
				return false
			}
			phase = 1
		default:
			phase = 1
		}
	}
	return true
}

// replace puts node y where block b stands.
func (t *pqTree) replace(b pqBlock, y int32) {
	if b.lo < 0 {
		t.n[b.node] = t.n[y]
		return
	}
	kids := t.n[b.node].kids
	if b.lo == 0 && b.hi == len(kids)-1 {
		t.n[b.node] = t.n[y]
		return
	}
	out := make([]int32, 0, len(kids)-(b.hi-b.lo))
	out = append(out, kids[:b.lo]...)
	out = append(out, y)
	out = append(out, kids[b.hi+1:]...)
	t.n[b.node].kids = out
	if len(out) == 2 {
		t.n[b.node].kind = pqP
	}
}

// firstLeaf returns a leaf (or token) node under i.
func (t *pqTree) firstLeaf(i int32) int32 {
	for t.n[i].kind == pqP || t.n[i].kind == pqQ {
		i = t.n[i].kids[0]
	}
	return i
}

// blocks returns the maximal sets of leaves in S that every frontier
// keeps adjacent: whole nodes, or runs of a Q-node's children.
func (t *pqTree) blocks(in func(int32) bool) [][]int32 {
	if t.root < 0 {
		return nil
	}
	t.recount(in)
	var out [][]int32
	leaves := func(x int32, into []int32) []int32 {
		t.frontier(x, func(nd pqNode) { into = append(into, nd.buf) })
		return into
	}
	var walk func(x int32)
	walk = func(x int32) {
		switch t.status(x) {
		case pqEmpty:
			return
		case pqFull:
			out = append(out, leaves(x, nil))
			return
		}
		nd := t.n[x]
		if nd.kind == pqP {
			for _, k := range nd.kids {
				walk(k)
			}
			return
		}
		var run []int32
		for _, k := range nd.kids {
			if t.status(k) == pqFull {
				run = leaves(k, run)
				continue
			}
			if run != nil {
				out = append(out, run)
				run = nil
			}
			walk(k)
		}
		if run != nil {
			out = append(out, run)
		}
	}
	walk(t.root)
	return out
}

// setToken puts node y where the token of group g stands.
func (t *pqTree) setToken(g, y int32) {
	for i := range t.n {
		if t.n[i].kind == pqToken && t.n[i].buf == g {
			t.n[i] = t.n[y]
			return
		}
	}
}

// parents returns each node's parent (-1 for the root and for nodes not
// in the tree) and the leaf of each buffer in the tree.
func (t *pqTree) parents() ([]int32, map[int32]int32) {
	p := make([]int32, len(t.n))
	for k := range p {
		p[k] = -1
	}
	leaf := map[int32]int32{}
	var walk func(x int32)
	walk = func(x int32) {
		if t.n[x].kind == pqLeaf {
			leaf[t.n[x].buf] = x
		}
		for _, c := range t.n[x].kids {
			p[c] = x
			walk(c)
		}
	}
	if t.root >= 0 {
		walk(t.root)
	}
	return p, leaf
}

// relabel swaps the buffers of the leaves of x and y (call it on a clone:
// nodes outside the tree may hold them too).
func (t *pqTree) relabel(x, y int32) {
	for k := range t.n {
		if t.n[k].kind != pqLeaf {
			continue
		}
		switch t.n[k].buf {
		case x:
			t.n[k].buf = y
		case y:
			t.n[k].buf = x
		}
	}
}
