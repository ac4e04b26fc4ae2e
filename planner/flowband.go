package planner

// The flow band search: bands (guilband.go) found through a circulation.
// Under the search strategy's long budgets (flowMinBudget and more; Search
// turns it on), the cuts and the renewal blocks try it where guilband.go's
// search finds nothing.
//
// A band of height h is a circulation in the boundaries' graph: each
// buffer an arc from its start to its end carrying its size or nothing,
// and an arc from the last boundary back to the first carrying h (the
// band's live total is h at every step exactly when every boundary
// balances). Let each buffer's arc carry anything between nothing and its
// size instead and the band becomes a flow problem, solved in polynomial
// time (circulation.go); and the buffers of the smallest size (the sizes'
// gcd, the one-unit buffers of packable instances, which make as many
// subset sums as there are) need no decision at all: once the others are
// decided, an integral flow puts each of them in or out.
//
// So the search decides only the larger buffers, largest first. Each
// decision fixes an arc and reroutes the circulation; where no
// circulation is left, the cut that proves it names the decisions
// responsible (those on the arcs crossing it), and conflict-directed
// backjumping returns to the latest of them. A buffer is tried first the
// way the circulation leans (in when it carries at least half its size).
// That order needs few backtracks where much of the band is already
// fixed: told the generator's band on packable p5000 before step 2282,
// it finds a band for three of the four strips left in its dense last
// 219 steps within a few thousand nodes, where guilband.go's search finds
// none with 61 steps left (TestPackableP5000FlowOracle).
//
// From nothing told it mostly finds none, so flowBand also splits time:
// the part before a step first (the buffers that start before it, cut
// there), then the whole with that part's decisions given. Where those
// decisions leave no band, the search's final cut names the given ones
// responsible; they are given up and the search runs again, a few rounds.
// The bands found are often mixtures of the generator's (see
// docs/BENCHMARKS.md, issue 18).
//
// Example (TestFlowBandWorkedExample): a [0,2) 2 B, b [0,1) 3 B, c [1,2)
// 3 B, d [0,1) 1 B, e [1,2) 1 B; live total 6. The pivot b (the largest)
// is in, so the band's height is 3 to 5 B. The unit is 1 B: d and e follow
// the circulation. The 3 B that b carries to step 1 can go on only
// through c (e takes 1 B at most): c carries at least half its size and
// is tried in first. Then a carries nothing and is tried out first.
// Everything is decided after two nodes: the band is {b, c}, 3 B high.

import (
	"cmp"
	"context"
	"slices"
	"time"
)

// flowBandRounds is how many times flowBand gives up the given decisions
// its final cut names; flowSplits are the splits in time it tries, as
// quantiles of the buffers' starts.
const flowBandRounds = 3

var flowSplits = []float64{0.5, 0.75, 0.25, 0.9}

// flowSearch is one search (see above) over bufs, with sizes in units.
type flowSearch struct {
	ctx   context.Context
	c     *circ
	arc   []int // per buffer: its arc
	size  []int64
	dec   []int8 // per buffer: 0 undecided, 1 in, 2 out
	lvl   []int  // per buffer: the level that decided it (0: given for good)
	order []int  // the buffers to decide, largest first
	base  int    // levels 1..base are given decisions that may be given up
	given []int  // per level up to base: its buffer
	words int
	nodes int64
	limit int64
	core  []int // after a failure: the given decisions the final cut names
}

