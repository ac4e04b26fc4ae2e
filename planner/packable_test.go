package planner

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memplan/memplan/internal/dsagen"
)

// The packable instances (testdata/packable/pN.csv, written by
// `planreport gen -kind packable -n N -seed 1`) are a 1 MiB x time
// rectangle cut into N blocks: their optimum is their lower bound, 1 MiB.
const packableCapacity = 1 << 20

func packableFiles(tb testing.TB) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "packable", "p*.csv"))
	require.Falsef(tb, err != nil || len(files) == 0, "no packable instances: %v", err)
	return files
}

// TestPackableInstances: every committed instance has the rows its name
// says and a lower bound equal to the capacity it was cut from.
func TestPackableInstances(t *testing.T) {
	for _, f := range packableFiles(t) {
		bufs := loadDSA(t, f)
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "p"), ".csv"))
		assert.Falsef(t, err != nil || len(bufs) != n, "%s: %d buffers", f, len(bufs))
		lb := LowerBound(bufs)
		assert.Equalf(t, int64(packableCapacity), lb, "%s: lower bound %d, want %d", f, lb, packableCapacity)
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
				require.NoErrorf(b, err, "%v", err)
				b.ReportMetric(float64(res.Arena)/float64(res.LB), "frag")
			}
		})
	}
}

// BenchmarkSearchPackableSeeds runs the search strategy for 10 s on
// packable instances of the committed sizes from seeds 2 to 5 (the
// committed files are seed 1), generated in memory, and reports arena/LB
// as "frag": how far what holds on the committed set carries over.
//
//	go test ./planner -run '^$' -bench BenchmarkSearchPackableSeeds -benchtime 1x
func BenchmarkSearchPackableSeeds(b *testing.B) {
	for _, n := range []int{250, 500, 1000, 2000, 5000} {
		for seed := uint64(2); seed <= 5; seed++ {
			bufs := blockBuffers(dsagen.Packable(n, packableCapacity, seed))
			b.Run(fmt.Sprintf("p%d-seed%d", n, seed), func(b *testing.B) {
				for b.Loop() {
					res, err := Search(context.Background(), bufs, SearchConfig{Budget: 10 * time.Second})
					require.NoErrorf(b, err, "%v", err)
					require.NoError(b, VerifyPlacement(bufs, res.Offsets))
					b.ReportMetric(float64(res.Arena)/float64(res.LB), "frag")
				}
			})
		}
	}
}
