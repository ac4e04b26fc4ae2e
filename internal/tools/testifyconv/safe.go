package main

import (
	"go/ast"
	"go/token"
	"go/types"
)

// safe reports whether evaluating e ahead of time can neither panic nor
// have an effect: variables, constants, value (not pointer) field
// selections, map reads, conversions to basic types, len and cap, and
// arithmetic and comparisons of such (no division, no shift by a variable).
// A check's message is evaluated by its assertion whatever the outcome,
// while the original evaluated it only on failure.
func (c *converter) safe(e ast.Expr) bool {
	info := c.u.info
	if tv, ok := info.Types[e]; ok && tv.Value != nil {
		return true // a constant
	}
	switch e := e.(type) {
	case *ast.BasicLit:
		return true
	case *ast.Ident:
		switch info.Uses[e].(type) {
		case *types.Var, *types.Const, *types.Nil:
			return true
		}
		return false
	case *ast.ParenExpr:
		return c.safe(e.X)
	case *ast.SelectorExpr:
		if s := info.Selections[e]; s != nil {
			return s.Kind() == types.FieldVal && !s.Indirect() && c.safe(e.X)
		}
		// a qualified identifier: pkg.Var or pkg.Const
		switch info.Uses[e.Sel].(type) {
		case *types.Var, *types.Const:
			return true
		}
		return false
	case *ast.IndexExpr:
		if _, ok := info.Types[e.X].Type.Underlying().(*types.Map); ok {
			return c.safe(e.X) && c.safe(e.Index)
		}
		return false
	case *ast.UnaryExpr:
		switch e.Op {
		case token.SUB, token.ADD, token.NOT, token.XOR:
			return c.safe(e.X)
		case token.AND:
			_, lit := e.X.(*ast.CompositeLit)
			return !lit && c.safe(e.X)
		}
		return false
	case *ast.BinaryExpr:
		switch e.Op {
		case token.QUO, token.REM:
			return false
		case token.SHL, token.SHR:
			if info.Types[e.Y].Value == nil {
				return false
			}
		}
		return c.safe(e.X) && c.safe(e.Y)
	case *ast.CallExpr:
		if len(e.Args) != 1 || e.Ellipsis.IsValid() {
			return false
		}
		fun := ast.Unparen(e.Fun)
		if tv := info.Types[fun]; tv.IsType() {
			_, basic := tv.Type.Underlying().(*types.Basic)
			return basic && c.safe(e.Args[0])
		}
		if id, ok := fun.(*ast.Ident); ok {
			if b, ok := info.Uses[id].(*types.Builtin); ok && (b.Name() == "len" || b.Name() == "cap") {
				return c.safe(e.Args[0])
			}
		}
		return false
	}
	return false
}