// newFlowSearch builds the circulation for bufs (sizes in units) with the
// decisions of told (1 in, 2 out), soft ones (they may be named by a
// final cut) when soft, and a height within [hlo, hhi]. It returns nil if
// no circulation exists.
func newFlowSearch(ctx context.Context, bufs []Buffer, told []int8, soft bool, hlo, hhi, limit int64) *flowSearch {
	if hlo > hhi || len(bufs) == 0 {
		return nil
	}
	times := make([]int64, 0, 2*len(bufs))
	for _, b := range bufs {
		times = append(times, b.Start, b.End)
	}
	slices.Sort(times)
	times = slices.Compact(times)
	idx := func(t int64) int { k, _ := slices.BinarySearch(times, t); return k }
	n := len(bufs)
	s := &flowSearch{ctx: ctx, c: newCirc(len(times)), arc: make([]int, n), size: make([]int64, n),
		dec: slices.Clone(told), lvl: make([]int, n), given: []int{-1}, limit: limit}
	for i, b := range bufs {
		s.size[i] = b.Size
		lo, hi := int64(0), b.Size
		switch told[i] {
		case 1:
			lo = b.Size
		case 2:
			hi = 0
		}
		s.arc[i] = s.c.add(idx(b.Start), idx(b.End), lo, hi)
		if told[i] != 0 && soft {
			s.lvl[i] = len(s.given)
			s.given = append(s.given, i)
		}
		if told[i] == 0 && b.Size > 1 {
			s.order = append(s.order, i)
		}
	}
	s.c.add(len(times)-1, 0, hlo, hhi)
	if !s.c.feasible() {
		return nil
	}
	slices.SortStableFunc(s.order, func(x, y int) int { return cmp.Compare(s.size[y], s.size[x]) })
	s.base = len(s.given) - 1
	s.words = (s.base+len(s.order))/64 + 2
	if s.limit <= 0 {
		s.limit = 2*int64(len(s.order)) + 1000
	}
	return s
}

// run searches; it reports whether a band was found (in then says which
// buffers it holds) and, on a failure within the node limit, sets core.
func (s *flowSearch) run() bool {
	ok, conf := s.dfs(0)
	s.core = s.core[:0]
	if !ok && conf != nil {
		for l := 1; l <= s.base; l++ {
			if conf[l/64]&(1<<(l%64)) != 0 {
				s.core = append(s.core, s.given[l])
			}
		}
	}
	return ok
}

// in reports whether buffer i is in the band found.
func (s *flowSearch) in(i int) bool { return s.c.f[s.arc[i]] > 0 }

// members returns the buffers below n that are in the band found.
func (s *flowSearch) members(n int) []int {
	var band []int
	for i := range n {
		if s.in(i) {
			band = append(band, i)
		}
	}
	return band
}

// height is the band's height, in units.
func (s *flowSearch) height() int64 { return s.c.f[len(s.c.f)-1] }

// dfs decides s.order from k on; on a failure it returns the levels to
// blame, or nil when out of nodes.
func (s *flowSearch) dfs(k int) (bool, []uint64) {
	for k < len(s.order) && s.dec[s.order[k]] != 0 {
		k++
	}
	if k == len(s.order) {
		return true, nil
	}
	i := s.order[k]
	values := [2]int8{2, 1}
	if 2*s.c.f[s.arc[i]] >= s.size[i] {
		values = [2]int8{1, 2}
	}
	level := s.base + k + 1
	var blame []uint64 // made at the first dead end: most nodes have none
	for _, v := range values {
		s.nodes++
		if s.nodes > s.limit || (s.nodes%perfectCheckEvery == 0 && s.ctx.Err() != nil) {
			return false, nil
		}
		mark := len(s.c.trail)
		s.dec[i], s.lvl[i] = v, level
		var conf []uint64
		size := int64(0)
		if v == 1 {
			size = s.size[i]
		}
		if s.c.set(s.arc[i], size) {
			var ok bool
			if ok, conf = s.dfs(k + 1); ok {
				return true, nil
			}
		} else {
			conf = s.cutLevels()
		}
		s.c.undo(mark)
		s.dec[i], s.lvl[i] = 0, 0
		if conf == nil {
			return false, nil
		}
		if conf[level/64]&(1<<(level%64)) == 0 {
			return false, conf // not this decision's doing: jump back
		}
		if blame == nil {
			blame = make([]uint64, s.words)
		}
		for w := range blame {
			blame[w] |= conf[w]
		}
	}
	blame[level/64] &^= 1 << (level % 64)
	return false, blame
}

// cutLevels returns the levels of the decided buffers whose arcs cross
// the cut of the last failed reroute.
func (s *flowSearch) cutLevels() []uint64 {
	conf := make([]uint64, s.words)
	for i, e := range s.arc {
		if s.dec[i] == 0 || s.lvl[i] == 0 {
			continue
		}
		if s.c.reached(s.c.from[e]) != s.c.reached(s.c.to[e]) {
			conf[s.lvl[i]/64] |= 1 << (s.lvl[i] % 64)
		}
	}
	return conf
}

