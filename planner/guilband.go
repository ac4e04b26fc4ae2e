package planner

// The bands of guillotine.go's pieces.
//
// A band is a subset of a piece's buffers whose live total is the same at
// every step: at each step boundary inside the piece, the sizes of its
// buffers that end there add up to the sizes of those that start there.
// Fixing a boundary decides every undecided buffer that ends or starts
// there so that it balances; the search fixes the unbalanced boundary with
// the fewest undecided buffers first, and leaves out whatever is undecided
// once all are balanced (the smallest band holding the pivot).
//
// Buffers live over one column only are held as fluids (guilfluid.go).
//
// Before the search, buffers that every band takes together or leaves
// together are linked into classes (link): at a boundary with few
// buffers, every balanced subset of them is listed, and two buffers in
// the same ones are linked. Deciding a buffer decides its class.
//
// A dead end (a boundary that can no longer balance) is explained by the
// fixes that decided the buffers there; conflict-directed backjumping
// returns to the latest of them. How long a pivot takes varies wildly
// with the order of its choices, so the search restarts: pivots take
// turns under node limits that grow fourfold per round, the order of the
// buffers at each boundary shuffled each time.
//
// Example (TestGuillotineBand): a [0,2) 2 B, b [2,4) 2 B, c [0,3) 4 B,
// d [3,4) 4 B. The pivot: a and c have one other buffer at their inner
// boundary each; c is larger. Boundary 3 is 4 B short of starters; its
// only undecided buffer, d, starts there: d joins. Everything balances:
// the band is {c, d}, 4 B high, placed at 0; {a, b} goes at 4.

