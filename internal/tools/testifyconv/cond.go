package main

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"
)

// assertion returns the testify assertion (without package and f suffix)
// that fails exactly when cond is true, and its arguments after t.
func (c *converter) assertion(cond ast.Expr) (string, []string) {
	cond = ast.Unparen(cond)
	switch e := cond.(type) {
	case *ast.UnaryExpr:
		if e.Op != token.NOT {
			break
		}
		x := ast.Unparen(e.X)
		if call, ok := x.(*ast.CallExpr); ok && len(call.Args) == 2 {
			switch c.funcName(call) {
			case "errors.Is":
				return "ErrorIs", c.texts(call.Args...)
			case "strings.Contains":
				return "Contains", c.texts(call.Args...)
			}
		}
		return "True", []string{c.boolText(x)}
	case *ast.CallExpr:
		if len(e.Args) == 2 && c.funcName(e) == "errors.Is" {
			return "NotErrorIs", c.texts(e.Args...)
		}
	case *ast.BinaryExpr:
		if name, args, ok := c.binary(e); ok {
			return name, args
		}
	}
	return "False", []string{c.boolText(cond)}
}

// binary maps a failing comparison onto an assertion, or reports false.
func (c *converter) binary(e *ast.BinaryExpr) (string, []string, bool) {
	x, y := ast.Unparen(e.X), ast.Unparen(e.Y)
	tx, ty := c.u.info.Types[x], c.u.info.Types[y]
	switch e.Op {
	case token.NEQ, token.EQL:
		neq := e.Op == token.NEQ
		pick := func(a, b string) string {
			if neq {
				return a
			}
			return b
		}
		// nil tests
		if ty.IsNil() {
			x, y, tx, ty = y, x, ty, tx
		}
		if tx.IsNil() {
			if isError(ty.Type) {
				return pick("NoError", "Error"), c.texts(y), true
			}
			switch ty.Type.Underlying().(type) {
			case *types.Pointer, *types.Slice, *types.Map, *types.Chan:
				return pick("Nil", "NotNil"), c.texts(y), true
			}
			return "", nil, false
		}
		// length tests
		if c.isLen(y) && !c.isLen(x) {
			x, y, tx, ty = y, x, ty, tx
		}
		if c.isLen(x) {
			arg := x.(*ast.CallExpr).Args[0]
			if ty.Value != nil && constant.Sign(ty.Value) == 0 && emptiable(c.u.info.Types[arg].Type) {
				return pick("Empty", "NotEmpty"), c.texts(arg), true
			}
			if neq {
				return "Len", []string{c.text(arg), c.text(y)}, true
			}
			return "", nil, false
		}
		// pointer identity
		if px, ok := tx.Type.Underlying().(*types.Pointer); ok && types.Identical(tx.Type, ty.Type) && px != nil {
			want, got := c.order(x, y)
			return pick("Same", "NotSame"), []string{want, got}, true
		}
		if a, b, ok := c.sameTyped(x, y, deepEqualSafe); ok {
			want, got := c.orderText(x, y, a, b)
			return pick("Equal", "NotEqual"), []string{want, got}, true
		}
	case token.LSS, token.LEQ, token.GTR, token.GEQ:
		a, b, ok := c.sameTyped(x, y, ordered)
		if !ok {
			return "", nil, false
		}
		name := map[token.Token]string{
			token.LSS: "GreaterOrEqual", token.LEQ: "Greater",
			token.GTR: "LessOrEqual", token.GEQ: "Less",
		}[e.Op]
		return name, []string{a, b}, true
	}
	return "", nil, false
}

// sameTyped returns the texts of x and y as values of one type for which
// ok holds. go/types records an untyped constant operand with the type it
// takes in the comparison, but the assertion receives it as an interface
// value of its default type, so a constant whose default type differs is
// converted to the comparison's type.
func (c *converter) sameTyped(x, y ast.Expr, ok func(types.Type) bool) (string, string, bool) {
	tx, ty := c.u.info.Types[x], c.u.info.Types[y]
	if tx.Type == nil || ty.Type == nil || isUntyped(tx.Type) || isUntyped(ty.Type) ||
		!types.Identical(tx.Type, ty.Type) || !ok(tx.Type) {
		return "", "", false
	}
	a, okA := c.asType(x, tx)
	b, okB := c.asType(y, ty)
	return a, b, okA && okB
}

// asType returns the text of e, converted to its type when it is a
// constant that, passed alone as an interface value, would take another
// type (go/types records the comparison's type, not the constant's own).
func (c *converter) asType(e ast.Expr, tv types.TypeAndValue) (string, bool) {
	if tv.Value == nil {
		return c.text(e), true
	}
	if own := c.constType(e); own != nil && types.Identical(own, tv.Type) {
		return c.text(e), true
	}
	return c.convert(e, tv.Type)
}

