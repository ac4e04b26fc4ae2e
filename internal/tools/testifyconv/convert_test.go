package main

import (
	"bytes"
	"flag"
	"go/token"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var (
	expOnce sync.Once
	expMap  map[string]string
	expErr  error
)

// testImports returns export data for the packages the testdata files
// import, and for testify.
func testImports(t *testing.T) map[string]string {
	t.Helper()
	expOnce.Do(func() {
		var ps []listed
		ps, expErr = goList(".", "-export", "-deps", "errors", "math", "reflect", "strings", "testing",
			"pgregory.net/rapid", testifyPath["assert"], testifyPath["require"])
		expMap = map[string]string{}
		for _, p := range ps {
			expMap[p.ImportPath] = p.Export
		}
	})
	require.NoErrorf(t, expErr, "%v", expErr)
	return expMap
}

// convertFile converts one file, type-checked as a package of its own,
// checks that the result type-checks, and returns it with the counts.
func convertFile(t *testing.T, name string, src []byte) ([]byte, counts, counts, map[string]int) {
	t.Helper()
	m := testImports(t)
	fset := token.NewFileSet()
	u, err := check(fset, "checks", []string{name}, map[string][]byte{name: src}, exportImporter(fset, m))
	require.NoErrorf(t, err, "%v", err)
	skipped := map[string]int{}
	c := &converter{u: u, file: u.files[0], src: src, uses: map[string]bool{}, skipped: skipped}
	c.run()
	out, err := apply(src, c.edits, c.uses)
	require.NoErrorf(t, err, "%v", err)
	fset2 := token.NewFileSet()
	u2, err := check(fset2, "checks", []string{name}, map[string][]byte{name: out}, exportImporter(fset2, m))
	require.NoErrorf(t, err, "converted file does not type-check: %v\n%s", err, out)
	return out, count([]*unit{u}), count([]*unit{u2}), skipped
}

// TestGolden converts testdata/checks.input and compares the result with
// testdata/checks.golden (go test -update rewrites it).
func TestGolden(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "checks.input"))
	require.NoErrorf(t, err, "%v", err)
	out, before, after, skipped := convertFile(t, "checks_test.go", src)
	golden := filepath.Join("testdata", "checks.golden")
	if *update {
		if err := os.WriteFile(golden, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	require.NoErrorf(t, err, "%v", err)
	assert.Truef(t, bytes.Equal(out, want), "converted file differs from %s (go test -update to accept):\n%s", golden, out)
	if after.total() != before.total() {
		t.Errorf("checks: %d before, %d after", before.total(), after.total())
	}
	assert.Falsef(t, before.testify != 0 || after.testify == 0 || after.calls == 0, "counts before %+v, after %+v: want testify calls and some checks left alone", before, after)
	t.Logf("before %+v after %+v skipped %v", before, after, skipped)
}

// TestMappings checks single conversions: the assertion each condition
// becomes, and the checks that must be left alone.
func TestMappings(t *testing.T) {
	for _, tc := range []struct {
		name, decl, check string
		want              string // substring of the output; "" means left alone
	}{
		{"error", "var err error", "if err != nil { t.Fatal(err) }", "require.NoErrorf(t, err, \"%v\", err)"},
		{"no error", "var err error", "if err == nil { t.Error(\"want error\") }", "assert.Errorf(t, err, \"want error\")"},
		{"typed nil pointer error", "var err *os.PathError", "if err != nil { t.Fatal(\"e\") }", "require.Nilf(t, err, \"e\")"},
		{"untyped constant converted", "var x int64", "if x != 7 { t.Fatal() }", "require.Equal(t, int64(7), x)"},
		{"untyped constant of the default type", "var x int", "if x != 7 { t.Fatal() }", "require.Equal(t, 7, x)"},
		{"named type of another package", "var m os.FileMode", "if m != 7 { t.Fatal() }", "require.Equal(t, os.FileMode(7), m)"},
		{"want on the left", "var want, got string", "if want != got { t.Fatal() }", "require.Equal(t, want, got)"},
		{"pointers compare by address", "var p, q *int", "if p != q { t.Fatal() }", "require.Same(t, q, p)"},
		{"pointers equal", "var p, q *int", "if p == q { t.Fatal() }", "require.NotSame(t, q, p)"},
		{"nil slice", "var s []int", "if s != nil { t.Fatal() }", "require.Nil(t, s)"},
		{"non-nil map", "var m map[int]int", "if m == nil { t.Fatal() }", "require.NotNil(t, m)"},
		{"interface nil test differs", "var v any", "if v != nil { t.Fatal() }", "require.False(t, v != nil)"},
		{"interface equality differs", "var v, w any", "if v != w { t.Fatal() }", "require.False(t, v != w)"},
		{"float equality", "var f float64", "if f != 0.5 { t.Fatal() }", "require.Equal(t, 0.5, f)"},
		{"integer literal against a float", "var f float64", "if f != 0 { t.Fatal() }", "require.Equal(t, float64(0), f)"},
		{"negative literal", "var n int", "if n != -1 { t.Fatal() }", "require.Equal(t, -1, n)"},
		{"rune literal", "var r rune", "if r != 'a' { t.Fatal() }", "require.Equal(t, 'a', r)"},
		{"byte against a rune literal", "var b byte", "if b != 'a' { t.Fatal() }", "require.Equal(t, byte('a'), b)"},
		{"untyped named constant", "const k = 2; var n int64", "if n != k { t.Fatal() }", "require.Equal(t, int64(k), n)"},
		{"typed named constant", "const k int64 = 2; var n int64", "if n != k { t.Fatal() }", "require.Equal(t, k, n)"},
		{"float order falls back", "var f float64", "if f < 0.5 { t.Fatal() }", "require.False(t, f < 0.5)"},
		{"int order", "var n int", "if n < 5 { t.Fatal() }", "require.GreaterOrEqual(t, n, 5)"},
		{"int order reversed", "var n uint8", "if n >= 5 { t.Fatal() }", "require.Less(t, n, uint8(5))"},
		{"len", "var s []int", "if len(s) != 3 { t.Fatal() }", "require.Len(t, s, 3)"},
		{"len on the right", "var s []int", "if 3 != len(s) { t.Fatal() }", "require.Len(t, s, 3)"},
		{"empty", "var s string", "if len(s) != 0 { t.Fatal() }", "require.Empty(t, s)"},
		{"not empty", "var s []int", "if len(s) == 0 { t.Fatal() }", "require.NotEmpty(t, s)"},
		{"array len 0 is not Empty", "var a [0]int", "if len(a) != 0 { t.Fatal() }", "require.Len(t, a, 0)"},
		{"pointer to array", "var a *[3]int", "if len(a) != 3 { t.Fatal() }", "require.Equal(t, 3, len(a))"},
		{"errors.Is", "var err error", "if !errors.Is(err, os.ErrNotExist) { t.Fatal() }", "require.ErrorIs(t, err, os.ErrNotExist)"},
		{"contains", "var s string", "if !strings.Contains(s, \"x\") { t.Error(s) }", "assert.Containsf(t, s, \"x\", \"%v\", s)"},
		{"named bool", "type B bool\nvar b B", "if b { t.Fatal() }", "require.False(t, bool(b))"},
		{"negation", "var ok bool", "if !ok { t.Fatal() }", "require.True(t, ok)"},
		{"struct of basics", "var a, b struct{ x int; s string }", "if a != b { t.Fatal() }", "require.Equal(t, b, a)"},
		{"struct with a pointer", "var a, b struct{ p *int }", "if a != b { t.Fatal() }", "require.False(t, a != b)"},
		{"two operands", "var a, b int", "if a > b { t.Fatal(a, b) }", "require.LessOrEqualf(t, a, b, \"%v %v\", a, b)"},
		{"percent in a literal", "var ok bool", "if !ok { t.Error(\"100%\") }", "assert.Truef(t, ok, \"%v\", \"100%\")"},
		{"field of a value", "var tc struct{ name string; ok bool }", "if !tc.ok { t.Errorf(\"%s\", tc.name) }", "assert.Truef(t, tc.ok, \"%s\", tc.name)"},
		{"rapid Error is require", "", "rapid.Check(t, func(rt *rapid.T) { n := 1; if n != 1 { rt.Errorf(\"n %d\", n) } })", "require.Equalf(rt, 1, n, \"n %d\", n)"},
		{"init hoisted", "f := func() error { return nil }", "if err := f(); err != nil { t.Fatal(err) }", "err := f()\n\trequire.NoErrorf(t, err, \"%v\", err)"},
		{"method call in message", "var err error", "if err != nil { t.Fatal(err.Error()) }", ""},
		{"field through a pointer in message", "var p *struct{ name string }; var ok bool", "if !ok { t.Fatal(p.name) }", ""},
		{"index in message", "var s []string; var ok bool", "if !ok { t.Fatal(s[0]) }", ""},
		{"division in message", "var a, b int; var ok bool", "if !ok { t.Fatal(a / b) }", ""},
		{"shadowing init", "var err error; f := func() error { return nil }", "if err := f(); err != nil { t.Fatal(err) }; _ = err", ""},
		{"outer variable reassigned next", "var err error; f := func() error { return nil }", "if err := f(); err != nil { t.Fatal(err) }; _, err = 1, f(); _ = err", "err = f()\n\trequire.NoErrorf(t, err, \"%v\", err)"},
		{"outer variable captured", "var err error; f := func() error { return nil }; defer func() { _ = err }()", "if err := f(); err != nil { t.Fatal(err) }", ""},
		{"outer variable of another type", "var err *os.PathError; f := func() error { return nil }; _ = err", "if err := f(); err != nil { t.Fatal(err) }", ""},
		{"two statements", "var ok bool", "if !ok { t.Log(); t.Fatal() }", ""},
		{"else", "var ok bool", "if !ok { t.Fatal() } else { t.Log() }", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "package checks\n\nimport (\n\t\"errors\"\n\t\"os\"\n\t\"strings\"\n\t\"testing\"\n\n\t\"pgregory.net/rapid\"\n)\n\n" +
				"var _, _, _ = errors.New, os.Open, strings.Contains\nvar _ = rapid.Check\n\n" +
				"func TestX(t *testing.T) {\n" + tc.decl + "\n" + tc.check + "\n}\n"
			out, before, after, _ := convertFile(t, "x_test.go", []byte(src))
			if after.total() != before.total() {
				t.Errorf("checks: %d before, %d after", before.total(), after.total())
			}
			if tc.want == "" {
				assert.Equalf(t, 0, after.testify, "converted a check that must be left alone:\n%s", out)
				return
			}
			assert.Containsf(t, string(out), tc.want, "output lacks %q:\n%s", tc.want, out)
		})
	}
}
