package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeRows writes a DSA CSV of n short, small buffers.
func writeRows(t *testing.T, n int) string {
	path := filepath.Join(t.TempDir(), fmt.Sprintf("rows_%d.csv", n))
	f, err := os.Create(path)
	require.NoError(t, err)
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "id,lower,upper,size")
	for i := range n {
		fmt.Fprintf(w, "%d,%d,%d,%d\n", i, i/2, i/2+1+i%7, 64+i%5*64)
	}
	require.NoError(t, w.Flush())
	require.NoError(t, f.Close())
	return path
}

// collectorSettings returns GOGC and the soft memory limit, leaving the
// defaults (100, no limit) in place.
func collectorSettings() (int, int64) {
	return debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
}

// TestLargeInputCollector: above largeInputBuffers buffers the command
// leaves the runtime collecting at a tenth of growth, with a soft memory
// limit of at least largeInputLimitPerBuffer bytes a buffer set once the
// plan is made; at largeInputBuffers it leaves the defaults alone.
func TestLargeInputCollector(t *testing.T) {
	collectorSettings()
	t.Cleanup(func() { collectorSettings() })
	out := filepath.Join(t.TempDir(), "out.csv")

	_, stderr, code := runCLI(t, "-format", "csv", "-o", out, writeRows(t, largeInputBuffers))
	require.Zerof(t, code, "%s", stderr)
	gc, limit := collectorSettings()
	assert.Equal(t, 100, gc, "GOGC at the threshold")
	assert.Equal(t, int64(math.MaxInt64), limit, "memory limit at the threshold")

	n := largeInputBuffers + 1
	_, stderr, code = runCLI(t, "-format", "csv", "-o", out, writeRows(t, n))
	require.Zerof(t, code, "%s", stderr)
	gc, limit = collectorSettings()
	assert.Equal(t, largeInputGCPercent, gc, "GOGC above the threshold")
	assert.GreaterOrEqual(t, limit, int64(n)*largeInputLimitPerBuffer, "memory limit above the threshold")
	assert.Less(t, limit, int64(math.MaxInt64), "a memory limit is set")
}