// unitSizes returns bufs with sizes in units of their gcd with c, and
// the unit.
func unitSizes(bufs []Buffer, c int64) ([]Buffer, int64) {
	unit := c
	for _, b := range bufs {
		unit = gcd64(unit, b.Size)
	}
	us := make([]Buffer, len(bufs))
	for i, b := range bufs {
		us[i] = Buffer{ID: int64(i), Start: b.Start, End: b.End, Size: b.Size / max(unit, 1)}
	}
	return us, unit
}

// flowBand looks for a band of bufs (a perfect instance of live total c)
// holding its largest buffer, as the file's comment says. It returns the
// band's positions in bufs and its height, and the nodes visited.
func flowBand(ctx context.Context, bufs []Buffer, c int64) ([]int, int64, int64) {
	if len(bufs) < 2 || c <= 0 {
		return nil, 0, 0
	}
	us, unit := unitSizes(bufs, c)
	top := c / unit
	var nodes int64
	largest := func(l []Buffer) int {
		p := 0
		for i := range l {
			if l[i].Size > l[p].Size {
				p = i
			}
		}
		return p
	}
	told := make([]int8, len(us))
	p := largest(us)
	told[p] = 1
	if s := newFlowSearch(ctx, us, told, false, us[p].Size, top-1, 0); s != nil {
		ok := s.run()
		nodes += s.nodes
		if ok {
			return s.members(len(us)), s.height() * unit, nodes
		}
	}
	starts := make([]int64, len(us))
	for i, b := range us {
		starts[i] = b.Start
	}
	slices.Sort(starts)
	for _, q := range flowSplits {
		if ctx.Err() != nil {
			break
		}
		split := starts[int(q*float64(len(starts)-1))]
		var early []Buffer
		var at []int
		for i, b := range us {
			if b.Start < split {
				b.End = min(b.End, split)
				early, at = append(early, b), append(at, i)
			}
		}
		if len(early) < 2 || len(early) == len(us) {
			continue
		}
		t1 := make([]int8, len(early))
		ep := largest(early)
		t1[ep] = 1
		s1 := newFlowSearch(ctx, early, t1, false, early[ep].Size, top-1, 0)
		if s1 == nil {
			continue
		}
		ok := s1.run()
		nodes += s1.nodes
		if !ok {
			continue
		}
		h := s1.height()
		t2 := make([]int8, len(us))
		for k, i := range at {
			t2[i] = 2
			if s1.in(k) {
				t2[i] = 1
			}
		}
		for r := 0; r <= flowBandRounds && ctx.Err() == nil; r++ {
			s2 := newFlowSearch(ctx, us, t2, true, h, h, 0)
			if s2 == nil {
				break
			}
			ok := s2.run()
			nodes += s2.nodes
			if ok {
				return s2.members(len(us)), h * unit, nodes
			}
			if len(s2.core) == 0 {
				break
			}
			for _, i := range s2.core {
				t2[i] = 0
			}
		}
	}
	return nil, 0, nodes
}

// flowRect looks for buffers among bufs[w] whose live total is h at every
// step of [from, to) (renew.go's rectangles, boundmerge.go's), holding
// the first given of them, within limit nodes (0: newFlowSearch's
// default): two given buffers of h just before and after make the ends
// count. It returns their positions in bufs, or nil.
func flowRect(ctx context.Context, bufs []Buffer, w []int, from, to, h int64, given int, limit int64) []int {
	sub := make([]Buffer, 0, len(w)+2)
	for _, i := range w {
		sub = append(sub, bufs[i])
	}
	sub = append(sub, Buffer{Start: from - 1, End: from, Size: h}, Buffer{Start: to, End: to + 1, Size: h})
	us, unit := unitSizes(sub, h)
	told := make([]int8, len(us))
	for k := range given {
		told[k] = 1
	}
	told[len(us)-2], told[len(us)-1] = 1, 1
	s := newFlowSearch(ctx, us, told, false, h/unit, h/unit, limit)
	if s == nil || !s.run() {
		return nil
	}
	out := s.members(len(w))
	for k, i := range out {
		out[k] = w[i]
	}
	return out
}

// flowMinBudget is the shortest budget under which the search strategy
// tries the flow band search and runs the boundary blocks' route
// (boundmerge.go): on packable p5000 their searches take seconds that a
// 10 s run needs for the fallback and the renewal route
// (docs/BENCHMARKS.md, issue 18).
const flowMinBudget = 30 * time.Second
