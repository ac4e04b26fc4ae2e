package memranges

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// bruteReduction keeps conflict edge i->j iff no k between them is reached
// from i and reaches j, by plain recursion over the conflict relation.
func bruteReduction(ds []Dispatch) map[Edge]bool {
	n := len(ds)
	conf := func(i, j int) bool { _, ok := Conflicts(Exact, &ds[i], &ds[j]); return ok }
	var reach func(i, j int) bool
	reach = func(i, j int) bool {
		if conf(i, j) {
			return true
		}
		for k := i + 1; k < j; k++ {
			if conf(i, k) && reach(k, j) {
				return true
			}
		}
		return false
	}
	out := map[Edge]bool{}
	for j := range n {
		for i := range j {
			if !conf(i, j) {
				continue
			}
			implied := false
			for k := i + 1; k < j && !implied; k++ {
				implied = reach(i, k) && reach(k, j)
			}
			if !implied {
				out[Edge{i, j}] = true
			}
		}
	}
	return out
}

func TestEdgesReduction(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ds := genDispatches(t, 9)
		es := Edges(ds)
		err := VerifyEdges(ds, es)
		require.NoErrorf(t, err, "VerifyEdges: %v", err)
		want := bruteReduction(ds)
		require.Lenf(t, es, len(want), "%d edges %v, brute-force reduction has %d %v", len(es), es, len(want), want)
		for k, e := range es {
			require.Truef(t, want[e], "edge %v not in the brute-force reduction", e)
			require.Falsef(t, k > 0 && (es[k-1].To > e.To || es[k-1].To == e.To && es[k-1].From >= e.From), "edges not sorted by (To, From): %v", es)
			// Every edge of a transitive reduction is needed.
			cut := append(append([]Edge{}, es[:k]...), es[k+1:]...)
			err := VerifyEdges(ds, cut)
			require.ErrorIsf(t, err, ErrEdge, "VerifyEdges accepted the set without %v: %v", e, err)
		}
	})
}

func TestVerifyEdgesRejectsCorrupt(t *testing.T) {
	ds := []Dispatch{
		{Uses: []Use{use(0, 0, 8, Write)}},
		{Uses: []Use{use(0, 0, 8, Read)}},
	}
	for _, es := range [][]Edge{nil, {{1, 0}}, {{0, 0}}, {{0, 2}}, {{-1, 1}}} {
		err := VerifyEdges(ds, es)
		assert.ErrorIsf(t, err, ErrEdge, "VerifyEdges(%v) = %v, want ErrEdge", es, err)
	}
}

// TestEdgeCauses: every edge of the reduction gets a real hazard whose
// kind matches the accesses and whose ranges overlap (or one is invalid,
// which conflicts conservatively); an edge between
// dispatches that do not conflict gets NoHazard.
func TestEdgeCauses(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ds := genDispatches(t, 9)
		es := Edges(ds)
		cs := EdgeCauses(ds, es)
		require.Lenf(t, cs, len(es), "%d causes for %d edges", len(cs), len(es))
		for k, c := range cs {
			e := es[k]
			require.Falsef(t, c.First != e.From || c.Second != e.To, "cause %v is not about edge %v", c, e)
			require.Falsef(t, c.Hazard == NoHazard || c.Hazard != HazardOf(c.FirstUse.Access, c.SecondUse.Access) || Conflict(Exact, c.FirstUse, c.SecondUse) != c.Hazard ||
				(c.FirstUse.Valid() && c.SecondUse.Valid() && !c.FirstUse.Overlaps(c.SecondUse.Range)), "edge %v: cause %v is not a hazard between overlapping ranges", e, c)
		}
	})
	ds := []Dispatch{
		{Uses: []Use{use(0, 0, 8, Write)}},
		{Uses: []Use{use(0, 4, 8, Read)}},
		{Uses: []Use{use(0, 16, 8, Read)}},
	}
	got := EdgeCauses(ds, []Edge{{0, 1}, {0, 2}, {1, 3}})
	if got[0].String() != "RAW #0 write buf0[0,8) -> #1 read buf0[4,12)" {
		t.Errorf("edge 0->1: %v", got[0])
	}
	if got[1].Hazard != NoHazard || got[2].Hazard != NoHazard {
		t.Errorf("edges without a conflict or out of range got hazards: %v, %v", got[1], got[2])
	}
}
