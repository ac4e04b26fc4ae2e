package main

// Selector warnings. objc.Sel("setBuffer:offset:atIndex:") compiles whatever
// the string says, and a misspelt selector fails only at run time on a Mac
// (objc.Call silently returns the zero value when the class has no such
// method). So every constant selector the target passes to darwinkit's
// objc.Sel is looked up in an index of the selector-shaped string literals
// of darwinkit's own sources (its generated *.gen.go files name every
// selector they bind, e.g. `objc.Sel("memoryBarrierWithScope:")`) and in a
// short list of Apple selectors kept in testdata/apple_selectors.txt; a
// selector found in neither gets a warning.

import (
	"bufio"
	"go/ast"
	"go/constant"
	"go/types"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

const (
	darwinkitPath = "github.com/progrium/darwinkit"
	objcPath      = darwinkitPath + "/objc"
)

// selectorIndex is the set of known selectors.
type selectorIndex struct {
	known  map[string]bool
	source string // what the index was built from, for messages
}

// quotedSel matches a quoted, selector-shaped string literal.
var quotedSel = regexp.MustCompile(`"([A-Za-z_][A-Za-z0-9_]*(?::(?:[A-Za-z_][A-Za-z0-9_]*:)*)?)"`)

// buildSelectorIndex scans the darwinkit module directory (if go.mod
// requires darwinkit and the module cache holds it) and adds extra.
func (c *Checker) buildSelectorIndex() *selectorIndex {
	idx := &selectorIndex{known: map[string]bool{}, source: "the Apple selector list"}
	for _, s := range c.cfg.ExtraSelectors {
		idx.known[s] = true
	}
	for _, m := range c.mods {
		if m.Path != darwinkitPath {
			continue
		}
		if _, err := os.Stat(m.Dir); err != nil {
			break
		}
		idx.source = "darwinkit " + m.Version + " or the Apple selector list"
		_ = filepath.WalkDir(m.Dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			for _, sm := range quotedSel.FindAllSubmatch(data, -1) {
				idx.known[string(sm[1])] = true
			}
			return nil
		})
	}
	return idx
}

// ParseSelectorList reads one selector per line; blank lines and lines
// starting with # are skipped.
func ParseSelectorList(text string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		out = append(out, s)
	}
	return out
}

// selectorWarnings finds objc.Sel calls with a constant argument that the
// index does not know.
func (c *Checker) selectorWarnings(ck *checked) []Diagnostic {
	if ck == nil || ck.info == nil {
		return nil
	}
	var out []Diagnostic
	for _, f := range ck.files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return true
			}
			var id *ast.Ident
			switch fun := call.Fun.(type) {
			case *ast.SelectorExpr:
				id = fun.Sel
			case *ast.Ident:
				id = fun
			default:
				return true
			}
			fn, ok := ck.info.Uses[id].(*types.Func)
			if !ok || fn.Pkg() == nil || fn.Pkg().Path() != objcPath || fn.Name() != "Sel" {
				return true
			}
			tv, ok := ck.info.Types[call.Args[0]]
			if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
				return true
			}
			sel := constant.StringVal(tv.Value)
			if c.sels == nil {
				c.sels = c.buildSelectorIndex()
			}
			if !c.sels.known[sel] {
				out = append(out, Diagnostic{
					Pos:     c.fset.Position(call.Args[0].Pos()),
					Msg:     "objc.Sel(" + strconv.Quote(sel) + ") appears nowhere in " + c.sels.source,
					Warning: true,
				})
			}
			return true
		})
	}
	return out
}
