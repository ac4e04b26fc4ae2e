package main

import (
	"fmt"
	"math"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// genSynthetic writes the synthetic ladder's instance of n buffers (planreport
// gen) and returns its path.
func genSynthetic(t *testing.T, n int) string {
	path := filepath.Join(t.TempDir(), fmt.Sprintf("synthetic_%d.csv", n))
	_, stderr, code := runCLI(t, "gen", "-kind", "synthetic", "-n", fmt.Sprint(n), "-o", path)
	require.Zerof(t, code, "%s", stderr)
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

	_, stderr, code := runCLI(t, "-format", "csv", "-o", out, genSynthetic(t, largeInputBuffers))
	require.Zerof(t, code, "%s", stderr)
	gc, limit := collectorSettings()
	assert.Equal(t, 100, gc, "GOGC at the threshold")
	assert.Equal(t, int64(math.MaxInt64), limit, "memory limit at the threshold")

	n := largeInputBuffers + 1
	_, stderr, code = runCLI(t, "-format", "csv", "-o", out, genSynthetic(t, n))
	require.Zerof(t, code, "%s", stderr)
	gc, limit = collectorSettings()
	assert.Equal(t, largeInputGCPercent, gc, "GOGC above the threshold")
	assert.GreaterOrEqual(t, limit, int64(n)*largeInputLimitPerBuffer, "memory limit above the threshold")
	assert.Less(t, limit, int64(math.MaxInt64), "a memory limit is set")
}
