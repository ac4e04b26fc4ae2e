package longtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// .ci/run runs the tests that read the DSA benchmark folder
// (../shared/benchmarks/dsa) in a step of their own, uncached, selected by
// name: go test -count=1 -run DSA. A test that reads the folder under
// another name would escape that step and could pass from Go's test cache
// without running. dsaTestsMisnamed finds such tests: top-level Test
// functions whose body, or a function of the same package it calls
// (transitively), builds a path with the literals "benchmarks" and "dsa",
// and whose name lacks "DSA".
func dsaTestsMisnamed(fset *token.FileSet, files []*ast.File) []string {
	funcs := map[string]*ast.FuncDecl{}
	for _, f := range files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Body != nil {
				funcs[fd.Name.Name] = fd
			}
		}
	}
	memo := map[string]bool{}
	var reaches func(name string, seen map[string]bool) bool
	reaches = func(name string, seen map[string]bool) bool {
		if v, ok := memo[name]; ok {
			return v
		}
		fd := funcs[name]
		if fd == nil || seen[name] {
			return false
		}
		seen[name] = true
		found, bench := false, false
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.BasicLit:
				if s, err := strconv.Unquote(x.Value); err == nil {
					bench = bench || s == "benchmarks" || strings.Contains(s, "benchmarks/dsa")
					found = found || strings.Contains(s, "benchmarks/dsa") || (bench && s == "dsa")
				}
			case *ast.CallExpr:
				if id, ok := x.Fun.(*ast.Ident); ok && reaches(id.Name, seen) {
					found = true
				}
			}
			return !found
		})
		memo[name] = found
		return found
	}
	var out []string
	for name, fd := range funcs {
		if strings.HasPrefix(name, "Test") && !strings.Contains(name, "DSA") && reaches(name, map[string]bool{}) {
			out = append(out, fset.Position(fd.Pos()).String()+": "+name)
		}
	}
	sort.Strings(out)
	return out
}

// TestDSATestsAreNamedDSA checks every package's tests in the module.
func TestDSATestsAreNamedDSA(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoErrorf(t, err, "%v", err)
	byDir := map[string][]*ast.File{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, p, src, 0)
		if err != nil {
			return err
		}
		dir := filepath.Dir(p) + " " + f.Name.Name // in-package and external tests apart
		byDir[dir] = append(byDir[dir], f)
		return nil
	})
	require.NoErrorf(t, err, "%v", err)
	require.GreaterOrEqualf(t, len(byDir), 5, "found tests in %d packages only under %s", len(byDir), root)
	for _, files := range byDir {
		for _, bad := range dsaTestsMisnamed(fset, files) {
			t.Errorf("%s reads ../shared/benchmarks/dsa but its name lacks DSA: .ci/run's uncached DSA step would miss it", bad)
		}
	}
}

// TestDSATestsMisnamedCatches: the check finds a misnamed test that reaches
// the folder through a helper, and passes a well-named one.
func TestDSATestsMisnamedCatches(t *testing.T) {
	const src = `package p
func dir() string { return filepath.Join("..", "shared", "benchmarks", "dsa") }
func load() string { return dir() }
func TestQuality(t *testing.T) { load() }
func TestDSAQuality(t *testing.T) { load() }
func TestOther(t *testing.T) { filepath.Join("benchmarks", "other") }
func TestLiteral(t *testing.T) { os.Open("../shared/benchmarks/dsa/x.csv") }
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p_test.go", src, 0)
	require.NoErrorf(t, err, "%v", err)
	got := dsaTestsMisnamed(fset, []*ast.File{f})
	assert.Falsef(t, len(got) != 2 || !strings.HasSuffix(got[0], "TestQuality") || !strings.HasSuffix(got[1], "TestLiteral"), "misnamed = %v, want TestQuality and TestLiteral", got)
}
