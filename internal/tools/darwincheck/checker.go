package main

// The checker: go/build selects files as a darwin/arm64 cgo build would,
// go/types checks them, and a recursive source importer loads every import
// the same way, so a darwin-only package is type-checked on any host.
//
// Worked example: checking exec/metal loads
//
//	exec/metal (darwin && cgo files selected, bodies checked)
//	  -> github.com/progrium/darwinkit/macos/metal (from the module cache)
//	       -> github.com/progrium/darwinkit/objc (cgo file; "C" faked)
//	            -> reflect, runtime/cgo, unsafe ... (from GOROOT/src)
//
// Dependencies are checked with IgnoreFuncBodies: only their declarations
// matter to the target, and skipping bodies keeps a run over the standard
// library to a few seconds. Cgo files type-check because Config.FakeImportC
// makes every C.name an untyped, permissive object; the real cgo and the
// macOS SDK are needed only to build, not to catch a misspelt method or a
// wrong argument type.

import (
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Config tells the checker where things live. main fills it from flags and
// the go command; the checker itself reads no environment.
type Config struct {
	ModuleRoot string // directory holding the main module's go.mod
	GOROOT     string // Go installation whose src/ holds the standard library
	ModCache   string // GOMODCACHE
	GOOS       string // default "darwin"
	GOARCH     string // default "arm64"
	// ExtraSelectors are selectors known to exist beside those found in
	// darwinkit's sources (for example Apple's, from testdata).
	ExtraSelectors []string
	// Tests also checks the target's _test.go files, as go vet does: the
	// in-package ones with the package, the external test package after it.
	Tests bool
}

// Diagnostic is one finding, printed as file:line:col: message.
type Diagnostic struct {
	Pos     token.Position
	Msg     string
	Warning bool
}

// String formats d as file:line:col: [warning: ]message.
func (d Diagnostic) String() string {
	if d.Warning {
		return fmt.Sprintf("%s: warning: %s", d.Pos, d.Msg)
	}
	return fmt.Sprintf("%s: %s", d.Pos, d.Msg)
}

// Checker loads and type-checks packages for darwin from source. It caches
// every package it loads, so checking several directories shares the work.
type Checker struct {
	cfg     Config
	ctx     build.Context
	fset    *token.FileSet
	modPath string
	mods    []Module // required modules with resolved Dir, longest path first
	sizes   types.Sizes

	pkgs    map[string]*types.Package // by directory
	loading map[string]bool
	depErrs []Diagnostic
	sels    *selectorIndex
	checked []Checked // one per Check call, in call order
}

// Checked is what one Check call type-checked: the package's import path
// and its files (in-package and external tests included when
// Config.Tests is set), as paths.
type Checked struct {
	Path  string
	Files []string
}

// Checked returns what every Check call so far type-checked, in call order.
func (c *Checker) Checked() []Checked { return append([]Checked(nil), c.checked...) }

// record notes the files of ck under the import path.
func (c *Checker) record(path string, cks ...*checked) {
	rec := Checked{Path: path}
	for _, ck := range cks {
		if ck == nil {
			continue
		}
		for _, f := range ck.files {
			rec.Files = append(rec.Files, c.fset.Position(f.Pos()).Filename)
		}
	}
	sort.Strings(rec.Files)
	c.checked = append(c.checked, rec)
}

// NewChecker reads the main module's go.mod and prepares the darwin build
// context.
func NewChecker(cfg Config) (*Checker, error) {
	if cfg.GOOS == "" {
		cfg.GOOS = "darwin"
	}
	if cfg.GOARCH == "" {
		cfg.GOARCH = "arm64"
	}
	data, err := os.ReadFile(filepath.Join(cfg.ModuleRoot, "go.mod"))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrGoMod, err)
	}
	modPath, mods, err := ParseGoMod(data, cfg.ModuleRoot)
	if err != nil {
		return nil, err
	}
	for i := range mods {
		m := &mods[i]
		switch {
		case m.Dir == "":
			m.Dir = ModuleDir(cfg.ModCache, m.Path, m.Version)
		case strings.HasPrefix(m.Dir, "="):
			m.Dir = ModuleDir(cfg.ModCache, m.Dir[1:], m.Version)
		}
	}
	sort.SliceStable(mods, func(i, j int) bool { return len(mods[i].Path) > len(mods[j].Path) })
	ctx := build.Default
	ctx.GOOS, ctx.GOARCH = cfg.GOOS, cfg.GOARCH
	ctx.CgoEnabled = true
	ctx.GOROOT = cfg.GOROOT
	ctx.GOPATH = ""
	ctx.Dir = cfg.ModuleRoot
	c := &Checker{
		cfg:     cfg,
		ctx:     ctx,
		fset:    token.NewFileSet(),
		modPath: modPath,
		mods:    mods,
		sizes:   types.SizesFor("gc", cfg.GOARCH),
		pkgs:    map[string]*types.Package{},
		loading: map[string]bool{},
	}
	return c, nil
}

