package planner

// Pair merges: a coarser instance for the search's fallback on a large
// piece without a band (pieceSearch).
//
// Two buffers of a perfect instance that could be neighbours in a tiling
// at LB make one rectangle: two of one lifespan, stacked (their sizes
// add), or two of one size where one ends at the step the other starts
// (one continues the other at its offset). pairMerge joins such pairs
// into one buffer of the reduced instance, and pairs of those again, until
// no two match. Any placement of the reduced instance is one of the
// original with the same arena: each merged buffer's members go where it
// goes, stacked or one after the other.
//
// Which pairs are neighbours in a tiling at LB is not known, so a merge
// is a guess: a pair with the fewest rivals goes first (a boundary where
// one buffer of a size ends and one of that size starts, then a lifespan
// shared by two, and so on), ties broken at random from a fixed seed, a
// pair whose merged item matches another item first (pair). On packable
// p5000 the guesses leave 916 buffers of 5,000, and 26% of the merges
// join two that are not neighbours in the generator's tiling
// (TestPairMergeP5000); undoing the generator's own finest cuts instead
// brings the search to LB (BenchmarkPackableP5000Rounds). Even so, the
// search does better on the merged piece than on the piece itself on
// many large packable instances, though not on all, so pieceSearch (the
// cuts' pieces; not in the renewal routes, where the result came to
// depend on the merge seed) gives the merged piece, re-merged first
// (remerge.go), half of the piece's time, and the rest to the piece
// itself starting from the merged piece's placement, or on a piece above
// srchExactMax to refinement (refine.go) (docs/BENCHMARKS.md, issue 18).
//
// Example (TestPairMergeWorkedExample): a [0,2) 2 B, b [0,1) 1 B, c [0,1)
// 1 B, d [1,2) 2 B; live total 4. At step 1 b and c end and d starts, but
// no size ends and starts there alike; b and c share [0,1), the only
// lifespan shared, so they merge first into a [0,1) 2 B block. That block
// ends at step 1, where d starts, both 2 B: they merge into [0,2) 2 B,
// which shares a's lifespan. One buffer of [0,2) x 4 B is left; wherever
// it goes, a takes one half and b and c, then d, the other.

import (
	"cmp"
	"math/rand/v2"
	"slices"
)

// pairMergeMin is the least piece pieceSearch merges: the gains were
// measured on the pieces of packable p2000 and p5000 (1,200 to 4,916
// buffers); the smaller instances place at LB, or within 0.3%, without
// it.
const pairMergeMin = 1000

// pmMaxMult caps the rival counts told apart: pairs with more rivals go
// in one class.
const pmMaxMult = 64

// pmItem is a buffer of the reduced instance: an original one (a < 0) or
// the merge of items a and b, b at boff bytes above a (0 when b follows
// a in time).
type pmItem struct {
	s, e, h int64
	a, b    int
	boff    int64
}

// pmKey names a class of candidate pairs: a lifespan [x, y) (span), or
// a boundary x and a size y (the items of size y ending and starting at
// x).
type pmKey struct {
	span bool
	x, y int64
}

// pmGroup is a key's items and where it sits in the rival classes.
type pmGroup struct {
	key       pmKey
	items     []int // span: the items of that lifespan
	ends, sts []int // boundary: the items ending there, starting there
	class     int   // rival class it is listed in (0: none)
	pos       int   // its position in that class
	dead      bool  // left empty and forgotten (sweep)
}

// mult is the number of rivals of the group's pairs, for the order: a
// span's items, a boundary's enders times starters (0: no pair).
func (g *pmGroup) mult() int {
	if g.key.span {
		if len(g.items) < 2 {
			return 0
		}
		return min(len(g.items), pmMaxMult)
	}
	return min(len(g.ends)*len(g.sts), pmMaxMult)
}

// pairMerger holds pairMerge's state.
type pairMerger struct {
	items   []pmItem
	groups  *pmTable
	classes [pmMaxMult + 1][]*pmGroup
	rng     *rand.Rand
	n       int           // the original buffers: items 0..n-1
	live    []int         // the items no merge took (in no order)
	pos     []int         // each item's index in live, -1 when not there
	gs      [][3]*pmGroup // each item's groups as file last found them
	skip    float64       // the chance that a step starts at a random class (remerge)
	anyPair bool          // pair draws from all of a group's pairs, follow-up or not
	cands   [][2]int      // pair's scratch: the pairs with a follow-up
	sumOK   map[int64]bool
	endOK   []bool
}

// pairMerge returns bufs (a perfect instance)
// with pairs merged as the file's comment says, and the function that
// turns a placement of the reduced instance into one of bufs. The reduced
// instance is sorted by start, end and size.
func pairMerge(bufs []Buffer, seed uint64) ([]Buffer, func([]int64) []int64) {
	p := newPairMerger(bufs, seed)
	for p.step() {
	}
	return p.reduced()
}

