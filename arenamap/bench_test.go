package arenamap

import (
	"io"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// countingWriter counts bytes written.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// BenchmarkHTML renders the HTML map of random maps of 20 to 20,000 blocks,
// reporting the page size.
func BenchmarkHTML(b *testing.B) {
	for _, n := range []int{20, 2000, 20000} {
		m := big(n, 1)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			var cw countingWriter
			for b.Loop() {
				cw.n = 0
				err := HTML(&cw, m, Options{})
				require.NoErrorf(b, err, "%v", err)
			}
			b.ReportMetric(float64(cw.n)/1024, "KiB/page")
		})
	}
}

var _ io.Writer = (*countingWriter)(nil)
