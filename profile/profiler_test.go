package profile

import (
	"bytes"
	"sync"
	"testing"
)

func TestNilProfilerIsDisabled(t *testing.T) {
	var p *Profiler
	eq(t, p.Enabled(), false, "Enabled")
	p.SetGraph("x")
	p.RecordDispatch(Dispatch{Label: "a", EndNs: 5})
	eq(t, p.RecordGroup("g", 0, 1), -1, "RecordGroup")
	p.RecordBarrier(Barrier{})
	p.RecordRun(0, 1)
	p.Add("a", 1)
	p.Reset()
	eq(t, len(p.Stats())+len(p.DispatchStats())+len(p.Dispatches())+len(p.Groups())+len(p.Barriers())+len(p.Runs()), 0, "records of nil")
	eq(t, p.Graph(), "graph", "Graph")
	rows, wall := p.KindStats()
	eq(t, rows, []KindStat{{Kind: IdleKind}}, "KindStats")
	eq(t, wall, int64(0), "wall")
	var buf bytes.Buffer
	noErr(t, p.WriteTable(&buf, 10))
	noErr(t, p.WriteKindTable(&buf))
	noErr(t, p.WriteDispatches(&buf))
	noErr(t, p.WriteTrace(&buf))
	noErr(t, p.WritePprof(&buf))
	eq(t, New().Enabled(), true, "New().Enabled")
}

func TestAccumulators(t *testing.T) {
	cases := []struct {
		name string
		durs []int64
		want Stat
	}{
		{"one", []int64{7}, Stat{Label: "x", Count: 1, TotalNs: 7, MinNs: 7, MaxNs: 7}},
		{"several", []int64{5, 1, 9, 3}, Stat{Label: "x", Count: 4, TotalNs: 18, MinNs: 1, MaxNs: 9}},
		{"negative counts as zero", []int64{-4, 6}, Stat{Label: "x", Count: 2, TotalNs: 6, MinNs: 0, MaxNs: 6}},
		{"zeros", []int64{0, 0}, Stat{Label: "x", Count: 2}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := New()
			for _, d := range c.durs {
				p.Add("x", d)
			}
			eq(t, p.Stats(), []Stat{c.want}, "Stats")
			eq(t, p.Stats()[0].MeanNs(), c.want.TotalNs/c.want.Count, "MeanNs")
		})
	}
}

func TestStatsSortedByTotalThenLabel(t *testing.T) {
	p := New()
	p.Add("b", 10)
	p.Add("a", 10)
	p.Add("c", 30)
	p.Add("d", 1)
	var labels []string
	for _, s := range p.Stats() {
		labels = append(labels, s.Label)
	}
	eq(t, labels, []string{"c", "a", "b", "d"}, "order")
	eq(t, Stat{}.MeanNs(), int64(0), "mean of empty")
}

func TestRecordKeepsArrivalOrderAndClamps(t *testing.T) {
	p := fixture()
	ds := p.Dispatches()
	eq(t, len(ds), 4, "dispatches")
	for i, d := range ds {
		eq(t, d.Index, i, "arrival order")
	}
	eq(t, p.Groups(), []Group{{0, "g0", 100, 500}, {1, "g1", 550, 900}}, "groups")
	eq(t, p.Runs(), []Span{{0, 1000}}, "runs")
	eq(t, len(p.Barriers()), 1, "barriers")
	eq(t, p.Graph(), "tiny", "graph")

	// Group spans feed the label accumulators beside Add.
	eq(t, p.Stats(), []Stat{
		{Label: "g0", Count: 1, TotalNs: 400, MinNs: 400, MaxNs: 400},
		{Label: "g1", Count: 1, TotalNs: 350, MinNs: 350, MaxNs: 350},
		{Label: "encode", Count: 2, TotalNs: 40, MinNs: 10, MaxNs: 30},
	}, "stats")

	q := New()
	q.RecordDispatch(Dispatch{Label: "back", StartNs: 10, EndNs: 3})
	q.RecordGroup("back", 10, 3)
	q.RecordRun(10, 3)
	eq(t, q.Dispatches()[0].DurationNs(), int64(0), "clamped dispatch")
	eq(t, q.Groups()[0].EndNs, int64(10), "clamped group")
	eq(t, q.Runs(), []Span{{10, 10}}, "clamped run")

	p.Reset()
	eq(t, len(p.Dispatches())+len(p.Stats()), 0, "after Reset")
	eq(t, p.Graph(), "tiny", "graph after Reset")
}

// TestConcurrentRecording is meant for -race: many workers record and read
// at once and nothing is lost.
func TestConcurrentRecording(t *testing.T) {
	p := New()
	const workers, each = 8, 200
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				t0 := int64(i * 10)
				p.RecordDispatch(Dispatch{Label: "op", Kind: "k", Index: i, Lane: w, StartNs: t0, EndNs: t0 + 5})
				p.Add("lane", 5)
				if i%50 == 0 {
					p.RecordGroup("grp", t0, t0+5)
					p.RecordBarrier(Barrier{Before: i, AtNs: t0})
				}
				_ = p.Stats()
				_, _ = p.KindStats()
			}
		}(w)
	}
	wg.Wait()
	eq(t, len(p.Dispatches()), workers*each, "dispatches")
	eq(t, len(p.Groups()), workers*each/50, "groups")
	eq(t, len(p.Barriers()), workers*each/50, "barriers")
	byLabel := map[string]Stat{}
	for _, s := range p.Stats() {
		byLabel[s.Label] = s
	}
	eq(t, byLabel["lane"], Stat{Label: "lane", Count: workers * each, TotalNs: workers * each * 5, MinNs: 5, MaxNs: 5}, "lane stat")
	eq(t, p.DispatchStats(), []Stat{{Label: "op", Count: workers * each, TotalNs: workers * each * 5, MinNs: 5, MaxNs: 5}}, "dispatch stats")
}
