package main

import (
	"fmt"
	"go/ast"
	"go/types"
	"io"
	"strings"
)

// counts is the number of checks of one package.
type counts struct {
	calls   int // t.Fatal/Fatalf/Error/Errorf call sites
	ifs     int // of them, the body of an if with no else and nothing else
	testify int // calls of assert.* and require.*
}

// total is every check: testify calls and hand-written failure calls.
func (n counts) total() int { return n.calls + n.testify }

// count counts the checks of the test files of units.
func count(us []*unit) counts {
	var n counts
	for _, u := range us {
		for i, f := range u.files {
			if !strings.HasSuffix(u.names[i], "_test.go") {
				continue
			}
			ast.Inspect(f, func(m ast.Node) bool {
				switch m := m.(type) {
				case *ast.IfStmt:
					if m.Else == nil && len(m.Body.List) == 1 {
						if es, ok := m.Body.List[0].(*ast.ExprStmt); ok {
							if call, ok := es.X.(*ast.CallExpr); ok {
								if _, _, ok := isCheckCall(u.info, call); ok {
									n.ifs++
								}
							}
						}
					}
				case *ast.CallExpr:
					if _, _, ok := isCheckCall(u.info, m); ok {
						n.calls++
					} else if isTestify(u.info, m) {
						n.testify++
					}
				}
				return true
			})
		}
	}
	return n
}

// isTestify reports whether call calls a function of testify's assert or
// require package.
func isTestify(info *types.Info, call *ast.CallExpr) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	fn, ok := info.Uses[sel.Sel].(*types.Func)
	if !ok || fn.Pkg() == nil {
		return false
	}
	p := fn.Pkg().Path()
	return p == testifyPath["assert"] || p == testifyPath["require"]
}

// row is one package's line of the table.
type row struct {
	pkg           string
	before, after counts
}

// printTable writes the before/after table, one package a row, and a total.
func printTable(w io.Writer, rows []row) {
	fmt.Fprintln(w, "| package | before: t.Fatal/Error calls (in if-blocks) | after: testify calls + t.Fatal/Error calls | checks before | checks after |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	var tb, ta counts
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %d (%d) | %d + %d | %d | %d |\n", r.pkg, r.before.calls, r.before.ifs, r.after.testify, r.after.calls, r.before.total(), r.after.total())
		tb.calls, tb.ifs, tb.testify = tb.calls+r.before.calls, tb.ifs+r.before.ifs, tb.testify+r.before.testify
		ta.calls, ta.ifs, ta.testify = ta.calls+r.after.calls, ta.ifs+r.after.ifs, ta.testify+r.after.testify
	}
	fmt.Fprintf(w, "| total | %d (%d) | %d + %d | %d | %d |\n", tb.calls, tb.ifs, ta.testify, ta.calls, tb.total(), ta.total())
}
