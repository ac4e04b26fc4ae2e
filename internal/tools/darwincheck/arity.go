package main

// Selector arity. An Objective-C selector names its arguments: one colon
// per argument, so "setBuffer:offset:atIndex:" takes three. objc.Call
// passes whatever it is given through libffi, and a call with the wrong
// number of arguments is undefined behaviour on a Mac that no type checker
// sees. So every objc.Call (or objc.Call[T]) whose selector is a constant
// (a literal objc.Sel("...") or a package-level variable initialised with
// one) is checked: the number of arguments after the selector must equal
// the number of colons.
//
//	objc.Call[objc.Void](enc, objc.Sel("setBuffer:offset:atIndex:"), buf, off)
//	-> error: objc.Call sends "setBuffer:offset:atIndex:" (3 arguments) with 2

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/types"
	"strings"
)

// selOf returns the constant selector an expression denotes: objc.Sel with
// a constant argument, or a variable declared with such an initialiser in
// the checked files.
func (c *Checker) selOf(ck *checked, e ast.Expr, inits map[types.Object]ast.Expr) (string, bool) {
	if id, ok := ast.Unparen(e).(*ast.Ident); ok {
		if init, ok := inits[ck.info.Uses[id]]; ok {
			e = init
		}
	}
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok || len(call.Args) != 1 || !isObjcFunc(ck, call.Fun, "Sel") {
		return "", false
	}
	tv, ok := ck.info.Types[call.Args[0]]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		return "", false
	}
	return constant.StringVal(tv.Value), true
}

// isObjcFunc reports whether fun (possibly instantiated, objc.Call[T])
// names darwinkit's objc.<name>.
func isObjcFunc(ck *checked, fun ast.Expr, name string) bool {
	switch f := ast.Unparen(fun).(type) {
	case *ast.IndexExpr:
		fun = f.X
	case *ast.IndexListExpr:
		fun = f.X
	}
	var id *ast.Ident
	switch f := ast.Unparen(fun).(type) {
	case *ast.SelectorExpr:
		id = f.Sel
	case *ast.Ident:
		id = f
	default:
		return false
	}
	fn, ok := ck.info.Uses[id].(*types.Func)
	return ok && fn.Pkg() != nil && fn.Pkg().Path() == objcPath && fn.Name() == name
}

// callArity reports objc.Call calls whose argument count differs from
// their constant selector's.
func (c *Checker) callArity(ck *checked) []Diagnostic {
	if ck == nil || ck.info == nil {
		return nil
	}
	inits := map[types.Object]ast.Expr{}
	for _, f := range ck.files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range gd.Specs {
				vs, ok := spec.(*ast.ValueSpec)
				if !ok || len(vs.Values) != len(vs.Names) {
					continue
				}
				for i, n := range vs.Names {
					if obj := ck.info.Defs[n]; obj != nil {
						inits[obj] = vs.Values[i]
					}
				}
			}
		}
	}
	var out []Diagnostic
	for _, f := range ck.files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) < 2 || call.Ellipsis.IsValid() || !isObjcFunc(ck, call.Fun, "Call") {
				return true
			}
			sel, ok := c.selOf(ck, call.Args[1], inits)
			if !ok {
				return true
			}
			want, got := strings.Count(sel, ":"), len(call.Args)-2
			if want != got {
				out = append(out, Diagnostic{
					Pos: c.fset.Position(call.Pos()),
					Msg: fmt.Sprintf("objc.Call sends %q (%d arguments) with %d", sel, want, got),
				})
			}
			return true
		})
	}
	return out
}
