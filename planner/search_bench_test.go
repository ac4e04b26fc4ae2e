package planner

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// srchLoadDSA loads one instance of the DSA folder, skipping when absent.
func srchLoadDSA(tb testing.TB, rel string) []Buffer {
	dir := dsaDir()
	if dir == "" {
		tb.Skip("DSA benchmark folder ../shared/benchmarks/dsa is absent")
	}
	return loadDSA(tb, filepath.Join(dir, rel))
}

// BenchmarkSearchDSA runs the search strategy on every DSA instance with a
// budget of 10 s (challenging) or 30 s (real traces) and reports arena/LB
// as "frag" and the seconds to the result. Run one iteration:
//
//	go test ./planner -run '^$' -bench BenchmarkSearchDSA -benchtime 1x
func BenchmarkSearchDSA(b *testing.B) {
	dir, files := dsaFiles(b)
	for _, rel := range files {
		budget := 10 * time.Second
		if strings.HasPrefix(rel, "real") {
			budget = 30 * time.Second
		}
		b.Run(strings.TrimSuffix(filepath.ToSlash(rel), ".csv"), func(b *testing.B) {
			bufs := loadDSA(b, filepath.Join(dir, rel))
			for b.Loop() {
				t0 := time.Now()
				res, err := Search(context.Background(), bufs, SearchConfig{Budget: budget})
				require.NoErrorf(b, err, "%v", err)
				b.ReportMetric(float64(res.Arena)/float64(res.LB), "frag")
				b.ReportMetric(time.Since(t0).Seconds(), "s")
				b.Logf("%s: LB %d arena %d (%.6f) %.2fs %s", rel, res.LB, res.Arena, float64(res.Arena)/float64(res.LB), time.Since(t0).Seconds(), res.Method)
			}
		})
	}
}
