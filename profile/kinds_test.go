package profile

import (
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func TestKindStatsWorkedExample(t *testing.T) {
	p := New()
	p.RecordDispatch(Dispatch{Label: "c", Kind: "conv", Lane: 0, StartNs: 0, EndNs: 6})
	p.RecordDispatch(Dispatch{Label: "r", Kind: "relu", Lane: 1, StartNs: 4, EndNs: 8})
	p.RecordRun(0, 10)
	rows, wall := p.KindStats()
	eq(t, rows, []KindStat{
		{Kind: "conv", Count: 1, BusyNs: 6, ShareNs: 5},
		{Kind: "relu", Count: 1, BusyNs: 4, ShareNs: 3},
		{Kind: IdleKind, ShareNs: 2},
	}, "rows")
	eq(t, wall, int64(10), "wall")
}

func TestKindStatsCases(t *testing.T) {
	type d = Dispatch
	cases := []struct {
		name string
		ds   []Dispatch
		runs []Span
		rows []KindStat
		wall int64
	}{
		{"no run recorded: extent of dispatches", []Dispatch{{Kind: "a", StartNs: 10, EndNs: 20}, {Kind: "b", StartNs: 30, EndNs: 40}}, nil,
			[]KindStat{{Kind: "a", Count: 1, BusyNs: 10, ShareNs: 10}, {Kind: "b", Count: 1, BusyNs: 10, ShareNs: 10}, {Kind: IdleKind, ShareNs: 10}}, 30},
		{"dispatch outside the run is ignored", []Dispatch{{Kind: "a", StartNs: 0, EndNs: 10}, {Kind: "a", StartNs: 50, EndNs: 60}}, []Span{{0, 20}},
			[]KindStat{{Kind: "a", Count: 2, BusyNs: 20, ShareNs: 10}, {Kind: IdleKind, ShareNs: 10}}, 20},
		{"two runs, gap not counted", []Dispatch{{Kind: "a", StartNs: 0, EndNs: 5}, {Kind: "a", StartNs: 100, EndNs: 105}}, []Span{{0, 10}, {100, 110}},
			[]KindStat{{Kind: "a", Count: 2, BusyNs: 10, ShareNs: 10}, {Kind: IdleKind, ShareNs: 10}}, 20},
		{"three-way overlap split evenly", []Dispatch{{Kind: "a", StartNs: 0, EndNs: 9}, {Kind: "a", StartNs: 0, EndNs: 9}, {Kind: "b", StartNs: 0, EndNs: 9}}, []Span{{0, 9}},
			[]KindStat{{Kind: "a", Count: 2, BusyNs: 18, ShareNs: 6}, {Kind: "b", Count: 1, BusyNs: 9, ShareNs: 3}, {Kind: IdleKind}}, 9},
		{"empty kind prints as ?", []Dispatch{{StartNs: 0, EndNs: 4}}, []Span{{0, 4}},
			[]KindStat{{Kind: "?", Count: 1, BusyNs: 4, ShareNs: 4}, {Kind: IdleKind}}, 4},
		{"zero-length dispatch counts but takes no wall", []Dispatch{{Kind: "a", StartNs: 2, EndNs: 2}}, []Span{{0, 4}},
			[]KindStat{{Kind: "a", Count: 1}, {Kind: IdleKind, ShareNs: 4}}, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := New()
			for _, x := range c.ds {
				p.RecordDispatch(d(x))
			}
			for _, r := range c.runs {
				p.RecordRun(r.StartNs, r.EndNs)
			}
			rows, wall := p.KindStats()
			eq(t, rows, c.rows, "rows")
			eq(t, wall, c.wall, "wall")
		})
	}
}

// TestKindStatsMatchesOracle checks the sweep against a brute-force
// nanosecond-by-nanosecond attribution on small random timelines.
func TestKindStatsMatchesOracle(t *testing.T) {
	kinds := []string{"a", "b", "c"}
	rapid.Check(t, func(rt *rapid.T) {
		p := New()
		n := rapid.IntRange(0, 8).Draw(rt, "n")
		var ds []Dispatch
		for i := 0; i < n; i++ {
			s := rapid.Int64Range(0, 40).Draw(rt, "start")
			l := rapid.Int64Range(0, 15).Draw(rt, "len")
			d := Dispatch{Kind: kinds[rapid.IntRange(0, 2).Draw(rt, "kind")], StartNs: s, EndNs: s + l}
			ds = append(ds, d)
			p.RecordDispatch(d)
		}
		var runs []Span
		for i, m := 0, rapid.IntRange(0, 2).Draw(rt, "runs"); i < m; i++ {
			s := rapid.Int64Range(0, 50).Draw(rt, "rs")
			r := Span{s, s + rapid.Int64Range(0, 20).Draw(rt, "rl")}
			runs = append(runs, r)
			p.RecordRun(r.StartNs, r.EndNs)
		}
		if len(runs) == 0 && len(ds) > 0 {
			lo, hi := ds[0].StartNs, ds[0].EndNs
			for _, d := range ds {
				lo, hi = min(lo, d.StartNs), max(hi, d.EndNs)
			}
			runs = []Span{{lo, hi}}
		}
		// Oracle: walk every nanosecond.
		share := map[string]float64{}
		var wall int64
		for t := int64(0); t < 80; t++ {
			in := false
			for _, r := range runs {
				in = in || (r.StartNs <= t && t < r.EndNs)
			}
			if !in {
				continue
			}
			wall++
			var act []string
			for _, d := range ds {
				if d.StartNs <= t && t < d.EndNs {
					act = append(act, d.Kind)
				}
			}
			if len(act) == 0 {
				share[IdleKind]++
			}
			for _, k := range act {
				share[k] += 1 / float64(len(act))
			}
		}
		rows, gotWall := p.KindStats()
		require.Equalf(rt, wall, gotWall, "wall %d, oracle %d", gotWall, wall)
		var sum int64
		for _, r := range rows {
			sum += r.ShareNs
			if diff := float64(r.ShareNs) - share[r.Kind]; diff > 0.5+1e-9 || diff < -0.5-1e-9 {
				rt.Fatalf("kind %s share %d, oracle %.3f", r.Kind, r.ShareNs, share[r.Kind])
			}
		}
		d := sum - wall
		require.Falsef(rt, d > int64(len(rows)) || d < -int64(len(rows)), "shares sum to %d, wall %d", sum, wall)
	})
}
