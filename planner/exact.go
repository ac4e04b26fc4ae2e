package planner

// Exact placement for a given capacity.
//
// The question this file answers is: can these buffers be placed in an arena
// of Cap bytes? The answer is searched over canonical placements only. Take
// any valid placement and let every buffer fall as far as it can; each buffer
// then rests on the floor (offset 0) or on the top of a buffer that is live
// at the same time. Sort the buffers by (offset, static rank). Built in that
// order, each buffer lands exactly at its current minimum offset: the highest
// top among the already placed buffers it overlaps in time. So a depth-first
// search that repeatedly picks the next buffer and puts it at its minimum
// offset visits every canonical placement, and one of them is optimal.
//
// Four rules keep the tree small:
//
//   - Order: a buffer may follow the last placed one only if its (offset,
//     rank) is larger; each canonical placement is built in one order only.
//   - Floors: every unplaced buffer ends at or above the last offset used and
//     above the top of the last buffer placed in each of its time sections.
//     If a section's floor plus the sizes still to place there exceeds Cap,
//     the branch is dead.
//   - Dominance: if some unplaced buffer x fits entirely below the candidate's
//     offset (minOffset(x)+size(x) <= offset), placing the candidate first
//     leaves a gap that x could have filled; dropping x into it gives a
//     placement with a smaller offset sum, which the search visits elsewhere.
//   - Decomposition: when the last unplaced buffer that spans a section
//     boundary is placed, the unplaced buffers on either side no longer
//     interact and each side is solved on its own; one failing side fails
//     the branch, no product of choices is explored.
//
// Fixed buffers are obstacles: a free buffer's minimum offset is lifted over
// any fixed buffer it would overlap. A node limit bounds each attempt; the
// caller restarts with other static orders and larger limits.
//
// Worked example, Cap = 12 (minimalloc's input.12):
//
//	b1 [0,3) 4   b2 [3,9) 4   b3 [0,9) 4   b4 [9,21) 4   b5 [0,21) 4
//
//	12 |   b2        b4
//	 8 | b1  b3 ......|
//	 4 |  b5 (whole time)
//	 0 +------------------
//
// Sections are [0,3) [3,9) [9,21), each with live total 12 = Cap. b5 goes to
// 0 (largest total), then b3 and b4 to 4 (b4's rank follows b3), then b1 to 8
// and b2 to 8 above b3: every floor plus remaining total stays at 12.

import (
	"slices"
)

// srchStatus is the outcome of one exact attempt.
type srchStatus uint8

const (
	srchFound srchStatus = iota
	srchInfeasible
	srchAborted
)

// srchFixed is one fixed obstacle as seen by a free buffer.
type srchFixed struct{ off, top int64 }

// srchInst is the preprocessed instance: free buffers with their time
// sections, pairwise time overlaps, and fixed obstacles.
type srchInst struct {
	n        int
	size     []int64
	align    []int64
	start    []int64
	end      []int64
	sLo, sHi []int32       // section range [sLo, sHi) of each free buffer
	ov       [][]int32     // free buffers overlapping in time
	fixedOv  [][]srchFixed // sorted by offset
	fixedU   [][]srchFixed // fixedOv's union: disjoint, sorted (lift)
	nsec     int
	secTotal []int64   // sum of free sizes live in each section
	secMem   [][]int32 // free buffers live in each section
}

