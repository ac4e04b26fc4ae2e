package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	pprof "github.com/google/pprof/profile"
	"github.com/stretchr/testify/require"
)

// TestRunProfileFlags runs the embedded example with -run -profile -trace
// and checks the tables and both files.
func TestRunProfileFlags(t *testing.T) {
	dir := t.TempDir()
	pb, tr := filepath.Join(dir, "p.pb.gz"), filepath.Join(dir, "t.json")
	var out, errs bytes.Buffer
	code := run([]string{"-run", "-mode", "inferred", "-runs", "2", "-profile", pb, "-trace", tr}, &out, &errs)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errs.String())
	}
	text := out.String()
	for _, want := range []string{"## slowest dispatches", "## time per op kind", "(idle/driver)"} {
		require.Containsf(t, text, want, "output lacks %q:\n%s", want, text)
	}
	// The kind table's total wall share equals its wall line.
	total := regexp.MustCompile(`(?m)^total\s+\d+\s+\S+\s+(\S+)\s+100\.0%$`).FindStringSubmatch(text)
	wall := regexp.MustCompile(`(?m)^wall\s+(\S+)$`).FindStringSubmatch(text)
	require.Falsef(t, total == nil || wall == nil || total[1] != wall[1], "kind table total %v vs wall %v:\n%s", total, wall, text)

	f, err := os.Open(pb)
	require.NoErrorf(t, err, "%v", err)
	defer f.Close()
	prof, err := pprof.Parse(f)
	require.NoErrorf(t, err, "%v", err)
	err = prof.CheckValid()
	require.NoErrorf(t, err, "%v", err)
	data, err := os.ReadFile(tr)
	require.NoErrorf(t, err, "%v", err)
	var trace struct {
		TraceEvents []struct {
			Ph  string `json:"ph"`
			Cat string `json:"cat"`
			Tid int    `json:"tid"`
		} `json:"traceEvents"`
	}
	err = json.Unmarshal(data, &trace)
	require.NoErrorf(t, err, "%v", err)
	n := 0
	for _, e := range trace.TraceEvents {
		if e.Ph == "X" && e.Tid > 0 {
			n++
		}
	}
	if n != len(prof.Sample) || n == 0 {
		t.Fatalf("%d dispatch events in the trace, %d samples in the profile", n, len(prof.Sample))
	}
}

// TestProfileFlagsOffLeaveNoProfiler: without a profiling flag -run gets
// no profiler and prints no tables.
func TestProfileFlagsOffLeaveNoProfiler(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"-run", "-mode", "serial", "-runs", "1"}, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	if runProfiler != nil || strings.Contains(out.String(), "time per op kind") {
		t.Fatalf("profiler on without flags:\n%s", out.String())
	}
}
