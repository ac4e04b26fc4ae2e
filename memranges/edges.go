package memranges

// Dependency edges for point-to-point backends.
//
// A CUDA graph or a set of Metal fences orders dispatches by explicit edges
// instead of global barriers. The conflict DAG itself is a valid edge set,
// but most of its edges are implied by others: if a -> b and b -> c, then
// a -> c adds nothing. The transitive reduction keeps only the edges not
// implied by a longer path; for a DAG it is unique.
//
//	conflict DAG              reduction
//	#0 -> #1, #0 -> #2        #0 -> #1
//	#1 -> #2                  #1 -> #2
//
// Algorithm: visit dispatches in order, keeping for each the bitset of its
// ancestors. For dispatch j, walk its conflict predecessors from the latest
// to the earliest; a predecessor i that is already an ancestor of a later
// kept predecessor is implied (every path into i passes through smaller
// positions, so a later predecessor that reaches i has been visited
// first); otherwise keep i -> j and add i and i's ancestors. The result is
// O(n * e / 64) word operations for e conflict edges.

// Edge orders dispatch To after dispatch From (positions, From < To).
type Edge struct {
	From, To int
}

// Edges returns the transitive reduction of the conflict DAG of ds, sorted
// by (To, From).
func Edges(ds []Dispatch) []Edge {
	preds := ConflictDAG(ds)
	n := len(ds)
	words := (n + 63) / 64
	anc := make([][]uint64, n)
	var out []Edge
	for j := range n {
		a := make([]uint64, words)
		var kept []Edge
		for k := len(preds[j]) - 1; k >= 0; k-- {
			i := preds[j][k]
			if a[i/64]&(1<<(uint(i)%64)) != 0 {
				continue
			}
			kept = append(kept, Edge{From: i, To: j})
			a[i/64] |= 1 << (uint(i) % 64)
			for w, x := range anc[i] {
				a[w] |= x
			}
		}
		anc[j] = a
		for k := len(kept) - 1; k >= 0; k-- {
			out = append(out, kept[k])
		}
	}
	return out
}

// EdgeCauses returns, for each edge of es (in es order), the hazard that
// makes it necessary: the first conflicting pair of uses of its two
// dispatches in exact mode, as Conflicts finds it, with First = From and
// Second = To. An edge whose dispatches do not conflict (not one Edges
// returns) gets a Pair with NoHazard, so a caller can tell.
func EdgeCauses(ds []Dispatch, es []Edge) []Pair {
	out := make([]Pair, len(es))
	for k, e := range es {
		p := Pair{First: e.From, Second: e.To}
		if e.From >= 0 && e.To < len(ds) && e.From < e.To {
			if c, ok := Conflicts(Exact, &ds[e.From], &ds[e.To]); ok {
				p.FirstUse, p.SecondUse, p.Hazard = c.FirstUse, c.SecondUse, c.Hazard
			}
		}
		out[k] = p
	}
	return out
}