// resolve maps an import path, imported from srcDir, to a directory.
func (c *Checker) resolve(path, srcDir string) (string, error) {
	if hasPathPrefix(path, c.modPath) {
		return filepath.Join(c.cfg.ModuleRoot, filepath.FromSlash(strings.TrimPrefix(path, c.modPath))), nil
	}
	if isStd(path) {
		return filepath.Join(c.cfg.GOROOT, "src", filepath.FromSlash(path)), nil
	}
	goSrc := filepath.Join(c.cfg.GOROOT, "src")
	if rel, err := filepath.Rel(goSrc, srcDir); err == nil && !strings.HasPrefix(rel, "..") {
		// The standard library vendors its few golang.org/x dependencies.
		vdir := filepath.Join(goSrc, "vendor", filepath.FromSlash(path))
		if st, err := os.Stat(vdir); err == nil && st.IsDir() {
			return vdir, nil
		}
		if strings.HasPrefix(rel, "cmd") {
			vdir = filepath.Join(goSrc, "cmd", "vendor", filepath.FromSlash(path))
			if st, err := os.Stat(vdir); err == nil && st.IsDir() {
				return vdir, nil
			}
		}
	}
	for _, m := range c.mods {
		if hasPathPrefix(path, m.Path) {
			return filepath.Join(m.Dir, filepath.FromSlash(strings.TrimPrefix(path, m.Path))), nil
		}
	}
	return "", fmt.Errorf("%w: %q (imported from %s): no module in go.mod provides it", ErrResolve, path, srcDir)
}

// Import implements types.Importer for imports without a source directory.
func (c *Checker) Import(path string) (*types.Package, error) {
	return c.ImportFrom(path, c.cfg.ModuleRoot, 0)
}

// ImportFrom implements types.ImporterFrom: it loads path from source under
// the darwin build context, checking declarations only.
func (c *Checker) ImportFrom(path, srcDir string, _ types.ImportMode) (*types.Package, error) {
	if path == "unsafe" {
		return types.Unsafe, nil
	}
	dir, err := c.resolve(path, srcDir)
	if err != nil {
		return nil, err
	}
	pkg, _, _, err := c.load(path, dir, false)
	return pkg, err
}

// load parses and type-checks the package in dir. A target package gets its
// function bodies checked, its errors returned as diagnostics and its
// types.Info filled; a dependency is checked for declarations only and its
// errors are kept in c.depErrs.
func (c *Checker) load(path, dir string, target bool) (*types.Package, []Diagnostic, *checked, error) {
	return c.loadFiles(path, dir, target, nil)
}

