package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// benchDir writes minimalloc's 5-buffer example (optimum 12) into a nested
// temporary directory.
func benchDir(t *testing.T) string {
	dir := t.TempDir()
	sub := filepath.Join(dir, "small")
	err := os.Mkdir(sub, 0o755)
	require.NoErrorf(t, err, "%v", err)
	csv := "id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\nb4,9,21,4\nb5,0,21,4\n"
	err = os.WriteFile(filepath.Join(sub, "input.12.csv"), []byte(csv), 0o644)
	require.NoErrorf(t, err, "%v", err)
	return dir
}

func TestBenchText(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"bench", "-budget", "2s", benchDir(t)}, &out, &errb); code != 0 {
		t.Fatalf("code %d: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want header and one row, got:\n%s", out.String())
	}
	f := strings.Fields(lines[1])
	if f[0] != "small/input.12.csv" || f[1] != "5" || f[2] != "12" || f[3] != "12" || f[4] != "1.000000" {
		t.Fatalf("row %q", lines[1])
	}
}

func TestBenchJSON(t *testing.T) {
	for _, strategy := range []string{"search", "portfolio"} {
		var out, errb bytes.Buffer
		if code := run([]string{"bench", "-format", "json", "-strategy", strategy, benchDir(t)}, &out, &errb); code != 0 {
			t.Fatalf("%s: code %d: %s", strategy, code, errb.String())
		}
		var rows []benchRow
		err := json.Unmarshal(out.Bytes(), &rows)
		require.NoErrorf(t, err, "%v", err)
		require.Falsef(t, len(rows) != 1 || rows[0].LB != 12 || rows[0].Arena < 12 || rows[0].Method == "", "%s: rows %+v", strategy, rows)
	}
}

func TestBenchErrors(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
	}{
		{"no dir", []string{"bench"}, 2},
		{"bad format", []string{"bench", "-format", "xml", "."}, 2},
		{"missing dir", []string{"bench", filepath.Join(t.TempDir(), "nope")}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(c.args, &out, &errb); code != c.code {
				t.Fatalf("code %d, want %d: %s", code, c.code, errb.String())
			}
		})
	}
	// A malformed CSV is an error naming the file.
	dir := t.TempDir()
	err := os.WriteFile(filepath.Join(dir, "bad.csv"), []byte("id,lower,upper,size\n1,5,2,x\n"), 0o644)
	require.NoErrorf(t, err, "%v", err)
	var out, errb bytes.Buffer
	if code := run([]string{"bench", dir}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "bad.csv") {
		t.Fatalf("code %d: %s", code, errb.String())
	}
}

// TestBudgetFlag: -budget reaches the "search" strategy of a plain run.
func TestBudgetFlag(t *testing.T) {
	dir := benchDir(t)
	var out, errb bytes.Buffer
	code := run([]string{"-strategy", "search", "-budget", "1s", "-format", "json", filepath.Join(dir, "small", "input.12.csv")}, &out, &errb)
	if code != 0 {
		t.Fatalf("code %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "12") {
		t.Fatalf("output %s", out.String())
	}
	code = run([]string{"-budget", "soon", filepath.Join(dir, "small", "input.12.csv")}, &out, &errb)
	require.NotEqualf(t, 0, code, "a malformed -budget was accepted")
}
