package main

import (
	"flag"
	"runtime/debug"
	"testing"

	"github.com/memplan/memplan/planner"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// searchGCHooks returns the hooks of the searchgc extension.
func searchGCHooks(t *testing.T) hooks {
	for _, e := range extensions {
		if e.Name == "searchgc" {
			return e.Flags(flag.NewFlagSet("test", flag.ContinueOnError))
		}
	}
	require.FailNow(t, "no searchgc extension")
	return hooks{}
}

// TestSearchGCTarget: the search strategy on an input of at most
// searchGCBuffers buffers plans under searchGCPercent, and the target goes
// back after; another strategy, a larger input or GOGC in the environment
// leaves it alone.
func TestSearchGCTarget(t *testing.T) {
	const before = 77 // not the default, to tell a restore from a reset
	orig := debug.SetGCPercent(before)
	saved := lookupEnv
	t.Cleanup(func() { debug.SetGCPercent(orig); lookupEnv = saved })
	noEnv := func(string) (string, bool) { return "", false }

	cases := []struct {
		name     string
		strategy string
		n        int
		env      bool
		want     int // the target while the plan is made
	}{
		{"search, small", "search", searchGCBuffers, false, searchGCPercent},
		{"search, larger", "search", searchGCBuffers + 1, false, before},
		{"auto", "auto", 100, false, before},
		{"GOGC set", "search", 100, true, before},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lookupEnv = noEnv
			if c.env {
				lookupEnv = func(k string) (string, bool) { return "200", k == "GOGC" }
			}
			s := &session{Input: &input{Buffers: make([]planner.Buffer, c.n)}}
			s.Opts.Strategy = c.strategy
			h := searchGCHooks(t)
			require.NoError(t, h.BeforePlan(s))
			during := debug.SetGCPercent(-1)
			debug.SetGCPercent(during)
			assert.Equal(t, c.want, during, "while planning")
			h.AfterPlace(s)
			after := debug.SetGCPercent(before)
			assert.Equal(t, before, after, "after the plan")
		})
	}
}