// newSrchInst builds the instance from the free buffers idx of bufs; the
// fixed buffers fixed (indices into bufs, with offsets fixedOff) become
// obstacles.
func newSrchInst(bufs []Buffer, idx []int, fixed []int, fixedOff []int64) *srchInst {
	n := len(idx)
	in := &srchInst{n: n, size: make([]int64, n), align: make([]int64, n),
		start: make([]int64, n), end: make([]int64, n),
		sLo: make([]int32, n), sHi: make([]int32, n), ov: make([][]int32, n),
		fixedOv: make([][]srchFixed, n), fixedU: make([][]srchFixed, n)}
	pts := make([]int64, 0, 2*n)
	for k, i := range idx {
		b := bufs[i]
		in.size[k], in.start[k], in.end[k] = b.Size, b.Start, b.End
		in.align[k] = max(b.Align, 1)
		pts = append(pts, b.Start, b.End)
	}
	slices.Sort(pts)
	pts = slices.Compact(pts)
	in.nsec = max(len(pts)-1, 0)
	in.secTotal = make([]int64, in.nsec)
	in.secMem = make([][]int32, in.nsec)
	for k := range n {
		lo, _ := slices.BinarySearch(pts, in.start[k])
		hi, _ := slices.BinarySearch(pts, in.end[k])
		in.sLo[k], in.sHi[k] = int32(lo), int32(hi)
		for s := lo; s < hi; s++ {
			in.secTotal[s] += in.size[k]
			in.secMem[s] = append(in.secMem[s], int32(k))
		}
	}
	// Time overlaps by a sweep over starts.
	ord := make([]int32, n)
	for k := range ord {
		ord[k] = int32(k)
	}
	slices.SortFunc(ord, func(a, b int32) int {
		if c := cmpI64(in.start[a], in.start[b]); c != 0 {
			return c
		}
		return int(a - b)
	})
	var active []int32
	for _, k := range ord {
		w := 0
		for _, a := range active {
			if in.end[a] > in.start[k] {
				active[w] = a
				w++
				in.ov[k] = append(in.ov[k], a)
				in.ov[a] = append(in.ov[a], k)
			}
		}
		active = append(active[:w], k)
	}
	if len(fixed) > 0 {
		for k := range n {
			for j, f := range fixed {
				fb := bufs[f]
				if fb.Start < in.end[k] && in.start[k] < fb.End && fb.Size > 0 {
					in.fixedOv[k] = append(in.fixedOv[k], srchFixed{fixedOff[j], fixedOff[j] + fb.Size})
				}
			}
			slices.SortFunc(in.fixedOv[k], func(a, b srchFixed) int { return cmpI64(a.off, b.off) })
			in.fixedU[k] = fixedUnion(in.fixedOv[k])
		}
	}
	return in
}

// fixedUnion returns the union of obstacles sorted by offset as disjoint
// intervals in offset order (so their tops increase too). Intervals that
// only touch stay apart: an empty buffer fits between them.
func fixedUnion(ov []srchFixed) []srchFixed {
	var u []srchFixed
	for _, f := range ov {
		if n := len(u); n > 0 && f.off < u[n-1].top {
			u[n-1].top = max(u[n-1].top, f.top)
			continue
		}
		u = append(u, f)
	}
	return u
}

func cmpI64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// srchTrail records one overwritten value so a branch can be undone.
type srchTrail struct {
	kind uint8 // 0 minOff, 1 floor
	idx  int32
	old  int64
}

// srchRun is the mutable state of exact attempts on one instance. All slices
// are allocated once; the search itself does not allocate.
type srchRun struct {
	in     *srchInst
	cap    int64
	rank   []int32
	off    []int64 // -1 while unplaced
	minOff []int64
	floor  []int64
	total  []int64
	cuts   []int32 // unplaced buffers spanning the boundary after section s
	trail  []srchTrail
	stack  []int32
	sol    []int64
	cov    []secSpan // sections a branch's floor check has seen (covered)
	nodes  int64
	work   int64   // branches tried, for stop checks
	rekey  []uint8 // key chain for re-ranking split parts; nil keeps ranks
	curTot []int64
	ordBuf []int32
	limit  int64
	// branchLimit, when positive, also bounds the branches one attempt
	// tries (nodes vary in cost: one node may try dozens of branches).
	branchLimit int64
	branches    int64
	// stepLimit, when positive, bounds an attempt's steps: the buffers a
	// node scans, and a branch's overlaps, sections, the sections of the
	// buffers it lifts and the obstacles they pass. Steps follow an
	// attempt's time where branches do not: a branch takes 161 to 1,077
	// steps on the challenging suite, 4,047 to 9,612 on 2,000 and 3,000
	// random rows (srchStepsPerBranch).
	stepLimit int64
	steps     int64
	stop      func() bool
	stopped   bool
	NodesAll  int64
}

