package planner

import (
	"context"
	"testing"

	"github.com/memplan/memplan/internal/dsagen"
	"github.com/stretchr/testify/require"
)

// BenchmarkExactTopRepair times the exact search on a top repair's kind
// of instance, where most buffers are fixed obstacles: packable p5000
// placed by the portfolio, the buffers that reach the top half of its
// arena free, the rest fixed; one attempt at the arena less one granule
// under a node limit, with the first static order. The nodes are the
// same whatever the machine, so ns/op compares implementations:
//
//	go test ./planner -run '^$' -bench BenchmarkExactTopRepair -count 5
func BenchmarkExactTopRepair(b *testing.B) {
	bufs := blockBuffers(dsagen.Packable(5000, packableCapacity, 1))
	off, err := Portfolio().Place(context.Background(), bufs)
	require.NoError(b, err)
	arena := ArenaSize(bufs, off)
	var free, fixed []int
	var fixedOff []int64
	for i, bf := range bufs {
		if off[i]+bf.Size > arena-arena/2 {
			free = append(free, i)
		} else {
			fixed = append(fixed, i)
			fixedOff = append(fixedOff, off[i])
		}
	}
	in := newSrchInst(bufs, free, fixed, fixedOff)
	order := srchOrders(in)[0]
	const limit = 20_000
	var nodes int64
	for b.Loop() {
		r := newSrchRun(in)
		r.solve(arena-dsagen.PackableGranule, order, limit)
		nodes = r.NodesAll
	}
	b.ReportMetric(float64(len(free)), "free")
	b.ReportMetric(float64(nodes), "nodes")
}