// constType returns the type constant expression e has on its own: a
// literal's default type, a named constant's type (its default type when
// untyped), or nil when it cannot tell.
func (c *converter) constType(e ast.Expr) types.Type {
	switch e := ast.Unparen(e).(type) {
	case *ast.BasicLit:
		return map[token.Token]types.Type{
			token.INT: types.Typ[types.Int], token.FLOAT: types.Typ[types.Float64],
			token.IMAG: types.Typ[types.Complex128], token.CHAR: types.Universe.Lookup("rune").Type(),
			token.STRING: types.Typ[types.String],
		}[e.Kind]
	case *ast.UnaryExpr:
		if e.Op == token.SUB || e.Op == token.ADD {
			return c.constType(e.X)
		}
	case *ast.Ident:
		if k, ok := c.u.info.Uses[e].(*types.Const); ok {
			return types.Default(k.Type())
		}
	case *ast.SelectorExpr:
		if k, ok := c.u.info.Uses[e.Sel].(*types.Const); ok {
			return types.Default(k.Type())
		}
	case *ast.CallExpr:
		if id, ok := ast.Unparen(e.Fun).(*ast.Ident); ok {
			if b, ok := c.u.info.Uses[id].(*types.Builtin); ok && (b.Name() == "len" || b.Name() == "cap") {
				return types.Typ[types.Int]
			}
		}
	}
	return nil
}

// convert returns e converted to type t, or false when t cannot be named
// in this file.
func (c *converter) convert(e ast.Expr, t types.Type) (string, bool) {
	named := true
	s := types.TypeString(t, func(p *types.Package) string {
		if p == c.u.pkg {
			return ""
		}
		for _, im := range c.file.Imports {
			path := im.Path.Value[1 : len(im.Path.Value)-1]
			if path != p.Path() {
				continue
			}
			if im.Name != nil {
				if im.Name.Name == "_" || im.Name.Name == "." {
					break
				}
				return im.Name.Name
			}
			return p.Name()
		}
		named = false
		return p.Name()
	})
	return s + "(" + c.text(e) + ")", named
}

// order returns (want, got) texts for x and y: a constant, or a name that
// starts with want or exp, is the expected value; otherwise y is.
func (c *converter) order(x, y ast.Expr) (string, string) {
	return c.orderText(x, y, c.text(x), c.text(y))
}

func (c *converter) orderText(x, y ast.Expr, a, b string) (string, string) {
	if c.expected(x) && !c.expected(y) {
		return a, b
	}
	return b, a
}

func (c *converter) expected(e ast.Expr) bool {
	if c.u.info.Types[e].Value != nil {
		return true
	}
	name := ""
	switch e := e.(type) {
	case *ast.Ident:
		name = e.Name
	case *ast.SelectorExpr:
		name = e.Sel.Name
	}
	name = strings.ToLower(name)
	return strings.HasPrefix(name, "want") || strings.HasPrefix(name, "exp")
}

// funcName returns "pkg.Func" for a call of a package-level function.
func (c *converter) funcName(call *ast.CallExpr) string {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	obj, ok := c.u.info.Uses[sel.Sel].(*types.Func)
	if !ok || obj.Pkg() == nil || obj.Type().(*types.Signature).Recv() != nil {
		return ""
	}
	return obj.Pkg().Path() + "." + obj.Name()
}

// isLen reports whether e is a call of the builtin len.
func (c *converter) isLen(e ast.Expr) bool {
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return false
	}
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return false
	}
	b, ok := c.u.info.Uses[id].(*types.Builtin)
	if !ok || b.Name() != "len" {
		return false
	}
	// Len takes its length with reflect, which fails on a pointer to an
	// array (len accepts one).
	_, ptr := c.u.info.Types[call.Args[0]].Type.Underlying().(*types.Pointer)
	return !ptr
}

// boolText returns e as a bool (converted when its type is a named bool).
func (c *converter) boolText(e ast.Expr) string {
	t := c.u.info.Types[e].Type
	if t == nil || types.Identical(t, types.Typ[types.Bool]) || isUntyped(t) {
		return c.text(e)
	}
	return "bool(" + c.text(e) + ")"
}

func (c *converter) texts(es ...ast.Expr) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = c.text(e)
	}
	return out
}

func isUntyped(t types.Type) bool {
	b, ok := t.(*types.Basic)
	return ok && b.Info()&types.IsUntyped != 0
}

func isError(t types.Type) bool {
	return types.Identical(t, types.Universe.Lookup("error").Type())
}

// deepEqualSafe reports whether reflect.DeepEqual on values of t agrees
// with ==: basic types, and arrays and structs made only of them.
func deepEqualSafe(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Kind() != types.UnsafePointer && u.Info()&types.IsUntyped == 0
	case *types.Array:
		return deepEqualSafe(u.Elem())
	case *types.Struct:
		for i := range u.NumFields() {
			if !deepEqualSafe(u.Field(i).Type()) {
				return false
			}
		}
		return true
	}
	return false
}

// ordered reports whether testify's ordering assertions agree with Go's
// operators on t: integers and strings (not floats, for NaN).
func ordered(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&(types.IsInteger|types.IsString) != 0 && b.Info()&types.IsUntyped == 0
}

// emptiable reports whether Empty on a value of t means len == 0.
func emptiable(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Slice, *types.Map, *types.Chan:
		return true
	case *types.Basic:
		return u.Info()&types.IsString != 0
	}
	return false
}