// limitBranches bounds the run's attempts, under a work cap, to branches
// branches and srchStepsPerBranch steps for each of them.
func (r *srchRun) limitBranches(branches int64) {
	r.branchLimit = branches
	r.stepLimit = srchStepsPerBranch * branches
}

func newSrchRun(in *srchInst) *srchRun {
	n := in.n
	return &srchRun{in: in, rank: make([]int32, n), off: make([]int64, n),
		minOff: make([]int64, n), floor: make([]int64, in.nsec),
		total: make([]int64, in.nsec), cuts: make([]int32, in.nsec),
		trail: make([]srchTrail, 0, 1024), stack: make([]int32, 0, 8*n+64),
		sol:    make([]int64, n),
		curTot: make([]int64, n), ordBuf: make([]int32, 0, n)}
}

// lift returns the lowest offset >= o, aligned for buffer k, that collides
// with none of k's fixed obstacles.
func (r *srchRun) lift(k int32, o int64) int64 {
	a := r.in.align[k]
	if a > 1 && o%a != 0 {
		o += a - o%a
	}
	sz := r.in.size[k]
	u := r.in.fixedU[k]
	if len(u) == 0 {
		return o
	}
	// The union's tops increase: skip the intervals wholly below o, then
	// jump over each one the window [o, o+sz) meets.
	i, j := 0, len(u)
	for i < j {
		if h := int(uint(i+j) >> 1); u[h].top <= o {
			i = h + 1
		} else {
			j = h
		}
	}
	for ; i < len(u) && u[i].off < o+sz; i++ {
		if u[i].top > o {
			o = u[i].top
			if a > 1 && o%a != 0 {
				o += a - o%a
			}
		}
	}
	// Under a step limit the work counted is what a scan of every
	// obstacle from the bottom visits (those below o+sz), as the limit's
	// constant was measured with.
	if r.stepLimit > 0 {
		ov := r.in.fixedOv[k]
		i, j := 0, len(ov)
		for i < j {
			if h := int(uint(i+j) >> 1); ov[h].off < o+sz {
				i = h + 1
			} else {
				j = h
			}
		}
		r.steps += int64(i)
	}
	return o
}

// solve runs one attempt at capacity cap with static order rank and the
// node limit; on srchFound, r.sol holds the offsets.
func (r *srchRun) solve(cap int64, rank []int32, limit int64) srchStatus {
	in := r.in
	r.cap, r.limit, r.nodes, r.branches, r.steps, r.stopped = cap, limit, 0, 0, 0, false
	copy(r.rank, rank)
	for k := range in.n {
		r.off[k] = -1
		r.minOff[k] = r.lift(int32(k), 0)
		if r.minOff[k]+in.size[k] > cap {
			return srchInfeasible
		}
	}
	clear(r.floor)
	copy(r.total, in.secTotal)
	clear(r.cuts)
	for k := range in.n {
		for s := in.sLo[k]; s+1 < in.sHi[k]; s++ {
			r.cuts[s]++
		}
	}
	r.trail = r.trail[:0]
	r.stack = r.stack[:0]
	// Static partitions: boundaries no buffer spans.
	st := srchFound
	lo := int32(0)
	for s := int32(0); s < int32(in.nsec) && st == srchFound; s++ {
		if s+1 == int32(in.nsec) || r.cuts[s] == 0 {
			st = r.solvePart(lo, s+1, 0, -1)
			lo = s + 1
		}
	}
	r.NodesAll += r.nodes
	return st
}