// newPairMerger lists bufs as the first items.
func newPairMerger(bufs []Buffer, seed uint64) *pairMerger {
	p := &pairMerger{items: make([]pmItem, 0, 2*len(bufs)), groups: newPMTable(3 * len(bufs)), rng: rand.New(rand.NewPCG(seed, uint64(len(bufs)))), n: len(bufs)}
	for _, b := range bufs {
		p.add(pmItem{s: b.Start, e: b.End, h: b.Size, a: -1, b: -1})
	}
	return p
}

// reduced returns the reduced instance and its expansion (pairMerge).
func (p *pairMerger) reduced() ([]Buffer, func([]int64) []int64) {
	return p.reducedFrom(p.live)
}

// reducedFrom is reduced with the given items as the reduced instance's
// buffers (items no merge took at some point), sorted by start, end,
// size and item.
func (p *pairMerger) reducedFrom(live []int) ([]Buffer, func([]int64) []int64) {
	roots := p.sortedRoots(live)
	return p.buffers(roots), func(ro []int64) []int64 { return p.expand(roots, ro) }
}

// buffers returns the instance whose buffers are the items roots.
func (p *pairMerger) buffers(roots []int) []Buffer {
	bs := make([]Buffer, len(roots))
	for k, r := range roots {
		it := p.items[r]
		bs[k] = Buffer{ID: int64(k), Start: it.s, End: it.e, Size: it.h}
	}
	return bs
}

// expand returns the offsets of the original buffers when the items
// roots sit at off.
func (p *pairMerger) expand(roots []int, off []int64) []int64 {
	out := make([]int64, p.n)
	var stack [][2]int64
	for k, r := range roots {
		stack = append(stack[:0], [2]int64{int64(r), off[k]})
		for len(stack) > 0 {
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			it := p.items[top[0]]
			if it.a < 0 {
				out[top[0]] = top[1]
				continue
			}
			stack = append(stack, [2]int64{int64(it.a), top[1]}, [2]int64{int64(it.b), top[1] + it.boff})
		}
	}
	return out
}

// sortedRoots returns live in the reduced instance's order: by start,
// end, size and item.
func (p *pairMerger) sortedRoots(live []int) []int {
	roots := slices.Clone(live)
	slices.SortFunc(roots, func(x, y int) int {
		a, b := p.items[x], p.items[y]
		return cmp.Or(cmp.Compare(a.s, b.s), cmp.Compare(a.e, b.e), cmp.Compare(a.h, b.h), cmp.Compare(x, y))
	})
	return roots
}

// group returns key's group, made if new.
func (p *pairMerger) group(k pmKey) *pmGroup {
	g := p.groups.get(k)
	if g == nil {
		g = &pmGroup{key: k}
		p.groups.put(g)
	}
	return g
}

// keys returns the three groups item i belongs to: its lifespan, its end
// (as an ender) and its start (as a starter).
func (p *pairMerger) keys(i int) (span, end, start *pmGroup) {
	it := p.items[i]
	return p.group(pmKey{true, it.s, it.e}), p.group(pmKey{false, it.e, it.h}), p.group(pmKey{false, it.s, it.h})
}

// add appends an item and lists it in its groups.
func (p *pairMerger) add(it pmItem) {
	p.items = append(p.items, it)
	p.pos = append(p.pos, -1)
	p.gs = append(p.gs, [3]*pmGroup{})
	p.refile(len(p.items) - 1)
}

// refile lists item i in its groups again (and as live).
func (p *pairMerger) refile(i int) {
	p.pos[i] = len(p.live)
	p.live = append(p.live, i)
	p.file(i, func(l []int, i int) []int { return append(l, i) })
}

// drop takes item i out of its groups (and out of live).
func (p *pairMerger) drop(i int) {
	last := p.live[len(p.live)-1]
	p.live[p.pos[i]], p.pos[last] = last, p.pos[i]
	p.live, p.pos[i] = p.live[:len(p.live)-1], -1
	p.file(i, remove)
}

// file applies f to item i's list in each of its three groups (add or
// remove) and moves the groups to their new rival classes.
func (p *pairMerger) file(i int, f func([]int, int) []int) {
	gs := &p.gs[i]
	if gs[0] == nil || gs[0].dead || gs[1].dead || gs[2].dead {
		gs[0], gs[1], gs[2] = p.keys(i)
	}
	span, end, start := gs[0], gs[1], gs[2]
	span.items, end.ends, start.sts = f(span.items, i), f(end.ends, i), f(start.sts, i)
	for _, g := range gs {
		p.reclass(g)
	}
}

// sweep forgets the groups left empty (remerge makes many).
func (p *pairMerger) sweep() {
	p.groups.keep(func(g *pmGroup) bool { return len(g.items)+len(g.ends)+len(g.sts) > 0 })
}

// remove deletes x from l, keeping the order (so the draws stay
// deterministic).
func remove(l []int, x int) []int {
	if q := slices.Index(l, x); q >= 0 {
		return slices.Delete(l, q, q+1)
	}
	return l
}

