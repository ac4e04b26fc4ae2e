package planner

// The dense tail of packable p5000 (docs/BENCHMARKS.md, issue 18): the
// buffers that live one step only, and how the search does on the steps
// before 2,274 and after, each searched alone.

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/memplan/memplan/internal/dsagen"
)

// p5000TailFrom is the step where p5000's dense tail begins: the top
// strip is cut in time there, the bottom strip at 2,282.
const p5000TailFrom = 2274

// TestPackableP5000OneStep counts p5000's buffers that live one step, in
// all and from p5000TailFrom on, and those of one unit (64 B). Such
// buffers stack with any others of their step in a tiling's column, and
// pair merges stack them two by two with whatever shares their step.
//
//	go test ./planner -run TestPackableP5000OneStep -v
func TestPackableP5000OneStep(t *testing.T) {
	var one, oneTail, unit int
	for _, b := range dsagen.Packable(5000, packableCapacity, 1) {
		if b.End-b.Start == 1 {
			one++
			if b.Start >= p5000TailFrom {
				oneTail++
			}
		}
		if b.Size == dsagen.PackableGranule {
			unit++
		}
	}
	t.Logf("p5000: %d buffers live one step, %d of them from step %d on; %d are one unit high", one, oneTail, p5000TailFrom, unit)
	assert.Equal(t, 1859, one)
	assert.Equal(t, 1280, oneTail)
	assert.Equal(t, 2335, unit)
}

// BenchmarkPackableP5000PrefixTail cuts p5000 at step p5000TailFrom into
// two perfect instances, the prefix (every buffer that starts before it,
// ended there) and the tail (every buffer that ends after it, started
// there), and searches each alone for 5 s; "prefix" and "tail" are their
// arenas over LB in units of 64 B. The prefix places nearly at LB; the
// tail, 227 steps and 2,809 buffers, holds what keeps p5000 above it:
//
//	go test ./planner -run '^$' -bench BenchmarkPackableP5000PrefixTail -benchtime 1x
func BenchmarkPackableP5000PrefixTail(b *testing.B) {
	var prefix, tail []Buffer
	for _, bl := range dsagen.Packable(5000, packableCapacity, 1) {
		x := Buffer{Start: bl.Start, End: bl.End, Size: bl.Size}
		if x.Start < p5000TailFrom {
			prefix = append(prefix, Buffer{Start: x.Start, End: min(x.End, p5000TailFrom), Size: x.Size})
		}
		if x.End > p5000TailFrom {
			tail = append(tail, Buffer{Start: max(x.Start, p5000TailFrom), End: x.End, Size: x.Size})
		}
	}
	units := func(bufs []Buffer) float64 {
		r, err := Search(context.Background(), bufs, SearchConfig{Budget: 5 * time.Second})
		if err != nil {
			b.Fatal(err)
		}
		return float64((r.Arena - LowerBound(bufs)) / dsagen.PackableGranule)
	}
	var p, q float64
	for b.Loop() {
		p, q = units(prefix), units(tail)
	}
	b.ReportMetric(float64(len(prefix)), "prefix-buffers")
	b.ReportMetric(p, "prefix")
	b.ReportMetric(float64(len(tail)), "tail-buffers")
	b.ReportMetric(q, "tail")
}
