package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOutputFileAtomic: -o FILE holds the whole report after a successful
// run, and after any failed one (bad flag, failed hook, failed load) the
// old FILE is byte for byte as it was; no temporary file is left behind
// either way.
func TestOutputFileAtomic(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "report.txt")
	const old = "previous report\n"
	err := os.WriteFile(out, []byte(old), 0o600)
	require.NoErrorf(t, err, "%v", err)
	csv := filepath.Join(dir, "b.csv")
	err = os.WriteFile(csv, []byte("id,lower,upper,size\n0,0,1,8\n"), 0o644)
	require.NoErrorf(t, err, "%v", err)
	leftovers := func() {
		t.Helper()
		es, _ := os.ReadDir(dir)
		for _, e := range es {
			if strings.Contains(e.Name(), ".tmp-") {
				t.Errorf("temporary file %s left behind", e.Name())
			}
		}
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
	}{
		{"unknown format", []string{"-format", "pdf"}, 2},
		{"bad align", []string{"-align", "3"}, 2},
		{"bad colour", []string{"-format", "svg", "-color", "rainbow"}, 1},
		{"barriers of a DSA instance", []string{"-barriers", csv}, 1},
		{"run of a DSA instance", []string{"-run", csv}, 1},
		{"missing input", []string{filepath.Join(dir, "absent.json")}, 1},
		{"bad graph", []string{"testdata/bad_graph.json"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errs, code := runCLI(t, append([]string{"-o", out}, tc.args...)...)
			assert.Falsef(t, code != tc.code || errs == "", "exit %d (want %d), stderr %q", code, tc.code, errs)
			b, _ := os.ReadFile(out)
			assert.Equalf(t, old, string(b), "%s now holds %q, want the old %q", out, b, old)
			leftovers()
		})
	}
	want, _, code := runCLI(t, "-format", "json")
	require.Equalf(t, 0, code, "plain run failed")
	stdout, errs, code := runCLI(t, "-o", out, "-format", "json")
	require.Falsef(t, code != 0 || stdout != "", "exit %d, stdout %q, stderr %q", code, stdout, errs)
	got, _ := os.ReadFile(out)
	norm := func(s string) string { return planSeconds.ReplaceAllString(s, "") }
	assert.Equalf(t, norm(want), norm(string(got)), "-o wrote\n%s\nwant the stdout report\n%s", got, want)
	if st, _ := os.Stat(out); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the replaced file's 0600", st.Mode().Perm())
	}
	leftovers()
	_, errs, code = runCLI(t, "-o", filepath.Join(dir, "no", "such", "dir", "r.txt"))
	assert.Falsef(t, code != 1 || !strings.Contains(errs, "-o"), "-o into a missing folder: exit %d, stderr %q", code, errs)
}
