package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// listed is what go list says about one package.
type listed struct {
	Dir, ImportPath, Name, Export, ForTest string
	GoFiles, CgoFiles, TestGoFiles         []string
	XTestGoFiles                           []string
	Error                                  *struct{ Err string }
}

// goList runs go list -json in dir and decodes the packages it prints.
func goList(dir string, args ...string) ([]listed, error) {
	cmd := exec.Command("go", append([]string{"list", "-e", "-json"}, args...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("testifyconv: go list %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var ps []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			return ps, nil
		} else if err != nil {
			return nil, fmt.Errorf("testifyconv: go list output: %w", err)
		}
		ps = append(ps, p)
	}
}

// exports maps import paths to export data files for the test build of
// the package pkg (test variants preferred), as go list -export -test
// -deps reports them.
func exports(dir, pkg string) (map[string]string, error) {
	ps, err := goList(dir, "-export", "-deps", "-test", pkg, testifyPath["assert"], testifyPath["require"])
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	suffix := " [" + pkg + ".test]"
	for _, p := range ps {
		if p.Export == "" {
			continue
		}
		path, variant := strings.CutSuffix(p.ImportPath, suffix)
		if _, seen := m[path]; !seen || variant {
			m[path] = p.Export
		}
	}
	return m, nil
}

// unit is one type-checked set of files: a package with its in-package
// tests, or its external test package.
type unit struct {
	fset  *token.FileSet
	files []*ast.File
	names []string // file paths, parallel to files
	src   map[string][]byte
	info  *types.Info
	pkg   *types.Package
}

// exportImporter imports packages from the export data files of m.
func exportImporter(fset *token.FileSet, m map[string]string) types.Importer {
	return importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := m[path]
		if !ok {
			return nil, fmt.Errorf("testifyconv: no export data for %q", path)
		}
		return os.Open(f)
	})
}

// check parses (from src, where a file's text is given, else from disk)
// and type-checks files as package path.
func check(fset *token.FileSet, path string, names []string, src map[string][]byte, imp types.Importer) (*unit, error) {
	u := &unit{fset: fset, names: names, src: map[string][]byte{}}
	for _, name := range names {
		text, ok := src[name]
		if !ok {
			var err error
			if text, err = os.ReadFile(name); err != nil {
				return nil, err
			}
		}
		f, err := parser.ParseFile(fset, name, text, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		u.files = append(u.files, f)
		u.src[name] = text
	}
	u.info = &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
		Scopes:     map[ast.Node]*types.Scope{},
	}
	var errs []error
	conf := types.Config{Importer: imp, Error: func(err error) { errs = append(errs, err) }}
	u.pkg, _ = conf.Check(path, fset, u.files, u.info)
	if len(errs) > 0 {
		return nil, fmt.Errorf("testifyconv: type-checking %s: %w", path, errors.Join(errs...))
	}
	return u, nil
}

// loaded is one package ready for conversion: its units (the package with
// its in-package tests, and the external test package if any).
type loaded struct {
	path  string
	dir   string
	units []*unit
	// recheck type-checks the package again with the given file texts.
	recheck func(src map[string][]byte) ([]*unit, error)
}

// load lists, parses and type-checks the packages matched by patterns.
func load(dir string, patterns []string) ([]*loaded, error) {
	ps, err := goList(dir, patterns...)
	if err != nil {
		return nil, err
	}
	var out []*loaded
	for _, p := range ps {
		if p.Error != nil {
			return nil, fmt.Errorf("testifyconv: %s: %s", p.ImportPath, p.Error.Err)
		}
		if len(p.TestGoFiles)+len(p.XTestGoFiles) == 0 {
			continue
		}
		if len(p.CgoFiles) > 0 {
			fmt.Fprintf(os.Stderr, "testifyconv: %s: skipped (cgo files)\n", p.ImportPath)
			continue
		}
		l, err := loadOne(dir, p)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

func loadOne(dir string, p listed) (*loaded, error) {
	m, err := exports(dir, p.ImportPath)
	if err != nil {
		return nil, err
	}
	abs := func(names ...[]string) []string {
		var r []string
		for _, ns := range names {
			for _, n := range ns {
				r = append(r, filepath.Join(p.Dir, n))
			}
		}
		return r
	}
	inPkg := abs(p.GoFiles, p.TestGoFiles)
	xtest := abs(p.XTestGoFiles)
	l := &loaded{path: p.ImportPath, dir: p.Dir}
	l.recheck = func(src map[string][]byte) ([]*unit, error) {
		fset := token.NewFileSet()
		imp := exportImporter(fset, m)
		var us []*unit
		if len(p.TestGoFiles) > 0 {
			u, err := check(fset, p.ImportPath, inPkg, src, imp)
			if err != nil {
				return nil, err
			}
			us = append(us, u)
		}
		if len(xtest) > 0 {
			u, err := check(fset, p.ImportPath+"_test", xtest, src, imp)
			if err != nil {
				return nil, err
			}
			us = append(us, u)
		}
		return us, nil
	}
	l.units, err = l.recheck(nil)
	return l, err
}
