package main

import (
	"bytes"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
)

// testify import paths by package name.
var testifyPath = map[string]string{
	"assert":  "github.com/stretchr/testify/assert",
	"require": "github.com/stretchr/testify/require",
}

// apply applies the edits to src, adds the testify imports the edits use,
// drops the imports that only the replaced conditions used, and formats
// the result.
func apply(src []byte, edits []edit, uses map[string]bool) ([]byte, error) {
	slices.SortFunc(edits, func(a, b edit) int { return b.start - a.start })
	out := slices.Clone(src)
	for _, e := range edits {
		out = slices.Concat(out[:e.start:e.start], []byte(e.text), out[e.end:])
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", out, parser.ImportsOnly)
	if err != nil {
		return nil, err
	}
	var add []string
	for _, name := range []string{"assert", "require"} {
		if uses[name] && !imports(f, testifyPath[name]) {
			add = append(add, strconv.Quote(testifyPath[name]))
		}
	}
	if len(add) > 0 {
		out = addImports(fset, f, out, add)
	}
	out, err = dropUnused(src, out)
	if err != nil {
		return nil, err
	}
	return format.Source(out)
}

func imports(f *ast.File, path string) bool {
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); p == path {
			return true
		}
	}
	return false
}

// addImports adds the quoted paths to the file's last import declaration,
// in a group of their own when that declaration ends with the standard
// library.
func addImports(fset *token.FileSet, f *ast.File, src []byte, paths []string) []byte {
	var last *ast.GenDecl
	for _, d := range f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.IMPORT {
			last = g
		}
	}
	lines := "\t" + strings.Join(paths, "\n\t") + "\n"
	if last == nil {
		// after the package clause
		at := fset.File(f.Package).Offset(f.Name.End())
		return slices.Concat(src[:at:at], []byte("\n\nimport (\n"+lines+")\n"), src[at:])
	}
	lastPath, _ := strconv.Unquote(last.Specs[len(last.Specs)-1].(*ast.ImportSpec).Path.Value)
	sep := "\n"
	if !strings.Contains(strings.Split(lastPath, "/")[0], ".") {
		sep = "\n\n"
	}
	if !last.Lparen.IsValid() {
		start := fset.File(f.Package).Offset(last.Pos())
		end := fset.File(f.Package).Offset(last.End())
		spec := string(src[start+len("import") : end])
		return slices.Concat(src[:start:start], []byte("import ("+"\n\t"+strings.TrimSpace(spec)+sep+lines+")"), src[end:])
	}
	at := fset.File(f.Package).Offset(last.Rparen)
	return slices.Concat(src[:at:at], []byte(strings.TrimSuffix(sep, "\n")+lines), src[at:])
}

// dropUnused removes the imports of out whose package name is no longer
// referenced but was in orig (the conditions that used it were replaced).
func dropUnused(orig, out []byte) ([]byte, error) {
	used := func(src []byte) (map[string]bool, *ast.File, *token.FileSet, error) {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "", src, parser.ParseComments)
		if err != nil {
			return nil, nil, nil, err
		}
		m := map[string]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			if s, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := s.X.(*ast.Ident); ok {
					m[id.Name] = true
				}
			}
			return true
		})
		return m, f, fset, nil
	}
	before, _, _, err := used(orig)
	if err != nil {
		return nil, err
	}
	after, f, fset, err := used(out)
	if err != nil {
		return nil, err
	}
	var cut [][2]int
	for _, im := range f.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		if name == "_" || name == "." || after[name] || !before[name] {
			continue
		}
		start := fset.File(im.Pos()).Offset(im.Pos())
		end := fset.File(im.Pos()).Offset(im.End())
		// the whole line, when the spec is alone on it
		ls := bytes.LastIndexByte(out[:start], '\n') + 1
		le := bytes.IndexByte(out[end:], '\n')
		if le >= 0 && len(bytes.TrimSpace(out[ls:start])) == 0 && len(bytes.TrimSpace(out[end:end+le])) == 0 {
			start, end = ls, end+le+1
		}
		cut = append(cut, [2]int{start, end})
	}
	for i := len(cut) - 1; i >= 0; i-- {
		out = slices.Concat(out[:cut[i][0]:cut[i][0]], out[cut[i][1]:])
	}
	return out, nil
}