import (
	"cmp"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// guilFluidMin is the fewest one-column buffers of a column held as a
// fluid (a fluid loses some bands, guilfluid.go says which: with 3 or 6
// the exact search over bands missed tilings of small packable instances
// that it found with 10); guilFluidUnits bounds its knapsack table. guilPivots is
// how many pivots the restarts take turns with, the first round under
// guilPivotNodes nodes each (at least the piece's buffers), each later
// round under four times as many.
const (
	guilFluidMin   = 10
	guilFluidUnits = 1 << 16
	guilPivots     = 64
	guilPivotNodes = 2000
	guilLinkMax    = 16
)

// guilBand enumerates the bands of one piece.
type guilBand struct {
	g      *guilSearch
	set    []int
	c      int64        // the piece's live total
	sb, eb []int        // boundary of each buffer's start and end, by position
	at     [][]int      // per boundary: positions of the buffers (not fluid) ending or starting there
	fluid  []*guilFluid // per column (boundary j to j+1), or nil
	imb    []int64      // per boundary: sizes of the band's enders minus starters
	open   []int        // per boundary: undecided buffers and fluids there
	dec    []int8       // by position: 0 undecided, 1 in, 2 out
	fx     []int64      // per column: the band's amount of its fluid, -1 undecided
	height int64        // the band's live total
	found  []int        // the band found
	foundH int64        // its height
	limit  int64        // the node count to stop at
	lvl    []int        // by position: the level that decided it
	flvl   []int        // per column: the level that decided its fluid
	depth  int          // the current level (boundaries fixed)
	words  int          // of a nogood over levels
	unb    []int        // the unbalanced inner boundaries
	unbPos []int        // per boundary: its index in unb, or -1
	openS  []int64      // per boundary: sizes of the undecided starters (fluids whole)
	openE  []int64      // per boundary: sizes of the undecided enders
	cls    [][]int      // per class root: its members (link)
	clsOf  []int        // per position: its class root
	trail  []int        // positions decided by decideClass, in order
	spare  []nogood     // nogoods no longer used, for getNG
	opens  [][]int      // per level: dfs's undecided buffers at its boundary
}

func newGuilBand(g *guilSearch, set []int, c, limit int64) *guilBand {
	var times []int64
	for _, i := range set {
		times = append(times, g.bufs[i].Start, g.bufs[i].End)
	}
	slices.Sort(times)
	times = slices.Compact(times)
	idx := func(t int64) int { k, _ := slices.BinarySearch(times, t); return k }
	n, m := len(set), len(times)
	b := &guilBand{g: g, set: set, c: c, limit: limit, sb: make([]int, n), eb: make([]int, n),
		at: make([][]int, m), imb: make([]int64, m), open: make([]int, m), dec: make([]int8, n),
		fluid: make([]*guilFluid, m), fx: make([]int64, m), lvl: make([]int, n), flvl: make([]int, m),
		words: (n + m + 64) / 64, unbPos: make([]int, m), openS: make([]int64, m), openE: make([]int64, m)}
	for u := range b.unbPos {
		b.unbPos[u] = -1
	}
	local := make([][]int, m)
	for k, i := range set {
		b.sb[k], b.eb[k] = idx(g.bufs[i].Start), idx(g.bufs[i].End)
		if b.eb[k] == b.sb[k]+1 {
			local[b.sb[k]] = append(local[b.sb[k]], k)
		}
	}
	isFluid := make([]bool, n)
	for j, l := range local {
		b.fx[j] = -1
		if len(l) < guilFluidMin {
			continue
		}
		if f := newGuilFluid(l, b.size); f != nil {
			b.fluid[j] = f
			b.open[j]++
			b.open[j+1]++
			b.openS[j] += f.total
			b.openE[j+1] += f.total
			for _, k := range l {
				isFluid[k] = true
			}
		}
	}
	for k := range set {
		if isFluid[k] {
			continue
		}
		for _, t := range []int{b.sb[k], b.eb[k]} {
			b.at[t] = append(b.at[t], k)
			b.open[t]++
		}
		b.openS[b.sb[k]] += b.size(k)
		b.openE[b.eb[k]] += b.size(k)
	}
	b.link()
	return b
}

func (b *guilBand) size(k int) int64 { return b.g.bufs[b.set[k]].Size }

// link joins into one class the buffers that every band takes together or
// leaves together. At an inner boundary without fluids, a band's buffers
// there are a balanced subset of the buffers there (enders' sizes add up
// to starters'). The items of a boundary are the classes with buffers
// there, each worth its enders' sizes there minus its starters'; two
// items in the same zero-sum subsets (every one of them holds both or
// neither) are joined. Joining makes other boundaries' items fewer, so
// the passes repeat until one joins nothing. Boundaries with more than
// guilLinkMax items are skipped.
//
// Example (TestGuilLinkPasses): x and z [0,1), y and w [1,2), all 1 B;
// f [2,3) 2 B. At boundary 1, {x, y} and {x, w} balance: no two agree.
// At boundary 2 only {y, w, f} does: they join. The next pass sees three
// items at boundary 1, x, z and the class worth -2 B, and one zero-sum
// subset, all three: everything is one class.
func (b *guilBand) link() {
	n := len(b.set)
	parent := make([]int, n)
	for k := range parent {
		parent[k] = k
	}
	sums := make([]int64, 1<<guilLinkMax)
	var items []int
	var worth []int64
	// A boundary's zero-sum subsets change only when two of its items
	// join: a pass looks again only at boundaries with fewer items than
	// when last looked at.
	seen := make([]int, len(b.at))
	for joined := true; joined; {
		joined = false
		for t := 1; t < len(b.at)-1; t++ {
			l := b.at[t]
			if len(l) < 2 || b.fluid[t-1] != nil || b.fluid[t] != nil {
				continue
			}
			items, worth = items[:0], worth[:0]
			for _, k := range l {
				v := b.size(k)
				if b.sb[k] == t {
					v = -v
				}
				r := find(parent, k)
				if x := slices.Index(items, r); x >= 0 {
					worth[x] += v
				} else {
					items, worth = append(items, r), append(worth, v)
				}
			}
			if len(items) < 2 || (seen[t] > 0 && len(items) >= seen[t]) {
				continue
			}
			seen[t] = len(items)
			if len(items) <= guilLinkMax {
				joined = joinAgreeing(items, worth, sums, parent) || joined
			}
		}
	}
	b.cls = make([][]int, n)
	b.clsOf = make([]int, n)
	for k := range n {
		r := find(parent, k)
		b.clsOf[k] = r
		b.cls[r] = append(b.cls[r], k)
	}
}

// joinAgreeing lists the zero-sum subsets of items (class roots worth
// worth) and joins every two that are in the same ones; it reports
// whether it joined any.
func joinAgreeing(items []int, worth, sums []int64, parent []int) bool {
	m := len(items)
	agree := make([]uint32, m)
	for x := range agree {
		agree[x] = 1<<m - 1
	}
	for mask := 1; mask < 1<<m; mask++ {
		low := bits.TrailingZeros(uint(mask))
		sums[mask] = sums[mask&(mask-1)] + worth[low]
		if sums[mask] != 0 {
			continue
		}
		for x := range m {
			if mask&(1<<x) != 0 {
				agree[x] &= uint32(mask)
			} else {
				agree[x] &^= uint32(mask)
			}
		}
	}
	joined := false
	for x := range m {
		for y := x + 1; y < m; y++ {
			if agree[x]&(1<<y) == 0 {
				continue
			}
			if rx, ry := find(parent, items[x]), find(parent, items[y]); rx != ry {
				parent[rx] = ry
				joined = true
			}
		}
	}
	return joined
}

// decideClass decides k and the undecided rest of its class alike, at the
// current level; undoClass(mark) takes back what was decided since mark.
func (b *guilBand) decideClass(k int, d int8) int {
	mark := len(b.trail)
	for _, m := range b.cls[b.clsOf[k]] {
		if b.dec[m] == 0 {
			b.decide(m, d)
			b.lvl[m] = b.depth
			b.trail = append(b.trail, m)
		}
	}
	return mark
}

func (b *guilBand) undoClass(mark int) {
	for len(b.trail) > mark {
		m := b.trail[len(b.trail)-1]
		b.trail = b.trail[:len(b.trail)-1]
		b.decide(m, 0)
	}
}

// run looks for a band (found, foundH) holding one of the pivots, the
// smallest band first: the first guilPivots buffers (not in a fluid) by
// size, larger first, when guilSearch.bySize; otherwise those with the
// fewest others at their inner boundaries, ties to the larger. It reports
// whether it found one within the node limit.
func (b *guilBand) run() bool {
	type cand struct{ k, score int }
	var cands []cand
	last := len(b.imb) - 1
	for t := range b.at {
		for _, k := range b.at[t] {
			if b.sb[k] != t {
				continue
			}
			n := 0
			for _, u := range []int{b.sb[k], b.eb[k]} {
				if u > 0 && u < last {
					n += b.open[u]
				}
			}
			cands = append(cands, cand{k, n})
		}
	}
	slices.SortStableFunc(cands, func(x, y cand) int {
		if b.g.bySize {
			return cmp.Compare(b.size(y.k), b.size(x.k))
		}
		if x.score != y.score {
			return x.score - y.score
		}
		return cmp.Compare(b.size(y.k), b.size(x.k))
	})
	cands = cands[:min(len(cands), guilPivots)]
	// Restarts: the pivots take turns, each under a node limit that grows
	// fourfold per round, with the buffers at each boundary shuffled (the
	// order they are decided in), until the band's budget ends. A pivot
	// whose bands were all tried is dropped.
	end := b.limit
	rng := rand.New(rand.NewPCG(uint64(len(b.set)), 11))
	for per := max(guilPivotNodes, int64(len(b.set))); len(cands) > 0; per *= 4 {
		left := cands[:0]
		for _, c := range cands {
			for _, l := range b.at {
				rng.Shuffle(len(l), func(i, j int) { l[i], l[j] = l[j], l[i] })
			}
			b.limit = min(end, b.g.nodes+per)
			mark := b.decideClass(c.k, 1)
			ok, why := b.dfs()
			b.putNG(why)
			b.undoClass(mark)
			switch {
			case ok:
				return true
			case b.g.nodes < b.limit && b.g.abort:
				return false // cancelled
			case b.g.nodes >= end:
				b.g.abort = false
				return false
			case b.g.nodes >= b.limit:
				left = append(left, c)
			}
			b.g.abort = false
		}
		cands = left
	}
	return false
}

// decide sets the decision of position k (1 in, 2 out; 0 undoes).
func (b *guilBand) decide(k int, d int8) {
	step := -1
	if d == 0 {
		step = 1
		if b.dec[k] == 1 {
			b.add(b.sb[k], b.eb[k], -b.size(k))
		}
	} else if d == 1 {
		b.add(b.sb[k], b.eb[k], b.size(k))
	}
	b.open[b.sb[k]] += step
	b.open[b.eb[k]] += step
	b.openS[b.sb[k]] += int64(step) * b.size(k)
	b.openE[b.eb[k]] += int64(step) * b.size(k)
	b.dec[k] = d
}

// add adds x bytes live from boundary s to e to the band.
func (b *guilBand) add(s, e int, x int64) {
	b.imb[s] -= x
	b.imb[e] += x
	if s == 0 {
		b.height += x
	}
	b.track(s)
	b.track(e)
}

// track keeps the list of unbalanced inner boundaries up to date for u.
func (b *guilBand) track(u int) {
	if u == 0 || u == len(b.imb)-1 {
		return
	}
	at := b.unbPos[u]
	switch {
	case b.imb[u] != 0 && at < 0:
		b.unbPos[u] = len(b.unb)
		b.unb = append(b.unb, u)
	case b.imb[u] == 0 && at >= 0:
		last := b.unb[len(b.unb)-1]
		b.unb[at], b.unbPos[last] = last, at
		b.unb = b.unb[:len(b.unb)-1]
		b.unbPos[u] = -1
	}
}

// setFluid decides column j's fluid at x (x < 0 undoes).
func (b *guilBand) setFluid(j int, x int64) {
	if x < 0 {
		b.add(j, j+1, -b.fx[j])
		b.open[j]++
		b.open[j+1]++
		b.openS[j] += b.fluid[j].total
		b.openE[j+1] += b.fluid[j].total
		b.fx[j] = -1
		return
	}
	b.fx[j] = x
	b.add(j, j+1, x)
	b.open[j]--
	b.open[j+1]--
	b.openS[j] -= b.fluid[j].total
	b.openE[j+1] -= b.fluid[j].total
}

// tick counts a node; false once the search or this band's limit stops.
func (b *guilBand) tick() bool {
	if b.g.nodes >= b.limit {
		b.g.abort = true
	}
	return b.g.tick()
}

// dfs fixes the next boundary. On failure it returns the levels (the
// boundary fixes) that explain it: conflict-directed backjumping skips
// the fixes in between, which concern other boundaries.
func (b *guilBand) dfs() (bool, nogood) {
	if !b.tick() {
		return false, nil
	}
	t := -1
	for _, u := range b.unb {
		if r := b.imb[u]; b.open[u] == 0 || r > b.openS[u] || -r > b.openE[u] {
			return false, b.why(u)
		}
		if t < 0 || b.open[u] < b.open[t] || (b.open[u] == b.open[t] && u < t) {
			t = u
		}
	}
	if t < 0 {
		if b.finish() {
			return true, nil
		}
		all := b.getNG()
		for k := range all {
			all[k] = ^uint64(0)
		}
		return false, all
	}
	for len(b.opens) <= b.depth {
		b.opens = append(b.opens, nil)
	}
	open := b.opens[b.depth][:0]
	var ends, starts int64
	for _, k := range b.at[t] {
		if b.dec[k] == 0 {
			open = append(open, k)
			if b.eb[k] == t {
				ends += b.size(k)
			} else {
				starts += b.size(k)
			}
		}
	}
	if f := b.fluid[t-1]; f != nil && b.fx[t-1] < 0 {
		ends += f.total
	}
	if f := b.fluid[t]; f != nil && b.fx[t] < 0 {
		starts += f.total
	}
	b.opens[b.depth] = open
	b.depth++
	acc := b.getNG()
	ok, jump := b.assign(t, open, 0, ends, starts, acc)
	b.depth--
	if ok || b.g.abort {
		b.putNG(acc)
		return ok, nil
	}
	if jump != nil {
		b.putNG(acc)
		return false, jump
	}
	b.whyInto(acc, t)
	return false, acc
}

// getNG returns an empty nogood, a spare one when there is one: the
// search makes one or two a node, and making them new took most of a
// band search's allocations (docs/BENCHMARKS.md, issue 18, the thirtieth
// session).
func (b *guilBand) getNG() nogood {
	if n := len(b.spare); n > 0 {
		c := b.spare[n-1]
		b.spare = b.spare[:n-1]
		clear(c)
		return c
	}
	return make(nogood, b.words)
}

// putNG takes back a nogood nothing holds any more (nil: none).
func (b *guilBand) putNG(c nogood) {
	if c != nil {
		b.spare = append(b.spare, c)
	}
}

// why returns the levels that decided the buffers and fluids at boundary
// u.
func (b *guilBand) why(u int) nogood {
	w := b.getNG()
	b.whyInto(w, u)
	return w
}

// whyInto adds why(u) to w.
func (b *guilBand) whyInto(w nogood, u int) {
	for _, k := range b.at[u] {
		if b.dec[k] != 0 && b.lvl[k] > 0 {
			w[b.lvl[k]>>6] |= 1 << (b.lvl[k] & 63)
		}
	}
	for _, j := range []int{u - 1, u} {
		if b.fluid[j] != nil && b.fx[j] >= 0 {
			w[b.flvl[j]>>6] |= 1 << (b.flvl[j] & 63)
		}
	}
}

// assign decides open[j:] at boundary t, then its fluids; ends and starts
// are the most the undecided enders and starters there can add. The
// children's reasons (less this level) gather in acc; a child's reason
// without this level comes back as jump.
func (b *guilBand) assign(t int, open []int, j int, ends, starts int64, acc nogood) (bool, nogood) {
	if !b.tick() {
		return false, nil
	}
	r := b.imb[t]
	if -r > ends || r > starts {
		return false, nil
	}
	if j == len(open) {
		return b.fluids(t, acc)
	}
	k := open[j]
	if b.eb[k] == t {
		ends -= b.size(k)
	} else {
		starts -= b.size(k)
	}
	if b.dec[k] != 0 { // decided with its class
		return b.assign(t, open, j+1, ends, starts, acc)
	}
	for _, d := range []int8{2, 1} {
		mark := b.decideClass(k, d)
		ok, jump := b.assign(t, open, j+1, ends, starts, acc)
		b.undoClass(mark)
		if ok || b.g.abort || jump != nil {
			return ok, jump
		}
	}
	return false, nil
}

// fluids balances boundary t with its undecided fluids (the one ending
// there, column t-1, and the one starting there, column t), then goes on.
func (b *guilBand) fluids(t int, acc nogood) (bool, nogood) {
	r := b.imb[t]
	var opts [][2]int64 // amounts for columns t-1 and t, -1 left undecided
	lf, rf := b.fluid[t-1], b.fluid[t]
	lOpen, rOpen := lf != nil && b.fx[t-1] < 0, rf != nil && b.fx[t] < 0
	switch {
	case r == 0:
		opts = append(opts, [2]int64{-1, -1})
	case lOpen && r < 0 && lf.reaches(-r):
		opts = append(opts, [2]int64{-r, -1})
	}
	if r > 0 && rOpen && rf.reaches(r) {
		opts = append(opts, [2]int64{-1, r})
	}
	for _, o := range opts {
		if o[0] >= 0 {
			b.setFluid(t-1, o[0])
			b.flvl[t-1] = b.depth
		}
		if o[1] >= 0 {
			b.setFluid(t, o[1])
			b.flvl[t] = b.depth
		}
		ok, c := b.dfs()
		if o[0] >= 0 {
			b.setFluid(t-1, -1)
		}
		if o[1] >= 0 {
			b.setFluid(t, -1)
		}
		if ok || b.g.abort {
			return ok, nil
		}
		if !c.has(b.depth) {
			return false, c
		}
		c.clear(b.depth)
		acc.union(c)
		b.putNG(c)
	}
	return false, nil
}

// finish records the band.
func (b *guilBand) finish() bool {
	if b.height >= b.c || b.height <= 0 {
		return false // the whole piece, or nothing: not a band
	}
	in := make([]bool, len(b.set))
	for k, d := range b.dec {
		in[k] = d == 1
	}
	for j, f := range b.fluid {
		if f != nil && b.fx[j] > 0 {
			for _, k := range f.subset(b.fx[j], b.size) {
				in[k] = true
			}
		}
	}
	var band []int
	for k, i := range b.set {
		if in[k] {
			band = append(band, i)
		}
	}
	b.found, b.foundH = band, b.height
	return true
}
