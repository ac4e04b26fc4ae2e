package memranges

import (
	"math/rand/v2"
	"testing"
)

// wideStream builds a synthetic stream of n dispatches in groups of about
// group dispatches (uniform in [group/2, 3*group/2)). Group g writes
// non-touching 4000-byte slots of arena region g%2, reads two slots of the
// region the previous group wrote plus one of eight 1 MiB weight buffers, so
// every group is one wide concurrent group and the first dispatch of the
// next group conflicts (RAW). With shuffled false, dispatch k writes slot k
// and reads slots k and k+1, the address order a planner gives a layer; with
// shuffled true, slots are random, so the interval sets grow to hundreds of
// disjoint entries in random order: the index's worst case.
func wideStream(n, group int, shuffled bool, seed uint64) []Dispatch {
	const slot, length = 4096, 4000
	r := rand.New(rand.NewPCG(seed, 1))
	region := int64(2*group) * slot
	ds := make([]Dispatch, 0, n)
	for g := 0; len(ds) < n; g++ {
		size := group/2 + r.IntN(group)
		perm := r.Perm(size)
		for k := 0; k < size && len(ds) < n; k++ {
			w, r1, r2 := int64(k), int64(k), int64(k+1)
			if shuffled {
				w, r1, r2 = int64(perm[k]), int64(r.IntN(size)), int64(r.IntN(size))
			}
			cur, prev := int64(g%2)*region, int64((g+1)%2)*region
			ds = append(ds, Dispatch{Node: -1, Uses: []Use{
				{Range: Range{Buf: 0, Off: prev + r1*slot, Len: length}, Access: Read, Value: -1},
				{Range: Range{Buf: 0, Off: prev + r2*slot, Len: length}, Access: Read, Value: -1},
				{Range: Range{Buf: BufferID(1 + r.IntN(8)), Off: 0, Len: 1 << 20}, Access: Read, Value: -1},
				{Range: Range{Buf: 0, Off: cur + w*slot, Len: length}, Access: Write, Value: -1},
			}})
		}
	}
	return ds
}

// BenchmarkTrackerWide measures Check+Add (and Reset at each barrier) per
// dispatch on 100,000-dispatch streams with groups of about 300.
func BenchmarkTrackerWide(b *testing.B) {
	for _, shuffled := range []bool{false, true} {
		name := map[bool]string{false: "ordered", true: "shuffled"}[shuffled]
		ds := wideStream(100_000, 300, shuffled, 1)
		b.Run(name, func(b *testing.B) { benchTracker(b, ds) })
	}
}

func benchTracker(b *testing.B, ds []Dispatch) {
	t := NewTracker(Exact)
	b.ResetTimer()
	for b.Loop() {
		for j := range ds {
			if bad, _ := t.Check(ds[j].Uses); bad {
				t.Reset()
			}
			t.Add(ds[j].Uses)
		}
		t.Reset()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(ds)), "ns/dispatch")
	b.ReportMetric(float64(len(ds))/float64(t.Barriers())*float64(b.N), "dispatches/group")
}

// BenchmarkPlaceBarriersWide measures the whole greedy placement, causes
// included, per dispatch on the same stream.
func BenchmarkPlaceBarriersWide(b *testing.B) {
	ds := wideStream(100_000, 300, true, 1)
	var bs []Barrier
	for b.Loop() {
		bs = PlaceBarriers(Exact, ds)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(ds)), "ns/dispatch")
	b.ReportMetric(float64(len(bs)), "barriers")
}

// BenchmarkPlaceBarriersWideGGML is the same placement with ggml's test.
func BenchmarkPlaceBarriersWideGGML(b *testing.B) {
	ds := wideStream(100_000, 300, true, 1)
	var bs []Barrier
	for b.Loop() {
		bs = PlaceBarriers(GGML, ds)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(ds)), "ns/dispatch")
	b.ReportMetric(float64(len(bs)), "barriers")
}

// scanTracker is the llama.cpp-style baseline: it keeps the group's uses in
// a list and compares each new use with every recorded one. It exists only
// to show, in the benchmark, what the interval index saves.
type scanTracker struct{ uses []Use }

func (s *scanTracker) check(us []Use) bool {
	for _, u := range us {
		for _, o := range s.uses {
			if Conflict(Exact, o, u) != NoHazard {
				return true
			}
		}
	}
	return false
}

// BenchmarkScanBaselineWide is the linear-scan baseline on the shuffled
// wide stream (first 20,000 dispatches: the scan is quadratic per group).
func BenchmarkScanBaselineWide(b *testing.B) {
	ds := wideStream(20_000, 300, true, 1)
	var s scanTracker
	for b.Loop() {
		for j := range ds {
			if s.check(ds[j].Uses) {
				s.uses = s.uses[:0]
			}
			s.uses = append(s.uses, ds[j].Uses...)
		}
		s.uses = s.uses[:0]
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(ds)), "ns/dispatch")
}
