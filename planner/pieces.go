package planner

import (
	"context"
	"fmt"
	"slices"
)

// placePieces places the buffers part of bufs, in that order, among the
// buffers fixed (already placed at off), and writes their offsets to off:
// the offsets placeInOrder would give part with fixed as obstacles.
//
// It cuts time into pieces of about piece buffers of part (splitCuts)
// and gives each piece a time index of its own, small enough to stay in
// the processor's caches. A buffer inside a piece meets only buffers of
// that piece and the ones that cross one of its cuts; a crossing buffer is
// placed at its turn, after the buffers before it in the order of every
// piece it meets, over their indexes together, and recorded in each. So
// a piece runs ahead alone until the next crossing buffer that meets it,
// and the result is the one of a single index.
//
// Example: cuts at steps 10 and 20 make three pieces; a buffer [12, 25)
// crosses 20. The order a(piece 0), b(piece 1), x=[12, 25), c(piece 2),
// d(piece 1) runs a; then b, and piece 2 up to x's turn (nothing); x over
// the indexes of pieces 1 and 2; then c and d. Piece 0 never waits.
func placePieces(ctx context.Context, bufs []Buffer, part, fixed []int, off []int64, policy fitPolicy, piece int) error {
	var cuts []int64
	if k := len(part) / max(piece, 1); k >= 2 {
		cuts = splitCuts(bufs, part, k)
	}
	np := len(cuts) + 1
	// pieceOf is the piece holding step t: the number of cuts at or below it.
	pieceOf := func(t int64) int {
		i, _ := slices.BinarySearch(cuts, t+1)
		return i
	}
	// meets is the range of pieces b meets.
	meets := func(b *Buffer) (int, int) {
		k := pieceOf(b.Start)
		return k, max(k, pieceOf(b.End-1))
	}
	// The members of piece k, as positions in part, are
	// members[first[k]:first[k+1]]; crossing lists the positions of the
	// buffers that cross a cut; meet[k] the crossing and fixed buffers
	// that meet piece k.
	first := make([]int, np+1)
	var crossing []int32
	meet := make([][]int32, np)
	pieceOfPos := make([]int32, len(part))
	for p, i := range part {
		b := &bufs[i]
		k1, k2 := meets(b)
		if b.Size == 0 {
			pieceOfPos[p] = -1
			continue
		}
		if k1 != k2 {
			pieceOfPos[p] = -1
			crossing = append(crossing, int32(p))
			for k := k1; k <= k2; k++ {
				meet[k] = append(meet[k], int32(i))
			}
			continue
		}
		pieceOfPos[p] = int32(k1)
		first[k1+1]++
	}
	for k := range np {
		first[k+1] += first[k]
	}
	members := make([]int32, first[np])
	fill := slices.Clone(first[:np])
	for p, k := range pieceOfPos {
		if k >= 0 {
			members[fill[k]] = int32(p)
			fill[k]++
		}
	}
	pieceOfPos = nil
	var obstacles [][]int32
	if len(fixed) > 0 {
		obstacles = make([][]int32, np)
		for _, i := range fixed {
			if b := &bufs[i]; b.Size > 0 && b.End > b.Start {
				k1, k2 := meets(b)
				for k := k1; k <= min(k2, np-1); k++ {
					obstacles[k] = append(obstacles[k], int32(i))
				}
			}
		}
	}
	// left[k] counts the crossing buffers still to place in piece k.
	left := make([]int, np)
	for k := range np {
		left[k] = len(meet[k])
	}
	ixs := make([]*timeIndex, np)
	cur := fill // cursor into each piece's members
	copy(cur, first[:np])
	placed := 0
	tick := func() error {
		if placed++; placed&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("planner: placement cancelled: %w", err)
			}
		}
		return nil
	}
	open := func(k int) *timeIndex {
		if ixs[k] != nil {
			return ixs[k]
		}
		var idx []int
		for _, p := range members[first[k]:first[k+1]] {
			idx = append(idx, part[p])
		}
		for _, i := range meet[k] {
			idx = append(idx, int(i))
		}
		if obstacles != nil {
			for _, i := range obstacles[k] {
				idx = append(idx, int(i))
			}
		}
		ix := newTimeIndexOf(bufs, idx)
		if obstacles != nil {
			for _, i := range obstacles[k] {
				b := &bufs[i]
				ix.add(b.Start, b.End, off[i], off[i]+b.Size)
			}
		}
		ixs[k] = ix
		return ix
	}
	// advance places piece k's members before position p.
	advance := func(k, p int) error {
		ix := open(k)
		for ; cur[k] < first[k+1] && int(members[cur[k]]) < p; cur[k]++ {
			if err := tick(); err != nil {
				return err
			}
			i := part[members[cur[k]]]
			b := &bufs[i]
			o := ix.fit(b, policy)
			off[i] = o
			ix.record(o, o+b.Size)
		}
		return nil
	}
	q := &timeIndex{} // the sets of a crossing buffer's pieces together
	for _, p := range crossing {
		i := part[p]
		b := &bufs[i]
		k1, k2 := meets(b)
		q.sets = q.sets[:0]
		for k := k1; k <= k2; k++ {
			if err := advance(k, int(p)); err != nil {
				return err
			}
			ixs[k].collect(b.Start, b.End)
			q.sets = append(q.sets, ixs[k].sets...)
		}
		if err := tick(); err != nil {
			return err
		}
		q.cur = q.cur[:0]
		for range q.sets {
			q.cur = append(q.cur, 0)
		}
		o := q.choose(b, policy)
		off[i] = o
		for k := k1; k <= k2; k++ {
			ixs[k].record(o, o+b.Size) // collect left b's nodes there
			if left[k]--; left[k] == 0 {
				if err := advance(k, len(part)); err != nil {
					return err
				}
				ixs[k] = nil
			}
		}
	}
	for k := range np {
		if left[k] > 0 || cur[k] < first[k+1] {
			if err := advance(k, len(part)); err != nil {
				return err
			}
			ixs[k] = nil
		}
	}
	return nil
}
