package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// planSeconds matches the one timing field, which goldens normalise.
var planSeconds = regexp.MustCompile(`"plan_seconds": [0-9.e+-]+`)

func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return out.String(), errb.String(), code
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	got = planSeconds.ReplaceAllString(got, `"plan_seconds": 0`)
	if *update {
		err := os.WriteFile(path, []byte(got), 0o644)
		require.NoErrorf(t, err, "%v", err)
		return
	}
	want, err := os.ReadFile(path)
	require.NoErrorf(t, err, "%v (run go test ./cmd/planreport -run Golden -update)", err)
	assert.Equalf(t, string(want), got, "%s differs (go test ./cmd/planreport -run Golden -update to accept):\n--- got\n%s--- want\n%s", path, got, want)
}

func TestGolden(t *testing.T) {
	cases := []struct {
		golden string
		args   []string
	}{
		{"example.txt", nil},
		{"example.json", []string{"-format", "json"}},
		{"example_noalign.txt", []string{"-align", "4", "-strategy", "lifespan"}},
		{"tiny.txt", []string{"testdata/tiny.csv"}},
		{"tiny.json", []string{"-format", "json", "testdata/tiny.csv"}},
		{"tiny.csv.golden", []string{"-format", "csv", "testdata/tiny.csv"}},
	}
	for _, tc := range cases {
		t.Run(tc.golden, func(t *testing.T) {
			out, errs, code := runCLI(t, tc.args...)
			require.Equalf(t, 0, code, "exit %d: %s", code, errs)
			golden(t, tc.golden, out)
		})
	}
}

func TestJSONSummaryKeys(t *testing.T) {
	out, errs, code := runCLI(t, "-format", "json", "testdata/tiny.csv")
	require.Equalf(t, 0, code, "exit %d: %s", code, errs)
	var m map[string]any
	err := json.Unmarshal([]byte(out), &m)
	require.NoErrorf(t, err, "%v", err)
	for _, k := range []string{"buffers", "arena_bytes", "lower_bound_bytes", "unshared_bytes", "strategy", "plan_seconds", "placements"} {
		_, ok := m[k]
		assert.Truef(t, ok, "JSON summary lacks %q", k)
	}
}

func TestOutputFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plan.csv")
	out, errs, code := runCLI(t, "-format", "csv", "-o", path, "testdata/tiny.csv")
	require.Falsef(t, code != 0 || out != "", "exit %d, stdout %q, stderr %s", code, out, errs)
	data, err := os.ReadFile(path)
	require.NoErrorf(t, err, "%v", err)
	assert.Truef(t, strings.HasPrefix(string(data), "id,lower,upper,size,offset\n"), "-o file starts %q", data)
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		err := os.WriteFile(p, []byte(body), 0o644)
		require.NoErrorf(t, err, "%v", err)
		return p
	}
	cases := []struct {
		name string
		args []string
		code int
		want []string // substrings of stderr
	}{
		{"missing column", []string{write("a.csv", "id,lower,size\n1,0,4\n")}, 1, []string{"line 1", "missing column"}},
		{"not a number", []string{write("b.csv", "id,lower,upper,size\n1,0,x,4\n")}, 1, []string{"line 2", "not an integer"}},
		{"negative size", []string{write("c.csv", "id,lower,upper,size\n1,0,3,-4\n")}, 1, []string{"line 2", "negative size"}},
		{"upper <= lower", []string{write("d.csv", "id,lower,upper,size\n1,3,2,4\n")}, 1, []string{"line 2", "upper 2 <= lower 3"}},
		{"duplicate id", []string{write("e.csv", "id,lower,upper,size\n1,0,3,4\n1,0,3,4\n")}, 1, []string{"line 3", "duplicate id"}},
		{"conflicting fixed offsets", []string{write("f.csv", "id,lower,upper,size,offset\n1,0,3,4,0\n2,0,3,4,2\n")}, 1, []string{"overlap"}},
		{"invalid graph", []string{"testdata/bad_graph.json"}, 1, []string{"bad_graph.json"}},
		{"malformed json", []string{write("g.json", "{\"values\": [")}, 1, []string{"g.json"}},
		{"missing file", []string{filepath.Join(dir, "nope.csv")}, 1, []string{"nope.csv"}},
		{"unknown extension", []string{write("h.txt", "")}, 1, []string{"unknown file type"}},
		{"unknown format", []string{"-format", "xml"}, 2, []string{"unknown -format"}},
		{"unknown strategy", []string{"-strategy", "bogus"}, 1, []string{"bogus"}},
		{"bad alignment", []string{"-align", "3"}, 2, []string{"power of two"}},
		{"two files", []string{"a.csv", "b.csv"}, 2, []string{"one FILE"}},
		{"unknown flag", []string{"-bogus"}, 2, []string{"bogus"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := runCLI(t, tc.args...)
			assert.Equalf(t, tc.code, code, "exit %d, want %d (stderr %q)", code, tc.code, errs)
			assert.Falsef(t, strings.Contains(errs, "internal error"), "panicked: %s", errs)
			for _, w := range tc.want {
				assert.Containsf(t, errs, w, "stderr %q lacks %q", errs, w)
			}
			assert.Equalf(t, "", out, "printed a report on failure: %q", out)
		})
	}
}

func TestDSAFolderRuns(t *testing.T) {
	path := filepath.Join("..", "..", "..", "shared", "benchmarks", "dsa", "real", "G_1.csv")
	if _, err := os.Stat(path); err != nil {
		t.Skip("DSA folder ../shared/benchmarks/dsa is absent")
	}
	out, errs, code := runCLI(t, "-format", "json", path)
	require.Equalf(t, 0, code, "exit %d: %s", code, errs)
	var m struct {
		Buffers    int   `json:"buffers"`
		ArenaBytes int64 `json:"arena_bytes"`
		LB         int64 `json:"lower_bound_bytes"`
	}
	err := json.Unmarshal([]byte(out), &m)
	require.NoErrorf(t, err, "%v", err)
	require.Falsef(t, m.Buffers != 816 || m.ArenaBytes < m.LB || m.LB != 3030937746, "G_1: %+v", m)
	t.Logf("DSA instances checked: 1") // .ci/run adds these up
}
