package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// newTestChecker builds a checker for this module, skipping the test when
// the module cache lacks darwinkit (it is imported only by darwin files, so
// `go test` on Linux does not download it; CI runs `go mod download`).
func newTestChecker(t *testing.T) *Checker {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT", "GOMODCACHE").Output()
	if err != nil {
		t.Skipf("go env: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Lenf(t, lines, 2, "go env printed %q", out)
	root, err := filepath.Abs("../../..")
	require.NoErrorf(t, err, "%v", err)
	c, err := NewChecker(Config{
		ModuleRoot:     root,
		GOROOT:         lines[0],
		ModCache:       lines[1],
		ExtraSelectors: ParseSelectorList(appleSelectors),
	})
	require.NoErrorf(t, err, "%v", err)
	dk := ""
	for _, m := range c.mods {
		if m.Path == darwinkitPath {
			dk = m.Dir
		}
	}
	require.NotEqualf(t, "", dk, "go.mod does not require darwinkit")
	if _, err := os.Stat(filepath.Join(dk, "macos", "metal")); err != nil {
		t.Skipf("module cache lacks darwinkit (%v); run go mod download %s", err, darwinkitPath)
	}
	return c
}

func split(diags []Diagnostic) (errs, warns []Diagnostic) {
	for _, d := range diags {
		if d.Warning {
			warns = append(warns, d)
		} else {
			errs = append(errs, d)
		}
	}
	return errs, warns
}

func TestCheckTestdata(t *testing.T) {
	c := newTestChecker(t)
	tests := []struct {
		name      string
		dir       string
		wantErrs  []string // substrings, one per expected error, in position order
		wantWarns []string
	}{
		{name: "good", dir: "testdata/good"},
		{
			name: "broken: wrong method name and wrong argument type",
			dir:  "testdata/broken",
			wantErrs: []string{
				"broken.go:16:6: enc.MemoryBarrierWithScopes undefined",
				"broken.go:17:91: cannot use 64 (untyped int constant) as metal.Size value",
			},
		},
		{
			name: "badargs: selector arity",
			dir:  "testdata/badargs",
			wantErrs: []string{
				`badargs.go:16:2: objc.Call sends "setBuffer:offset:atIndex:" (3 arguments) with 2`,
				`badargs.go:17:2: objc.Call sends "memoryBarrierWithScope:" (1 arguments) with 0`,
			},
		},
		{
			name:      "badsel: made-up selector",
			dir:       "testdata/badsel",
			wantWarns: []string{`badsel.go:14:37: warning: objc.Sel("setBuffer:offset:atIndexx:") appears nowhere in darwinkit v0.5.0`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			diags, err := c.Check(tc.dir)
			require.NoErrorf(t, err, "%v", err)
			errs, warns := split(diags)
			match := func(kind string, got []Diagnostic, want []string) {
				if len(got) != len(want) {
					t.Errorf("%s: got %d, want %d: %v", kind, len(got), len(want), got)
					return
				}
				for i, w := range want {
					if !strings.Contains(got[i].String(), w) {
						t.Errorf("%s %d = %q, want it to contain %q", kind, i, got[i], w)
					}
				}
			}
			match("errors", errs, tc.wantErrs)
			match("warnings", warns, tc.wantWarns)
		})
	}
}

func TestCheckTestFiles(t *testing.T) {
	for _, tests := range []bool{false, true} {
		c := newTestChecker(t)
		c.cfg.Tests = tests
		diags, err := c.Check("testdata/brokentest")
		require.NoErrorf(t, err, "%v", err)
		errs, _ := split(diags)
		want := 0
		if tests {
			want = 1
		}
		assert.Lenf(t, errs, want, "Tests=%v: %d errors %v, want %d", tests, len(errs), errs, want)
		if tests && len(errs) == 1 && !strings.Contains(errs[0].String(), "ok_darwin_test.go:10:10: cannot use metal.BufferObject{}") {
			t.Errorf("error %q", errs[0])
		}
	}
}

// TestCheckExecMetal is the check .ci/run makes, so a plain go test sees
// a regression too.
func TestCheckExecMetal(t *testing.T) {
	c := newTestChecker(t)
	c.cfg.Tests = true
	dir := filepath.Join(c.cfg.ModuleRoot, "exec", "metal")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("no exec/metal yet")
	}
	diags, err := c.Check(dir)
	require.NoErrorf(t, err, "%v", err)
	for _, d := range diags {
		t.Error(d)
	}
}

func TestRunExitStatus(t *testing.T) {
	c := newTestChecker(t)
	flags := []string{"-modroot", c.cfg.ModuleRoot, "-goroot", c.cfg.GOROOT, "-modcache", c.cfg.ModCache}
	tests := []struct {
		name string
		args []string
		want int
		out  string
	}{
		{"good", []string{"testdata/good"}, 0, "darwincheck: ok: darwin/arm64: 1 package, 1 file (1 + 0 tests): github.com/memplan/memplan/internal/tools/darwincheck/testdata/good\n"},
		{"broken", []string{"testdata/broken"}, 1, "MemoryBarrierWithScopes undefined"},
		{"warning only", []string{"testdata/badsel"}, 0, "warning:"},
		{"two packages", []string{"testdata/good", "testdata/badsel"}, 0, "darwincheck: ok: darwin/arm64: 2 packages, 2 files (2 + 0 tests): github.com/memplan/memplan/internal/tools/darwincheck/testdata/good, github.com/memplan/memplan/internal/tools/darwincheck/testdata/badsel\n"},
		{"no args", nil, 2, ""},
		{"no such dir", []string{"testdata/nonexistent"}, 2, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			got := run(append(append([]string{}, flags...), tc.args...), &stdout, &stderr)
			if got != tc.want {
				t.Errorf("exit %d, want %d; stdout %q stderr %q", got, tc.want, stdout.String(), stderr.String())
			}
			if !strings.Contains(stdout.String(), tc.out) {
				t.Errorf("stdout %q lacks %q", stdout.String(), tc.out)
			}
			// One summary line on success, none on failure.
			if ok := strings.Contains(stdout.String(), "darwincheck: ok:"); ok != (got == 0) {
				t.Errorf("exit %d, summary line printed: %v; stdout %q", got, ok, stdout.String())
			}
		})
	}
}

func TestUnresolvableImport(t *testing.T) {
	c := &Checker{modPath: "example.com/m", cfg: Config{ModuleRoot: "/m", GOROOT: "/goroot"}}
	_, err := c.resolve("example.org/elsewhere/pkg", "/m")
	assert.ErrorIsf(t, err, ErrResolve, "resolve of an unrequired module: err = %v, want ErrResolve", err)
	dir, err := c.resolve("example.com/m/exec/metal", "/m")
	assert.Falsef(t, err != nil || dir != filepath.FromSlash("/m/exec/metal"), "resolve main module = %q, %v", dir, err)
	dir, err = c.resolve("go/types", "/m")
	assert.Falsef(t, err != nil || dir != filepath.FromSlash("/goroot/src/go/types"), "resolve std = %q, %v", dir, err)
}
