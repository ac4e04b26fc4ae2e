package planner

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The packable instances (testdata/packable/pN.csv, written by
// `planreport gen -kind packable -n N -seed 1`) are a 1 MiB x time
// rectangle cut into N blocks: their optimum is their lower bound, 1 MiB.
const packableCapacity = 1 << 20

func packableFiles(tb testing.TB) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "packable", "p*.csv"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no packable instances: %v", err)
	}
	return files
}

// TestPackableInstances: every committed instance has the rows its name
// says and a lower bound equal to the capacity it was cut from.
func TestPackableInstances(t *testing.T) {
	for _, f := range packableFiles(t) {
		bufs := loadDSA(t, f)
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "p"), ".csv"))
		if err != nil || len(bufs) != n {
			t.Errorf("%s: %d buffers", f, len(bufs))
		}
		if lb := LowerBound(bufs); lb != packableCapacity {
			t.Errorf("%s: lower bound %d, want %d", f, lb, packableCapacity)
		}
	}
}

// BenchmarkSearchPackable runs the search strategy for 10 s on every
// packable instance and reports arena/LB as "frag":
//
//	go test ./planner -run '^$' -bench BenchmarkSearchPackable -benchtime 1x
func BenchmarkSearchPackable(b *testing.B) {
	for _, f := range packableFiles(b) {
		bufs := loadDSA(b, f)
		b.Run(strings.TrimSuffix(filepath.Base(f), ".csv"), func(b *testing.B) {
			for b.Loop() {
				res, err := Search(context.Background(), bufs, SearchConfig{Budget: 10 * time.Second})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(res.Arena)/float64(res.LB), "frag")
			}
		})
	}
}
