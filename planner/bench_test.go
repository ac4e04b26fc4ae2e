package planner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

// synthetic returns n buffers shaped like a model's trace, from a fixed
// seed: a step per two buffers, mostly short lifespans (1-16 steps), one in
// 64 long-lived (up to 1% of the run), sizes log-uniform from 64 B to 4 MiB.
func synthetic(n int) []Buffer {
	rng := rand.New(rand.NewPCG(uint64(n), 42))
	steps := int64(max(n/2, 1))
	bufs := make([]Buffer, n)
	for i := range bufs {
		start := rng.Int64N(steps)
		life := 1 + rng.Int64N(16)
		if rng.IntN(64) == 0 {
			life = 1 + rng.Int64N(max(steps/100, 1))
		}
		size := int64(64) << rng.IntN(17)
		size += rng.Int64N(size)
		bufs[i] = Buffer{ID: int64(i), Start: start, End: start + life, Size: size}
	}
	return bufs
}

// BenchmarkPlace times the full portfolio over a fixed-seed size ladder and
// over every DSA instance, reporting arena/LB and the process CPU time per
// placement (cpu-s/op; all threads, so up to 2x wall time on two idle
// cores, and the honest figure when other jobs share the machine).
//
//	go test ./planner -run '^$' -bench BenchmarkPlace -benchtime 1x
func BenchmarkPlace(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000, 1_000_000} {
		bufs := synthetic(n)
		b.Run(fmt.Sprintf("synthetic/n=%d", n), func(b *testing.B) { benchPlace(b, bufs) })
	}
	dir := dsaDir()
	if dir == "" {
		b.Log("DSA folder ../shared/benchmarks/dsa is absent: skipping its instances")
		return
	}
	_, files := dsaFiles(b)
	for _, name := range files {
		bufs := loadDSA(b, filepath.Join(dir, name))
		b.Run("dsa/"+name, func(b *testing.B) { benchPlace(b, bufs) })
	}
}

func benchPlace(b *testing.B, bufs []Buffer) {
	p := Portfolio()
	var off []int64
	var err error
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := processCPU()
	for range b.N {
		off, err = p.Place(context.Background(), bufs)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric((processCPU()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	lb := LowerBound(bufs)
	if lb > 0 {
		b.ReportMetric(float64(ArenaSize(bufs, off))/float64(lb), "arena/LB")
	}
	b.ReportMetric(float64(len(bufs)), "buffers")
}