// solvePart collects the unplaced buffers inside sections [lo, hi) and
// searches them.
func (r *srchRun) solvePart(lo, hi int32, lastOff int64, lastRank int32) srchStatus {
	base := len(r.stack)
	for k := range r.in.n {
		if r.off[k] < 0 && r.in.sLo[k] >= lo && r.in.sHi[k] <= hi {
			r.stack = append(r.stack, int32(k))
		}
	}
	part := r.stack[base:len(r.stack):len(r.stack)]
	st := srchFound
	if len(part) > 0 {
		st = r.search(part, lo, hi, lastOff, lastRank)
	}
	r.stack = r.stack[:base]
	return st
}

func (r *srchRun) search(part []int32, secLo, secHi int32, lastOff int64, lastRank int32) srchStatus {
	in := r.in
	r.nodes++
	r.steps += int64(len(part))
	if r.nodes > r.limit || r.stopped || (r.stepLimit > 0 && r.steps > r.stepLimit) {
		return srchAborted
	}
	minH := int64(-1)
	left := 0
	for _, k := range part {
		if r.off[k] < 0 {
			left++
			if h := r.minOff[k] + in.size[k]; minH < 0 || h < minH {
				minH = h
			}
		}
	}
	if left == 0 {
		return srchFound
	}
	base := len(r.stack)
	for _, k := range part {
		if r.off[k] >= 0 {
			continue
		}
		o := r.minOff[k]
		if o >= minH || o < lastOff || (o == lastOff && r.rank[k] < lastRank) {
			continue
		}
		r.stack = append(r.stack, k)
	}
	cands := r.stack[base:len(r.stack):len(r.stack)]
	// Insertion sort by (minOff, rank): candidate lists are short.
	for i := 1; i < len(cands); i++ {
		c := cands[i]
		j := i
		for j > 0 && (r.minOff[cands[j-1]] > r.minOff[c] ||
			(r.minOff[cands[j-1]] == r.minOff[c] && r.rank[cands[j-1]] > r.rank[c])) {
			cands[j] = cands[j-1]
			j--
		}
		cands[j] = c
	}
	st := srchInfeasible
	for _, b := range cands {
		st = r.branch(part, secLo, secHi, b)
		if st != srchInfeasible {
			break
		}
	}
	r.stack = r.stack[:base]
	return st
}

// branch places b at its minimum offset, checks the floors, recurses, and
// undoes the placement.
func (r *srchRun) branch(part []int32, secLo, secHi int32, b int32) srchStatus {
	in := r.in
	r.work++
	r.branches++
	if r.work&255 == 0 && r.stop != nil && r.stop() {
		r.stopped = true
	}
	r.steps += int64(len(in.ov[b])) + int64(secHi-secLo)
	if (r.branchLimit > 0 && r.branches > r.branchLimit) || (r.stepLimit > 0 && r.steps > r.stepLimit) {
		return srchAborted
	}
	if r.stopped {
		return srchAborted
	}
	o := r.minOff[b]
	top := o + in.size[b]
	mark := len(r.trail)
	r.off[b] = o
	r.sol[b] = o
	ok := true
	for s := in.sLo[b]; s < in.sHi[b]; s++ {
		r.trail = append(r.trail, srchTrail{1, s, r.floor[s]})
		r.floor[s] = top
		r.total[s] -= in.size[b]
	}
	chg := len(r.stack)
	for _, x := range in.ov[b] {
		if r.off[x] >= 0 || r.minOff[x] >= top {
			continue
		}
		r.trail = append(r.trail, srchTrail{0, x, r.minOff[x]})
		m := r.lift(x, top)
		r.minOff[x] = m
		if m+in.size[x] > r.cap {
			ok = false
			break
		}
		r.stack = append(r.stack, x)
	}
	// A section's floor is at least the lowest minimum offset of the
	// buffers still to place in it: if every one of them starts above
	// Cap minus the section's remaining total, the branch is dead
	// (deadSection). Each section is checked once per branch: r.cov holds
	// the ranges checked so far, and each buffer's range is walked past
	// them.
	r.cov = r.cov[:0]
	for _, x := range r.stack[chg:] {
		if !ok {
			break
		}
		lo, hi := in.sLo[x], in.sHi[x]
		r.steps += int64(hi - lo)
		k := 0
		for s := lo; s < hi && ok; {
			for k < len(r.cov) && r.cov[k].hi <= s {
				k++
			}
			if k < len(r.cov) && r.cov[k].lo <= s {
				s = r.cov[k].hi
				continue
			}
			e := hi
			if k < len(r.cov) {
				e = min(e, r.cov[k].lo)
			}
			for ; s < e; s++ {
				if r.deadSection(s) {
					ok = false
					break
				}
			}
		}
		r.cov = coverSpan(r.cov, secSpan{lo, hi})
	}
	r.stack = r.stack[:chg]
	if ok {
		for s := secLo; s < secHi; s++ {
			if t := r.total[s]; t > 0 && max(r.floor[s], o)+t > r.cap {
				ok = false
				break
			}
		}
	}
	st := srchInfeasible
	if ok {
		st = r.descend(part, secLo, secHi, b, o)
	}
	for i := len(r.trail) - 1; i >= mark; i-- {
		t := r.trail[i]
		if t.kind == 0 {
			r.minOff[t.idx] = t.old
		} else {
			r.floor[t.idx] = t.old
		}
	}
	r.trail = r.trail[:mark]
	for s := in.sLo[b]; s < in.sHi[b]; s++ {
		r.total[s] += in.size[b]
	}
	r.off[b] = -1
	return st
}

