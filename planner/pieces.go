package planner

import (
	"context"
	"fmt"
	"slices"
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
	// meet[k]: the buffers (indices) of cross and top that meet piece k.
	meet [][]int32
}

// pieceOf returns the piece holding step t: the number of cuts at or
// below it.
func (l *pieceLayout) pieceOf(t int64) int {
	i, _ := slices.BinarySearch(l.cuts, t+1)
	return i
}

// meets returns the first and last piece b meets.
func (l *pieceLayout) meets(b *Buffer) (int, int) {
	k := l.pieceOf(b.Start)
	return k, max(k, l.pieceOf(b.End-1))
}

// newPieceLayout divides bufs (placed in order) by cuts, with cuts[mid]
// the middle one, or returns nil when there are none. Empty buffers are in no piece and no list (their
// offset is 0).
func newPieceLayout(bufs []Buffer, order []int, cuts []int64, mid int) *pieceLayout {
	if len(cuts) == 0 {
		return nil
	}
	np := len(cuts) + 1
	l := &pieceLayout{cuts: cuts, mid: mid, first: make([]int, np+1), meet: make([][]int32, np)}
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
			l.meet[k] = append(l.meet[k], int32(i))
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

// pieceSide places one side of a pieceLayout, exactly in order, among
// the buffers across the middle cut (already placed at off).
//
// A buffer inside a piece meets only buffers of that piece and the ones
// that cross one of its cuts. A crossing buffer is placed at its turn,
// after the buffers before it in the order of every piece it meets, over
// their indexes together, and recorded in each. So a piece runs ahead
// alone until the next crossing buffer that meets it, and the offsets are
// those of a single index.
//
// Example: cuts at steps 10 and 20 make three pieces; a buffer x = [12,
// 25) crosses 20. The order a (piece 0), b (piece 1), x, c (piece 2), d
// (piece 1) runs a; then b, and piece 2 up to x's turn (nothing); x over
// the indexes of pieces 1 and 2; then c and d. Piece 0 never waits.
type pieceSide struct {
	lay    *pieceLayout
	bufs   []Buffer
	order  []int
	off    []int64
	policy fitPolicy
	ctx    context.Context

	ixs    []*timeIndex // open pieces' indexes
	cur    []int        // each piece's next member (into lay.members)
	placed int
}

// place places side s (0 or 1).
func (sd *pieceSide) place(s int) error {
	l := sd.lay
	lo, hi := 0, l.mid // the side's pieces
	if s == 1 {
		lo, hi = l.mid+1, len(l.cuts)
	}
	sd.ixs = make([]*timeIndex, len(l.cuts)+1)
	sd.cur = slices.Clone(l.first[:len(l.cuts)+1])
	// left[k] counts the crossing buffers of the side still to place in
	// piece k: the piece's index is dropped after the last.
	left := make([]int, len(l.cuts)+1)
	for _, r := range l.cross[s] {
		k1, k2 := l.meets(&sd.bufs[sd.order[r]])
		for k := k1; k <= k2; k++ {
			left[k]++
		}
	}
	end := len(sd.order)
	q := &timeIndex{} // the sets of a crossing buffer's pieces together
	for _, r := range l.cross[s] {
		i := sd.order[r]
		b := &sd.bufs[i]
		k1, k2 := l.meets(b)
		q.sets = q.sets[:0]
		for k := k1; k <= k2; k++ {
			if err := sd.advance(k, int(r)); err != nil {
				return err
			}
			sd.ixs[k].collect(b.Start, b.End)
			q.sets = append(q.sets, sd.ixs[k].sets...)
		}
		if err := sd.tick(); err != nil {
			return err
		}
		q.cur = q.cur[:0]
		for range q.sets {
			q.cur = append(q.cur, 0)
		}
		o := q.choose(b, sd.policy)
		sd.off[i] = o
		for k := k1; k <= k2; k++ {
			sd.ixs[k].record(o, o+b.Size) // collect left b's nodes there
			if left[k]--; left[k] == 0 {
				if err := sd.advance(k, end); err != nil {
					return err
				}
				sd.ixs[k] = nil
			}
		}
	}
	for k := lo; k <= hi; k++ {
		if sd.cur[k] < l.first[k+1] {
			if err := sd.advance(k, end); err != nil {
				return err
			}
			sd.ixs[k] = nil
		}
	}
	return nil
}

func (sd *pieceSide) tick() error {
	if sd.placed++; sd.placed&1023 == 0 {
		return ctxErr(sd.ctx)
	}
	return nil
}

// open returns piece k's index, made on first use with the buffers of
// the middle cut that meet it as obstacles.
func (sd *pieceSide) open(k int) *timeIndex {
	if ix := sd.ixs[k]; ix != nil {
		return ix
	}
	l := sd.lay
	var idx []int
	for _, r := range l.members[l.first[k]:l.first[k+1]] {
		idx = append(idx, sd.order[r])
	}
	for _, i := range l.meet[k] {
		idx = append(idx, int(i))
	}
	ix := newTimeIndexOf(sd.bufs, idx)
	for _, i := range l.meet[k] {
		if b := &sd.bufs[i]; l.isTop(b) {
			ix.add(b.Start, b.End, sd.off[i], sd.off[i]+b.Size)
		}
	}
	sd.ixs[k] = ix
	return ix
}

// isTop reports whether b crosses the middle cut.
func (l *pieceLayout) isTop(b *Buffer) bool {
	k1, k2 := l.meets(b)
	return k1 <= l.mid && k2 > l.mid
}

// advance places piece k's members of rank below r.
func (sd *pieceSide) advance(k, r int) error {
	l := sd.lay
	ix := sd.open(k)
	for ; sd.cur[k] < l.first[k+1] && int(l.members[sd.cur[k]]) < r; sd.cur[k]++ {
		if err := sd.tick(); err != nil {
			return err
		}
		i := sd.order[l.members[sd.cur[k]]]
		b := &sd.bufs[i]
		o := ix.fit(b, sd.policy)
		sd.off[i] = o
		ix.record(o, o+b.Size)
	}
	return nil
}
