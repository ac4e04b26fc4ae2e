package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/memplan/memplan/planner"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGen: gen writes an instance ReadCSV accepts with the asked number of
// rows; a packable one plans to its capacity under the default strategy;
// bad flags are usage errors.
func TestGen(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"gen", "-kind", "packable", "-n", "40", "-seed", "3", "-capacity", "4096"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	bufs, err := planner.ReadCSV(&out)
	require.Falsef(t, err != nil || len(bufs) != 40, "%d buffers, %v", len(bufs), err)
	lb := planner.LowerBound(bufs)
	assert.Equalf(t, int64(4096), lb, "packable lower bound %d, want the capacity 4096", lb)
	out.Reset()
	if code := run([]string{"gen", "-kind", "rows", "-n", "50", "-seed", "2"}, &out, &errb); code != 0 {
		t.Fatalf("rows: exit %d: %s", code, errb.String())
	}
	rows, err := planner.ReadCSV(&out)
	require.Falsef(t, err != nil || len(rows) != 50, "rows: %d buffers, %v", len(rows), err)
	for _, args := range [][]string{{"gen", "-kind", "nope"}, {"gen", "-n", "0"}, {"gen", "-capacity", "100"}, {"gen", "extra"}} {
		errb.Reset()
		if code := run(args, &out, &errb); code != 2 || !strings.Contains(errb.String(), "gen") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
	}
}