// deadSection reports whether every buffer still to place in section s
// starts above the capacity less the section's remaining total.
func (r *srchRun) deadSection(s int32) bool {
	limit := r.cap - r.total[s]
	for _, y := range r.in.secMem[s] {
		if r.off[y] < 0 && r.minOff[y] <= limit {
			return false
		}
	}
	return true
}

// secSpan is a range [lo, hi) of sections.
type secSpan struct{ lo, hi int32 }

// coverSpan adds sp to cov (sorted, disjoint, touching ranges joined) and
// returns it.
func coverSpan(cov []secSpan, sp secSpan) []secSpan {
	i := 0
	for i < len(cov) && cov[i].hi < sp.lo {
		i++
	}
	j := i
	for j < len(cov) && cov[j].lo <= sp.hi {
		sp.lo, sp.hi = min(sp.lo, cov[j].lo), max(sp.hi, cov[j].hi)
		j++
	}
	if j == i {
		return slices.Insert(cov, i, sp)
	}
	cov[i] = sp
	return slices.Delete(cov, i+1, j)
}

// descend continues below a placed b, splitting the part where b was the
// last unplaced buffer to span a section boundary.
func (r *srchRun) descend(part []int32, secLo, secHi int32, b int32, o int64) srchStatus {
	in := r.in
	split := false
	for s := in.sLo[b]; s+1 < in.sHi[b]; s++ {
		r.cuts[s]--
		if r.cuts[s] == 0 && s >= secLo && s+1 < secHi {
			split = true
		}
	}
	var st srchStatus
	if !split {
		st = r.search(part, secLo, secHi, o, r.rank[b])
	} else {
		st = srchFound
		lo := secLo
		for s := secLo; s < secHi && st == srchFound; s++ {
			if s+1 == secHi || r.cuts[s] == 0 {
				st = r.subPart(part, lo, s+1, o, r.rank[b])
				lo = s + 1
			}
		}
	}
	for s := in.sLo[b]; s+1 < in.sHi[b]; s++ {
		r.cuts[s]++
	}
	return st
}

