package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunFlag: -run prints one row per mode and one checksum per output;
// the same seed gives the same checksums, another seed other ones.
func TestRunFlag(t *testing.T) {
	graph := filepath.Join("..", "..", "testdata", "mlp.json")
	if _, err := os.Stat(graph); err != nil {
		t.Skip("testdata/mlp.json absent")
	}
	sums := func(modes []string, args ...string) []string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(append(args, graph), &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		s := out.String()
		for _, m := range []string{"serial", "inferred", "reordered"} {
			has := regexp.MustCompile(`(?m)^` + m + ` +\d+ +\d+ +\d+ +[0-9.]+ +[0-9.]+$`).MatchString(s)
			want := strings.Contains(strings.Join(modes, ","), m)
			assert.Equalf(t, want, has, "%v: %s row present=%v, want %v, in\n%s", args, m, has, want, s)
		}
		return regexp.MustCompile(`[0-9a-f]{16}`).FindAllString(s, -1)
	}
	all := []string{"serial", "inferred", "reordered"}
	a := sums(all, "-run", "-runs", "1")
	require.NotEmptyf(t, a, "no output checksums")
	b := sums([]string{"reordered"}, "-run", "-runs", "1", "-mode", "reordered")
	assert.Equalf(t, strings.Join(b, ","), strings.Join(a, ","), "checksums differ between runs with the same seed: %v vs %v", a, b)
	c := sums(all, "-run", "-runs", "1", "-seed", "2")
	assert.NotEqualf(t, strings.Join(c, ","), strings.Join(a, ","), "seeds 1 and 2 gave the same checksums %v", a)
}

// TestRunFlagErrors: bad -run usage exits non-zero with a message.
func TestRunFlagErrors(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "b.csv")
	err := os.WriteFile(csv, []byte("id,lower,upper,size\n0,0,1,8\n"), 0o644)
	require.NoErrorf(t, err, "%v", err)
	graph := filepath.Join("..", "..", "testdata", "mlp.json")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"dsa input", []string{"-run", csv}, "needs a graph"},
		{"bad mode", []string{"-run", "-mode", "fast", graph}, "unknown mode"},
		{"no runs", []string{"-run", "-runs", "0", graph}, "at least 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(c.args, &out, &errb); code == 0 || !strings.Contains(errb.String(), c.want) {
				t.Fatalf("exit %d, stderr %q; want failure mentioning %q", code, errb.String(), c.want)
			}
		})
	}
}
