package profile

import "testing"

// record is what a driver does per dispatch: test Enabled, then record.
func record(p *Profiler, i int) {
	if p.Enabled() {
		p.RecordDispatch(Dispatch{Label: "op", Kind: "conv", Index: i, StartNs: int64(i), EndNs: int64(i + 1)})
	}
	p.Add("group", 1)
}

// BenchmarkDisabled measures the per-dispatch cost of a nil profiler: the
// branch in Enabled plus the nil check in Add.
func BenchmarkDisabled(b *testing.B) {
	var p *Profiler
	for i := 0; b.Loop(); i++ {
		record(p, i)
	}
}

// BenchmarkEnabled is the same loop recording into a real profiler.
func BenchmarkEnabled(b *testing.B) {
	p := New()
	for i := 0; b.Loop(); i++ {
		record(p, i)
	}
}

// BenchmarkBaseline is the loop of BenchmarkDisabled without the profiler
// calls, so the difference is their cost.
func BenchmarkBaseline(b *testing.B) {
	var sink int
	for i := 0; b.Loop(); i++ {
		sink += i
	}
	_ = sink
}
