package profile

// Wall-time attribution by op kind.
//
// A run's dispatches may overlap: the dispatches of one concurrent group run
// on several lanes at once, so summing their durations counts the same
// wall-clock nanosecond more than once. To give a table whose rows add up
// to the wall time, KindStats sweeps the timeline. It cuts the recorded run
// spans at every dispatch start and end; inside each piece the set of
// running dispatches is constant, and the piece's length is split evenly
// among them (a kind with two of three running dispatches gets two thirds).
// A piece in which nothing runs is charged to IdleKind: driver overhead,
// encoding, waiting on barriers.
//
// Worked example, one run [0,10):
//
//	lane 0:  conv  [0,6)
//	lane 1:  relu      [4,8)
//	time:    0   4   6   8   10
//	pieces:  [0,4) conv alone      -> conv 4
//	         [4,6) conv and relu   -> conv 1, relu 1
//	         [6,8) relu alone      -> relu 2
//	         [8,10) nothing        -> idle 2
//	rows:    conv 5, relu 3, idle 2 = wall 10 (busy: conv 6, relu 4)
//
// The sweep is O(n log n) for sorting the 2n boundaries plus O(n·K) for
// charging K kinds per piece.

import (
	"math"
	"sort"
)

// IdleKind labels the wall time during which no dispatch was running.
const IdleKind = "(idle/driver)"

// KindStat is the time of one op kind over the recorded runs.
type KindStat struct {
	Kind    string // op kind, or IdleKind
	Count   int64  // dispatches of this kind
	BusyNs  int64  // sum of their durations (counts overlap more than once)
	ShareNs int64  // their share of wall time; shares add up to the wall time
}

// KindStats returns one row per op kind, sorted by ShareNs (largest first)
// then by kind, followed by the IdleKind row, and the wall time the shares
// add up to (up to rounding of a nanosecond per row). The wall time is the
// total length of the recorded runs, or, when none was recorded, the span
// from the earliest dispatch or group start to the latest end. Dispatch
// time outside every run is ignored.
func (p *Profiler) KindStats() (rows []KindStat, wallNs int64) {
	s := p.snapshot()
	return kindStats(&s)
}

func kindStats(s *snapshot) ([]KindStat, int64) {
	runs := s.runs
	if len(runs) == 0 {
		if sp, ok := s.extent(); ok {
			runs = []Span{sp}
		}
	}
	// Kinds get dense ids in sorted order so the sweep works on slices.
	kindID := map[string]int{}
	var kinds []string
	for _, d := range s.dispatches {
		k := kindName(d.Kind)
		if _, ok := kindID[k]; !ok {
			kindID[k] = -1
			kinds = append(kinds, k)
		}
	}
	sort.Strings(kinds)
	for i, k := range kinds {
		kindID[k] = i
	}
	count := make([]int64, len(kinds))
	busy := make([]int64, len(kinds))

	// Boundaries: +1/-1 on the running count of a kind (k >= 0) or of
	// runs (k == -1). Ends sort before starts at equal times so that
	// touching spans do not overlap.
	type edge struct {
		t     int64
		delta int
		k     int
	}
	edges := make([]edge, 0, 2*len(s.dispatches)+2*len(runs))
	for _, d := range s.dispatches {
		k := kindID[kindName(d.Kind)]
		count[k]++
		busy[k] += d.DurationNs()
		if d.EndNs > d.StartNs {
			edges = append(edges, edge{d.StartNs, +1, k}, edge{d.EndNs, -1, k})
		}
	}
	for _, r := range runs {
		if r.EndNs > r.StartNs {
			edges = append(edges, edge{r.StartNs, +1, -1}, edge{r.EndNs, -1, -1})
		}
	}
	sort.Slice(edges, func(i, j int) bool {
		if edges[i].t != edges[j].t {
			return edges[i].t < edges[j].t
		}
		return edges[i].delta < edges[j].delta
	})

	share := make([]float64, len(kinds))
	var idle float64
	var wall int64
	running := make([]int64, len(kinds))
	var nRunning int64
	inRun := 0
	for i, e := range edges {
		if i > 0 && e.t > edges[i-1].t && inRun > 0 {
			piece := e.t - edges[i-1].t
			wall += piece
			if nRunning == 0 {
				idle += float64(piece)
			} else {
				for k, c := range running {
					if c > 0 {
						share[k] += float64(piece) * float64(c) / float64(nRunning)
					}
				}
			}
		}
		if e.k < 0 {
			inRun += e.delta
		} else {
			running[e.k] += int64(e.delta)
			nRunning += int64(e.delta)
		}
	}

	rows := make([]KindStat, 0, len(kinds)+1)
	for k, name := range kinds {
		rows = append(rows, KindStat{Kind: name, Count: count[k], BusyNs: busy[k], ShareNs: int64(math.Round(share[k]))})
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].ShareNs != rows[j].ShareNs {
			return rows[i].ShareNs > rows[j].ShareNs
		}
		return rows[i].Kind < rows[j].Kind
	})
	rows = append(rows, KindStat{Kind: IdleKind, ShareNs: int64(math.Round(idle))})
	return rows, wall
}

// extent is the span from the earliest start to the latest end of every
// dispatch and group; ok is false when nothing was recorded.
func (s *snapshot) extent() (Span, bool) {
	var sp Span
	ok := false
	grow := func(a, b int64) {
		if !ok {
			sp, ok = Span{a, b}, true
			return
		}
		sp.StartNs = min(sp.StartNs, a)
		sp.EndNs = max(sp.EndNs, b)
	}
	for _, d := range s.dispatches {
		grow(d.StartNs, d.EndNs)
	}
	for _, g := range s.groups {
		grow(g.StartNs, g.EndNs)
	}
	return sp, ok
}
