package exec_test

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/cpu"
	"github.com/stretchr/testify/require"
)

// BenchmarkRun measures one end-to-end run (inputs written, every dispatch,
// outputs read back) of each testdata graph in each mode on the CPU backend
// with GOMAXPROCS workers. It reports the barrier count as a metric.
//
//	go test ./exec -run '^$' -bench BenchmarkRun -benchtime 20x
func BenchmarkRun(b *testing.B) {
	gs := testdataGraphs(b)
	names := make([]string, 0, len(gs))
	for n := range gs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		g := gs[name]
		in, err := exec.RandomInputs(g, 1)
		require.NoErrorf(b, err, "%v", err)
		for _, mode := range exec.Modes() {
			b.Run(strings.TrimSuffix(name, ".json")+"/"+mode.String(), func(b *testing.B) {
				p, err := benchCompile(g, mode)
				require.NoErrorf(b, err, "%v", err)
				x, err := exec.Load(cpu.New(cpu.Options{}), p)
				require.NoErrorf(b, err, "%v", err)
				defer x.Close()
				ctx := context.Background()
				for b.Loop() {
					if _, err := x.Run(ctx, in, exec.RunOptions{}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(p.Barriers)), "barriers")
				b.ReportMetric(float64(len(p.Dispatches)), "dispatches")
			})
		}
	}
}
