package main

import (
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"runtime/debug"
	"testing"
	"time"

	"github.com/memplan/memplan/planner"
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

// TestLargeInputPlanLimit: while the plan is made, the default strategy
// above planner.AutoSplitAbove buffers runs the collector by the plan
// limit alone (no percentage target); another strategy, or an instance at
// AutoSplitAbove, gets the tenth-of-the-heap target.
func TestLargeInputPlanLimit(t *testing.T) {
	collectorSettings()
	t.Cleanup(func() { collectorSettings() })
	var hook func(*session) error
	for _, e := range extensions {
		if e.Name == "largeinput" {
			hook = e.Flags(flag.NewFlagSet("t", flag.ContinueOnError)).BeforePlan
		}
	}
	require.NotNil(t, hook, "largeinput has no BeforePlan hook")
	cases := []struct {
		strategy string
		n        int
		gc       int
		limit    int64
	}{
		{"auto", planner.AutoSplitAbove + 1, -1, int64(planner.AutoSplitAbove+1) * largeInputPlanLimit},
		{"auto", planner.AutoSplitAbove, largeInputGCPercent, math.MaxInt64},
		{"portfolio", planner.AutoSplitAbove + 1, largeInputGCPercent, math.MaxInt64},
	}
	for _, c := range cases {
		s := &session{Input: &input{Buffers: make([]planner.Buffer, c.n)}, Opts: planner.Options{Strategy: c.strategy}}
		require.NoError(t, hook(s))
		gc, limit := collectorSettings()
		assert.Equalf(t, c.gc, gc, "GOGC for %s on %d buffers", c.strategy, c.n)
		assert.Equalf(t, c.limit, limit, "memory limit for %s on %d buffers", c.strategy, c.n)
	}
}

// TestLimitWatch: a watch whose limit the live heap already passes puts
// back the tenth-of-the-heap target and lifts the limit, and says so; one
// with room leaves the settings alone.
func TestLimitWatch(t *testing.T) {
	collectorSettings()
	t.Cleanup(func() { collectorSettings() })
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(1 << 40)
	w := watchLimit(1) // every live heap passes it
	deadline := time.Now().Add(5 * time.Second)
	for debug.SetGCPercent(-1) != largeInputGCPercent && time.Now().Before(deadline) {
		time.Sleep(watchLimitEvery)
	}
	assert.True(t, w.stop(), "the watch did not fall back")
	gc, limit := collectorSettings()
	assert.Equal(t, -1, gc, "GOGC (set back to -1 by the polling above)")
	assert.Equal(t, int64(math.MaxInt64), limit, "the limit is lifted")

	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(1 << 40)
	w = watchLimit(1 << 40)
	time.Sleep(3 * watchLimitEvery)
	assert.False(t, w.stop(), "the watch fell back with room left")
	gc, limit = collectorSettings()
	assert.Equal(t, -1, gc, "GOGC left alone")
	assert.Equal(t, int64(1<<40), limit, "the limit left alone")
}
