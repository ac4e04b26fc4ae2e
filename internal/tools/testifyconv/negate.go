package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"strconv"
	"strings"
)

// clash reports whether file f declares or uses a name assert or require
// that is not testify's package.
func clash(u *unit, f *ast.File) bool {
	bad := false
	ast.Inspect(f, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok || (id.Name != "assert" && id.Name != "require") {
			return true
		}
		obj := u.info.Defs[id]
		if obj == nil {
			obj = u.info.Uses[id]
		}
		if pn, ok := obj.(*types.PkgName); ok && pn.Imported().Path() == testifyPath[id.Name] {
			return true
		}
		if obj != nil {
			bad = true
		}
		return true
	})
	return bad
}

// opposite maps an assertion onto the one that fails where it passes.
var opposite = map[string]string{}

func init() {
	for _, p := range [][2]string{
		{"NoError", "Error"}, {"Equal", "NotEqual"}, {"True", "False"},
		{"Nil", "NotNil"}, {"Same", "NotSame"}, {"ErrorIs", "NotErrorIs"},
		{"Empty", "NotEmpty"}, {"Contains", "NotContains"},
		{"Less", "GreaterOrEqual"}, {"LessOrEqual", "Greater"},
	} {
		opposite[p[0]], opposite[p[1]] = p[1], p[0]
	}
}

// negateFile rewrites the first assert/require call on line LINE of FILE
// (spec "FILE:LINE") into its opposite: a mutant that the tests must catch.
func negateFile(spec string) error {
	i := strings.LastIndex(spec, ":")
	if i < 0 {
		return fmt.Errorf("testifyconv: -negate %q: want FILE:LINE", spec)
	}
	name, lineText := spec[:i], spec[i+1:]
	line, err := strconv.Atoi(lineText)
	if err != nil {
		return fmt.Errorf("testifyconv: -negate %q: %w", spec, err)
	}
	src, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	out, what, err := negate(src, line)
	if err != nil {
		return fmt.Errorf("testifyconv: %s: %w", spec, err)
	}
	fmt.Printf("%s: %s\n", spec, what)
	return os.WriteFile(name, out, 0o644)
}

// negate returns src with the first testify call on line replaced by its
// opposite, and a description of the change.
func negate(src []byte, line int) ([]byte, string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.ParseComments)
	if err != nil {
		return nil, "", err
	}
	var call *ast.CallExpr
	var sel *ast.SelectorExpr
	ast.Inspect(f, func(n ast.Node) bool {
		if call != nil {
			return false
		}
		c, ok := n.(*ast.CallExpr)
		if !ok || fset.Position(c.Pos()).Line != line {
			return true
		}
		s, ok := c.Fun.(*ast.SelectorExpr)
		if id, isID := s.X.(*ast.Ident); ok && isID && (id.Name == "assert" || id.Name == "require") {
			call, sel = c, s
		}
		return true
	})
	if call == nil {
		return nil, "", fmt.Errorf("no assert or require call on line %d", line)
	}
	base, suffix := sel.Sel.Name, ""
	if strings.HasSuffix(base, "f") && base != "Len" {
		base, suffix = strings.TrimSuffix(base, "f"), "f"
	}
	off := func(p token.Pos) int { return fset.File(p).Offset(p) }
	if base == "Len" && len(call.Args) >= 3 {
		n := call.Args[2]
		out := string(src[:off(n.Pos())]) + "(" + string(src[off(n.Pos()):off(n.End())]) + ")+1" + string(src[off(n.End()):])
		return []byte(out), "Len: length + 1", nil
	}
	opp, ok := opposite[base]
	if !ok {
		return nil, "", fmt.Errorf("no opposite for %s", sel.Sel.Name)
	}
	out := string(src[:off(sel.Sel.Pos())]) + opp + suffix + string(src[off(sel.Sel.End()):])
	return []byte(out), sel.Sel.Name + " -> " + opp + suffix, nil
}
