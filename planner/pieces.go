package planner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
)

// pieceLayout is placeSplit's division of an instance by the cuts:
// piece k holds the steps from cuts[k-1] (or the first) up to cuts[k]
// (or the last), and the middle cut, cuts[mid], divides the pieces into
// two sides, 0..mid and mid+1..len(cuts). Buffers are named by their
// rank in the order (order[r] is the buffer).
type pieceLayout struct {
	cuts []int64
	mid  int
	// members[first[k]:first[k+1]] are the ranks of the buffers inside
	// piece k, increasing.
	first   []int
	members []int32
	// top: the ranks of the buffers that cross the middle cut;
	// cross[s]: of those that cross a cut of side s only; both
	// increasing.
	top   []int32
	cross [2][]int32
	// meet[k]: the ranks of the buffers of cross and top that meet piece
	// k, increasing.
	meet [][]int32
	// at[d] is the number of cuts at or below step t0 + d<<shift: a
	// bucket of steps holds a quarter of a cut on average, and pieceOf
	// starts there (a binary search per lookup cost 0.2 s of the
	// layout's 0.3 s on the synthetic million).
	t0, span int64
	shift    uint
	at       []int32
}

// pieceOf returns the piece holding step t (below MaxInt64, as every
// step a buffer lives at is): the number of cuts at or below it.
func (l *pieceLayout) pieceOf(t int64) int {
	if d := uint64(t - l.t0); d < uint64(l.span) {
		k := int(l.at[d>>l.shift])
		for k < len(l.cuts) && l.cuts[k] <= t {
			k++
		}
		return k
	}
	i, _ := slices.BinarySearch(l.cuts, t+1)
	return i
}

// table fills pieceOf's buckets for the steps of bufs: about four per
// cut.
func (l *pieceLayout) table(bufs []Buffer) {
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for i := range bufs {
		lo, hi = min(lo, bufs[i].Start), max(hi, bufs[i].End)
	}
	span := hi - lo // negative when it overflows
	if span <= 0 {
		return
	}
	for span>>l.shift > int64(4*len(l.cuts)) {
		l.shift++
	}
	l.t0, l.span = lo, span
	l.at = make([]int32, span>>l.shift+1)
	k := 0
	for d := range l.at {
		for k < len(l.cuts) && l.cuts[k] <= lo+int64(d)<<l.shift {
			k++
		}
		l.at[d] = int32(k)
	}
}

// meets returns the first and last piece b meets.
func (l *pieceLayout) meets(b *Buffer) (int, int) {
	k := l.pieceOf(b.Start)
	return k, max(k, l.pieceOf(b.End-1))
}

// newPieceLayout divides bufs (placed in order) by cuts, or returns nil
// when there are none. The middle cut is the first after which half the
// buffers inside pieces are on its left. Empty buffers are in no piece
// and no list (their offset is 0).
func newPieceLayout(bufs []Buffer, order []int, cuts []int64) *pieceLayout {
	if len(cuts) == 0 {
		return nil
	}
	np := len(cuts) + 1
	l := &pieceLayout{cuts: cuts, first: make([]int, np+1), meet: make([][]int32, np)}
	l.table(bufs)
	// The piece of every buffer inside one, in index order (a pass over
	// bufs in memory order); -1 for the others.
	in := make([]int32, len(bufs))
	for i := range bufs {
		b := &bufs[i]
		k1, k2 := l.meets(b)
		if b.Size == 0 || k1 != k2 {
			in[i] = -1
			continue
		}
		in[i] = int32(k1)
		l.first[k1+1]++
	}
	for k := range np {
		l.first[k+1] += l.first[k]
	}
	for l.mid < len(cuts)-1 && 2*l.first[l.mid+1] < l.first[np] {
		l.mid++
	}
	l.members = make([]int32, l.first[np])
	fill := slices.Clone(l.first[:np])
	for r, i := range order {
		if k := in[i]; k >= 0 {
			l.members[fill[k]] = int32(r)
			fill[k]++
			continue
		}
		b := &bufs[i]
		if b.Size == 0 {
			continue
		}
		k1, k2 := l.meets(b)
		switch {
		case k1 <= l.mid && k2 > l.mid:
			l.top = append(l.top, int32(r))
		case k2 <= l.mid:
			l.cross[0] = append(l.cross[0], int32(r))
		default:
			l.cross[1] = append(l.cross[1], int32(r))
		}
		for k := k1; k <= k2; k++ {
			l.meet[k] = append(l.meet[k], int32(r))
		}
	}
	return l
}

// ctxErr wraps a cancelled context's error for the placers.
func ctxErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("planner: placement cancelled: %w", err)
	}
	return nil
}

