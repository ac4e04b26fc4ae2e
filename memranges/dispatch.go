package memranges

import (
	"fmt"

	"github.com/memplan/memplan/ir"
)

// Dispatch is one kernel launch: the graph node it runs and every byte
// range it reads or writes. A dispatch never conflicts with itself (an
// in-place op reads and writes the same bytes within one kernel).
type Dispatch struct {
	Node ir.NodeID // the node, or -1 for synthetic streams
	Name string    // for reports: node name and op
	Uses []Use
}

// Reads returns the ranges the dispatch reads, in Uses order.
func (d *Dispatch) Reads() []Range { return d.ranges(Read) }

// Writes returns the ranges the dispatch writes, in Uses order.
func (d *Dispatch) Writes() []Range { return d.ranges(Write) }

func (d *Dispatch) ranges(a Access) []Range {
	var out []Range
	for _, u := range d.Uses {
		if u.Access == a {
			out = append(out, u.Range)
		}
	}
	return out
}

// Pair is one conflicting pair of dispatches, by position in a dispatch
// list (First < Second), with the first pair of uses that conflict and the
// hazard between them.
type Pair struct {
	First, Second       int
	FirstUse, SecondUse Use
	Hazard              Hazard
}

// String prints the pair as "RAW #3 write buf0[0,64) -> #5 read buf0[32,96)".
func (p Pair) String() string {
	return fmt.Sprintf("%v #%d %v %v -> #%d %v %v", p.Hazard, p.First, p.FirstUse.Access, p.FirstUse.Range,
		p.Second, p.SecondUse.Access, p.SecondUse.Range)
}

// Conflicts reports whether dispatch b, issued after a, conflicts with a
// under mode m. When it does, the returned pair (with positions left zero)
// names the first conflicting uses in a's then b's Uses order.
func Conflicts(m Mode, a, b *Dispatch) (Pair, bool) {
	for _, ub := range b.Uses {
		for _, ua := range a.Uses {
			if h := Conflict(m, ua, ub); h != NoHazard {
				return Pair{FirstUse: ua, SecondUse: ub, Hazard: h}, true
			}
		}
	}
	return Pair{}, false
}

// ConflictingPairs lists every conflicting pair i < j of ds under mode m,
// ordered by (Second, First). It is the O(n^2) definition the rest of the
// package is checked against.
func ConflictingPairs(m Mode, ds []Dispatch) []Pair {
	var out []Pair
	eachConflict(m, ds, func(p Pair) { out = append(out, p) })
	return out
}

// eachConflict calls fn for every conflicting pair, in ConflictingPairs
// order, without materialising the list.
func eachConflict(m Mode, ds []Dispatch, fn func(Pair)) {
	for j := range ds {
		for i := 0; i < j; i++ {
			if p, ok := Conflicts(m, &ds[i], &ds[j]); ok {
				p.First, p.Second = i, j
				fn(p)
			}
		}
	}
}