func (r *srchRun) subPart(part []int32, lo, hi int32, lastOff int64, lastRank int32) srchStatus {
	base := len(r.stack)
	for _, k := range part {
		if r.off[k] < 0 && r.in.sLo[k] >= lo && r.in.sHi[k] <= hi {
			r.stack = append(r.stack, k)
		}
	}
	sub := r.stack[base:len(r.stack):len(r.stack)]
	st := srchFound
	if len(sub) > 0 {
		if r.rekey != nil && len(sub) > 1 {
			// Rank the part afresh, with the totals still to place: the
			// rank tie-break of the parent no longer applies.
			saved := len(r.stack)
			for _, k := range sub {
				r.stack = append(r.stack, r.rank[k])
			}
			r.rerank(sub)
			st = r.search(sub, lo, hi, lastOff, -1)
			for j, k := range sub {
				r.rank[k] = r.stack[saved+j]
			}
		} else {
			st = r.search(sub, lo, hi, lastOff, lastRank)
		}
	}
	r.stack = r.stack[:base]
	return st
}

// rerank gives the buffers of sub the ranks 0.. under r.rekey, with the
// section totals taken from what is still unplaced.
func (r *srchRun) rerank(sub []int32) {
	in := r.in
	for _, k := range sub {
		var t int64
		for s := in.sLo[k]; s < in.sHi[k]; s++ {
			t = max(t, r.total[s])
		}
		r.curTot[k] = t
	}
	ord := r.ordBuf[:0]
	ord = append(ord, sub...)
	slices.SortFunc(ord, func(a, b int32) int {
		for _, key := range r.rekey {
			var c int
			switch key {
			case srchKeyWidth:
				c = cmpI64(in.end[b]-in.start[b], in.end[a]-in.start[a])
			case srchKeyArea:
				c = cmpI64(in.size[b]*(in.end[b]-in.start[b]), in.size[a]*(in.end[a]-in.start[a]))
			case srchKeyTotal:
				c = cmpI64(r.curTot[b], r.curTot[a])
			case srchKeySize:
				c = cmpI64(in.size[b], in.size[a])
			}
			if c != 0 {
				return c
			}
		}
		return int(a - b)
	})
	for j, k := range ord {
		r.rank[k] = int32(j)
	}
	r.ordBuf = ord[:0]
}

// Keys of the static orders, compared in descending order.
const (
	srchKeyWidth uint8 = iota
	srchKeyArea
	srchKeyTotal
	srchKeySize
)

// srchOrderKeys are the key chains of srchOrders, in the same order.
var srchOrderKeys = [][]uint8{
	{srchKeyWidth, srchKeyArea, srchKeyTotal},
	{srchKeyTotal, srchKeyArea, srchKeyWidth},
	{srchKeyTotal, srchKeyWidth, srchKeyArea},
	{srchKeyArea, srchKeyTotal, srchKeyWidth},
	{srchKeySize, srchKeyTotal, srchKeyWidth},
}

// srchOrders returns the static orders (rank per buffer) tried in turn:
// each sorts by a different key chain, ties by index.
func srchOrders(in *srchInst) [][]int32 {
	n := in.n
	width := make([]int64, n)
	area := make([]int64, n)
	tot := make([]int64, n)
	for k := range n {
		width[k] = in.end[k] - in.start[k]
		area[k] = in.size[k] * (in.end[k] - in.start[k])
		for s := in.sLo[k]; s < in.sHi[k]; s++ {
			tot[k] = max(tot[k], in.secTotal[s])
		}
	}
	keys := [][][]int64{
		{width, area, tot},
		{tot, area, width},
		{tot, width, area},
		{area, tot, width},
		{in.size, tot, width},
	}
	var out [][]int32
	for _, ks := range keys {
		ord := make([]int32, n)
		for k := range ord {
			ord[k] = int32(k)
		}
		slices.SortStableFunc(ord, func(a, b int32) int {
			for _, key := range ks {
				if c := cmpI64(key[b], key[a]); c != 0 {
					return c
				}
			}
			return int(a - b)
		})
		rank := make([]int32, n)
		for r, k := range ord {
			rank[k] = int32(r)
		}
		out = append(out, rank)
	}
	return out
}