// errOtherSide stops a side whose partner failed (the partner's error is
// the one reported).
var errOtherSide = errors.New("planner: the other side failed")

// pieceRun is one placement of a pieceLayout by its two sides. Each side
// owns its pieces (their indexes, cursors and counts); a buffer across
// the middle cut is placed by side 0 over the pieces of both while side 1
// waits: side 1 sends ready[j] once its pieces are up to the j-th such
// buffer's turn, and side 0 sends done[j] once it is recorded. A side
// that would wait places its other pieces' members meanwhile
// (spareWork), which shortened the whole CLI run on the synthetic
// million by about 5% (docs/BENCHMARKS.md, issue 18).
//
// Example: cuts at steps 10 and 20 make three pieces, the middle cut 10;
// x = [12, 25) crosses 20 (a cut of side 1), y = [5, 15) crosses 10. The
// order a (piece 0), y, b (piece 1), x, c (piece 2), d (piece 1): side 0
// places a, stops at y, and places it over pieces 0 and 1 once side 1
// is ready (it has nothing before y); then side 1 places b; x over
// pieces 1 and 2; c and d. Side 0 is done after y.
type pieceRun struct {
	lay    *pieceLayout
	bufs   []Buffer
	order  []int
	off    []int64
	policy fitPolicy
	ctx    context.Context

	ixs         []*timeIndex // open pieces' indexes
	cur         []int        // each piece's next member (into lay.members)
	left        []int        // crossing buffers still to place in each piece
	ready, done []chan struct{}
	stop        chan struct{} // closed when a side fails
	stopOnce    sync.Once
}

func newPieceRun(ctx context.Context, l *pieceLayout, bufs []Buffer, order []int, policy fitPolicy) *pieceRun {
	np := len(l.cuts) + 1
	run := &pieceRun{lay: l, bufs: bufs, order: order, off: make([]int64, len(bufs)), policy: policy, ctx: ctx,
		ixs: make([]*timeIndex, np), cur: slices.Clone(l.first[:np]), left: make([]int, np),
		ready: make([]chan struct{}, len(l.top)), done: make([]chan struct{}, len(l.top)), stop: make(chan struct{})}
	for k := range np {
		run.left[k] = len(l.meet[k])
	}
	for j := range l.top {
		run.ready[j], run.done[j] = make(chan struct{}, 1), make(chan struct{}, 1)
	}
	return run
}

// side places side s (0 or 1): its crossing buffers and those across the
// middle cut in order, each after the members before it, then the rest
// of its pieces.
func (run *pieceRun) side(s int) error {
	err := run.sideEvents(s)
	if err != nil {
		run.stopOnce.Do(func() { close(run.stop) })
		if errors.Is(err, errOtherSide) {
			return nil
		}
	}
	return err
}

func (run *pieceRun) sideEvents(s int) error {
	l := run.lay
	lo, hi := 0, l.mid // the side's pieces
	if s == 1 {
		lo, hi = l.mid+1, len(l.cuts)
	}
	cross, top := l.cross[s], l.top
	for len(cross) > 0 || len(top) > 0 {
		if len(top) == 0 || (len(cross) > 0 && cross[0] < top[0]) {
			if err := run.place(cross[0], lo, hi, -1); err != nil {
				return err
			}
			cross = cross[1:]
			continue
		}
		j := len(l.top) - len(top)
		if err := run.place(top[0], lo, hi, j); err != nil {
			return err
		}
		top = top[1:]
	}
	for k := lo; k <= hi; k++ {
		if err := run.finish(k); err != nil {
			return err
		}
	}
	return nil
}

// place places the crossing buffer of rank r at its turn, for the side
// of pieces lo..hi; j >= 0 when it crosses the middle cut (the j-th such
// buffer): then side 0 places it and side 1 waits.
func (run *pieceRun) place(r int32, lo, hi, j int) error {
	i := run.order[r]
	b := &run.bufs[i]
	k1, k2 := run.lay.meets(b)
	own1, own2 := max(k1, lo), min(k2, hi)
	for k := own1; k <= own2; k++ {
		if err := run.advance(k, int(r)); err != nil {
			return err
		}
	}
	switch {
	case j >= 0 && lo > 0: // side 1: side 0 places it
		run.ready[j] <- struct{}{}
		if err := run.waitWorking(run.done[j], lo, hi); err != nil {
			return err
		}
	default:
		if j >= 0 {
			if err := run.waitWorking(run.ready[j], lo, hi); err != nil {
				return err
			}
		}
		q := &timeIndex{} // the sets of b's pieces together
		for k := k1; k <= k2; k++ {
			run.ixs[k].collect(b.Start, b.End)
			q.sets = append(q.sets, run.ixs[k].sets...)
		}
		q.cur = make([]int, len(q.sets))
		o := q.choose(b, run.policy)
		run.off[i] = o
		for k := k1; k <= k2; k++ {
			run.ixs[k].record(o, o+b.Size) // collect left b's nodes there
		}
		if j >= 0 {
			run.done[j] <- struct{}{}
		}
	}
	for k := own1; k <= own2; k++ {
		if run.left[k]--; run.left[k] == 0 {
			if err := run.finish(k); err != nil {
				return err
			}
		}
	}
	return nil
}