// loadFiles is load with an explicit file list (nil: the package's own Go
// and cgo files, plus its in-package tests when checking a target with
// Config.Tests).
func (c *Checker) loadFiles(path, dir string, target bool, only []string) (*types.Package, []Diagnostic, *checked, error) {
	if pkg, ok := c.pkgs[dir]; ok && !target {
		return pkg, nil, nil, nil
	}
	if c.loading[dir] {
		return nil, nil, nil, fmt.Errorf("%w: %s", ErrCycle, path)
	}
	c.loading[dir] = true
	defer delete(c.loading, dir)

	bp, err := c.ctx.ImportDir(dir, 0)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%w: %s (%s): %w", ErrLoad, path, dir, err)
	}
	names := append(append([]string{}, bp.GoFiles...), bp.CgoFiles...)
	if target && c.cfg.Tests {
		names = append(names, bp.TestGoFiles...)
	}
	if only != nil {
		names = only
	}
	sort.Strings(names)
	mode := parser.SkipObjectResolution
	if target {
		mode |= parser.ParseComments
	}
	var diags []Diagnostic
	files := make([]*ast.File, 0, len(names))
	for _, n := range names {
		f, err := parser.ParseFile(c.fset, filepath.Join(dir, n), nil, mode)
		if err != nil {
			var el interface{ Unwrap() []error }
			if errors.As(err, &el) {
				for _, e := range el.Unwrap() {
					diags = append(diags, Diagnostic{Msg: e.Error()})
				}
			} else {
				diags = append(diags, Diagnostic{Msg: err.Error()})
			}
			continue
		}
		files = append(files, f)
	}
	ck := &checked{files: files, info: &types.Info{
		Types: map[ast.Expr]types.TypeAndValue{},
		Uses:  map[*ast.Ident]types.Object{},
		Defs:  map[*ast.Ident]types.Object{},
	}}
	conf := types.Config{
		Importer:         c,
		FakeImportC:      true,
		IgnoreFuncBodies: !target,
		Sizes:            c.sizes,
		Error: func(err error) {
			te, ok := err.(types.Error)
			if !ok {
				diags = append(diags, Diagnostic{Msg: err.Error()})
				return
			}
			diags = append(diags, Diagnostic{Pos: te.Fset.Position(te.Pos), Msg: te.Msg})
		},
	}
	var info *types.Info
	if target {
		info = ck.info
	}
	pkg, _ := conf.Check(path, c.fset, files, info)
	ck.pkg = pkg
	if !target {
		c.pkgs[dir] = pkg
		for _, d := range diags {
			d.Msg = "in dependency " + path + ": " + d.Msg
			c.depErrs = append(c.depErrs, d)
		}
		return pkg, nil, ck, nil
	}
	return pkg, diags, ck, nil
}

// checked is what a target's check leaves for later passes.
type checked struct {
	pkg   *types.Package
	files []*ast.File
	info  *types.Info
}

// Check loads the package in dir (a directory of the main module, or any
// directory: its import path is derived from the module root when it lies
// inside it) for darwin and returns every type error, every error met in
// its dependencies, and selector warnings, sorted by position. The error
// return is for packages that cannot be loaded at all.
func (c *Checker) Check(dir string) ([]Diagnostic, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrLoad, dir, err)
	}
	path := abs
	if rel, err := filepath.Rel(c.cfg.ModuleRoot, abs); err == nil && !strings.HasPrefix(rel, "..") {
		path = c.modPath
		if rel != "." {
			path += "/" + filepath.ToSlash(rel)
		}
	}
	before := len(c.depErrs)
	pkg, diags, ck, err := c.load(path, abs, true)
	if err != nil {
		return nil, err
	}
	diags = append(diags, c.selectorWarnings(ck)...)
	diags = append(diags, c.callArity(ck)...)
	var xck *checked
	if c.cfg.Tests {
		// The external test package imports the package with its
		// in-package tests, as go test builds it.
		c.pkgs[abs] = pkg
		bp, err := c.ctx.ImportDir(abs, 0)
		if err == nil && len(bp.XTestGoFiles) > 0 {
			var xd []Diagnostic
			_, xd, xck, err = c.loadFiles(path+"_test", abs, true, bp.XTestGoFiles)
			if err != nil {
				return nil, err
			}
			diags = append(diags, xd...)
			diags = append(diags, c.selectorWarnings(xck)...)
			diags = append(diags, c.callArity(xck)...)
		}
	}
	c.record(path, ck, xck)
	diags = append(diags, c.depErrs[before:]...)
	sort.SliceStable(diags, func(i, j int) bool {
		a, b := diags[i].Pos, diags[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	return diags, nil
}