// reclass moves g to the class of its rival count.
func (p *pairMerger) reclass(g *pmGroup) {
	c := g.mult()
	if c == g.class {
		return
	}
	if g.class > 0 {
		l := p.classes[g.class]
		last := l[len(l)-1]
		l[g.pos], last.pos = last, g.pos
		p.classes[g.class] = l[:len(l)-1]
	}
	g.class = c
	if c > 0 {
		g.pos = len(p.classes[c])
		p.classes[c] = append(p.classes[c], g)
	}
}

// step merges one pair of the lowest rival class (a random group of it,
// a pair of that as pair chooses), or reports false when no pair is left.
func (p *pairMerger) step() bool {
	first := 1
	if p.skip > 0 && p.rng.Float64() < p.skip {
		// Start at a random one of the classes with pairs.
		n := 0
		for c := 1; c <= pmMaxMult; c++ {
			if len(p.classes[c]) > 0 {
				n++
				if p.rng.IntN(n) == 0 {
					first = c
				}
			}
		}
	}
	for k := range pmMaxMult {
		c := (first-1+k)%pmMaxMult + 1
		l := p.classes[c]
		if len(l) == 0 {
			continue
		}
		g := l[p.rng.IntN(len(l))]
		x, y := p.pair(g)
		a, b := p.items[x], p.items[y]
		p.drop(x)
		p.drop(y)
		if g.key.span {
			p.add(pmItem{s: a.s, e: a.e, h: a.h + b.h, a: x, b: y, boff: a.h})
		} else {
			p.add(pmItem{s: a.s, e: b.e, h: a.h, a: x, b: y})
		}
		return true
	}
	return false
}

// pair chooses the pair of g to merge: at random among those whose merged
// item would match another item (a follow-up), else at random among all
// (every pair when anyPair is set).
//
// A stack's follow-up is an item of its height ending at its start or
// starting at its end: the stack would continue it, or be continued. A
// continuation's follow-up is another item of its lifespan (to stack
// with), or one of its height ending at its start or starting at its
// end. In a guillotine tiling each cut's two sides merge into the block
// they were cut from, which merges again with its sibling, up to the
// whole; a pair whose item matches nothing merges no further until other
// merges come its way, and on packable instances such pairs are more
// often guesses the tiling does not hold (twins of one lifespan in a
// crowded step that belong to different blocks).
func (p *pairMerger) pair(g *pmGroup) (int, int) {
	var xs, ys []int
	if g.key.span {
		xs, ys = g.items, g.items
	} else {
		xs, ys = g.ends, g.sts
	}
	if !p.anyPair {
		p.cands = p.cands[:0]
		if g.key.span {
			p.followSpan(g)
		} else {
			p.followBoundary(g)
		}
		if len(p.cands) > 0 {
			c := p.cands[p.rng.IntN(len(p.cands))]
			return c[0], c[1]
		}
	}
	x := xs[p.rng.IntN(len(xs))]
	if !g.key.span {
		return x, ys[p.rng.IntN(len(ys))]
	}
	y := ys[p.rng.IntN(len(ys)-1)]
	if y == x {
		y = ys[len(ys)-1]
	}
	return x, y
}

// followSpan lists in p.cands the pairs of a lifespan's group whose stack
// has a follow-up (pair); heights that recur are looked up once.
func (p *pairMerger) followSpan(g *pmGroup) {
	if p.sumOK == nil {
		p.sumOK = map[int64]bool{}
	}
	clear(p.sumOK)
	for i, x := range g.items {
		for _, y := range g.items[i+1:] {
			h := p.items[x].h + p.items[y].h
			ok, seen := p.sumOK[h]
			if !seen {
				ok = p.has(pmKey{false, g.key.x, h}, true) || p.has(pmKey{false, g.key.y, h}, false)
				p.sumOK[h] = ok
			}
			if ok {
				p.cands = append(p.cands, [2]int{x, y})
			}
		}
	}
}

// followBoundary lists in p.cands the pairs of a boundary's group whose
// continuation has a follow-up (pair): an ender of its height at its
// start, a starter of its height at its end, or an item of its lifespan.
// The first two are the ender's own start group and the starter's own
// end group (p.gs: the groups a live item is filed in).
func (p *pairMerger) followBoundary(g *pmGroup) {
	p.endOK = p.endOK[:0]
	for _, y := range g.sts {
		p.endOK = append(p.endOK, len(p.gs[y][1].sts) > 0)
	}
	for _, x := range g.ends {
		s := p.items[x].s
		startOK := len(p.gs[x][2].ends) > 0
		for k, y := range g.sts {
			if startOK || p.endOK[k] || p.has(pmKey{true, s, p.items[y].e}, false) {
				p.cands = append(p.cands, [2]int{x, y})
			}
		}
	}
}

// has reports whether key's group holds an item: for a boundary, an
// ender (ends) or a starter.
func (p *pairMerger) has(k pmKey, ends bool) bool {
	g := p.groups.get(k)
	switch {
	case g == nil:
		return false
	case k.span:
		return len(g.items) > 0
	case ends:
		return len(g.ends) > 0
	default:
		return len(g.sts) > 0
	}
}