// wait waits for ch, or returns errOtherSide once the other side failed.
func (run *pieceRun) wait(ch chan struct{}) error {
	select {
	case <-ch:
		return nil
	case <-run.stop:
		return errOtherSide
	}
}

// finish places the rest of piece k and drops its index.
func (run *pieceRun) finish(k int) error {
	if err := run.advance(k, len(run.order)); err != nil {
		return err
	}
	run.ixs[k] = nil
	return nil
}

// open returns piece k's index, made on first use.
func (run *pieceRun) open(k int) *timeIndex {
	if ix := run.ixs[k]; ix != nil {
		return ix
	}
	l := run.lay
	idx := make([]int, 0, l.first[k+1]-l.first[k]+len(l.meet[k]))
	for _, r := range l.members[l.first[k]:l.first[k+1]] {
		idx = append(idx, run.order[r])
	}
	for _, r := range l.meet[k] {
		idx = append(idx, run.order[r])
	}
	run.ixs[k] = newTimeIndexOf(run.bufs, idx)
	return run.ixs[k]
}

// advance places piece k's members of rank below r.
func (run *pieceRun) advance(k, r int) error {
	return run.advanceUpTo(k, r, len(run.order))
}

// advanceUpTo places at most n of piece k's members of rank below r.
func (run *pieceRun) advanceUpTo(k, r, n int) error {
	l := run.lay
	if run.cur[k] == l.first[k+1] && run.ixs[k] == nil && run.left[k] == 0 {
		return nil // finished
	}
	ix := run.open(k)
	from := run.cur[k]
	for ; run.cur[k] < l.first[k+1] && int(l.members[run.cur[k]]) < r && run.cur[k]-from < n; run.cur[k]++ {
		if run.cur[k]&1023 == 0 {
			if err := ctxErr(run.ctx); err != nil {
				return err
			}
		}
		i := run.order[l.members[run.cur[k]]]
		b := &run.bufs[i]
		o := ix.fit(b, run.policy)
		run.off[i] = o
		ix.record(o, o+b.Size)
	}
	return nil
}

// spareChunk is how many members a waiting side places before it looks
// at its channel again.
const spareChunk = 64

// waitWorking is wait for a side whose pieces are lo..hi: until ch is
// ready, the side does spareWork.
func (run *pieceRun) waitWorking(ch chan struct{}, lo, hi int) error {
	for {
		select {
		case <-ch:
			return nil
		case <-run.stop:
			return errOtherSide
		default:
		}
		did, err := run.spareWork(lo, hi)
		if err != nil {
			return err
		}
		if !did {
			return run.wait(ch)
		}
	}
}

// spareWork places up to spareChunk members of the first piece of lo..hi
// that has members to place before its next crossing buffer, and reports
// whether there was one. It is work the side would do later anyway: each
// piece's index sees the same buffers in the same order, so the offsets
// are the same. The pieces that the awaited buffer meets are up to its
// turn, which is their next one: they have no spare work, and the other
// side, which places that buffer over them, races with nothing here.
func (run *pieceRun) spareWork(lo, hi int) (bool, error) {
	for k := lo; k <= hi; k++ {
		if !run.spare(k) {
			continue
		}
		if err := run.advanceUpTo(k, run.nextTurn(k), spareChunk); err != nil {
			return false, err
		}
		if run.cur[k] == run.lay.first[k+1] && run.left[k] == 0 {
			run.ixs[k] = nil // finished
		}
		return true, nil
	}
	return false, nil
}

// nextTurn returns the rank of the next crossing buffer to be placed in
// piece k (len(order) when none is left).
func (run *pieceRun) nextTurn(k int) int {
	m := run.lay.meet[k]
	if run.left[k] == 0 {
		return len(run.order)
	}
	return int(m[len(m)-run.left[k]])
}

// spare reports whether piece k has a member to place before its next
// crossing buffer.
func (run *pieceRun) spare(k int) bool {
	l := run.lay
	return run.cur[k] < l.first[k+1] && int(l.members[run.cur[k]]) < run.nextTurn(k)
}
