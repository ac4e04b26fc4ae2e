package main

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"strconv"
	"strings"
)

// edit replaces src[start:end] with text.
type edit struct {
	start, end int
	text       string
}

// converter rewrites the checks of one file.
type converter struct {
	u     *unit
	file  *ast.File
	src   []byte
	edits []edit
	uses  map[string]bool // testify packages the edits call: "assert", "require"
	// skipped counts recognised checks left alone, by reason.
	skipped map[string]int
	// capturedVars caches captured.
	capturedVars map[*types.Var]bool
}

// checkCall reports whether stmt is a call t.Fatal/Fatalf/Error/Errorf on a
// testing or rapid receiver, and returns the call and whether it is rapid's.
func (c *converter) checkCall(stmt ast.Stmt) (call *ast.CallExpr, sel *ast.SelectorExpr, rapid bool, ok bool) {
	es, ok := stmt.(*ast.ExprStmt)
	if !ok {
		return nil, nil, false, false
	}
	call, ok = es.X.(*ast.CallExpr)
	if !ok {
		return nil, nil, false, false
	}
	sel, rapid, ok = isCheckCall(c.u.info, call)
	return call, sel, rapid, ok
}

// isCheckCall reports whether call is t.Fatal/Fatalf/Error/Errorf on a
// testing or rapid receiver.
func isCheckCall(info *types.Info, call *ast.CallExpr) (*ast.SelectorExpr, bool, bool) {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return nil, false, false
	}
	switch sel.Sel.Name {
	case "Fatal", "Fatalf", "Error", "Errorf":
	default:
		return nil, false, false
	}
	s := info.Selections[sel]
	if s == nil || s.Kind() != types.MethodVal {
		return nil, false, false
	}
	t := s.Recv()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return nil, false, false
	}
	switch n.Obj().Pkg().Path() + "." + n.Obj().Name() {
	case "testing.T", "testing.B", "testing.F", "testing.TB":
		return sel, false, true
	case "pgregory.net/rapid.T":
		return sel, true, true
	}
	return nil, false, false
}

// text returns the source of node n.
func (c *converter) text(n ast.Node) string {
	f := c.u.fset.File(n.Pos())
	return string(c.src[f.Offset(n.Pos()):f.Offset(n.End())])
}

func (c *converter) offset(p token.Pos) int { return c.u.fset.File(p).Offset(p) }

// run walks the file and records an edit for every check it converts.
func (c *converter) run() {
	var walk func(n ast.Node, scope *types.Scope)
	walk = func(n ast.Node, scope *types.Scope) {
		ast.Inspect(n, func(m ast.Node) bool {
			if m == n {
				return true
			}
			var list []ast.Stmt
			switch m := m.(type) {
			case *ast.FuncDecl:
				if m.Body != nil {
					c.list(m.Body.List, c.u.info.Scopes[m.Type])
					walk(m.Body, c.u.info.Scopes[m.Type])
				}
				return false
			case *ast.FuncLit:
				c.list(m.Body.List, c.u.info.Scopes[m.Type])
				walk(m.Body, c.u.info.Scopes[m.Type])
				return false
			case *ast.BlockStmt:
				list = m.List
			case *ast.CaseClause:
				list = m.Body
			case *ast.CommClause:
				list = m.Body
			default:
				return true
			}
			s := c.u.info.Scopes[m]
			c.list(list, s)
			walk(m, s)
			return false
		})
	}
	walk(c.file, nil)
}

// list converts the checks directly in one statement list, whose scope is
// scope, hoisting init statements where that is safe.
func (c *converter) list(stmts []ast.Stmt, scope *types.Scope) {
	hoisted := map[string]types.Type{}
	for i, st := range stmts {
		ifs, ok := st.(*ast.IfStmt)
		if !ok || ifs.Else != nil || len(ifs.Body.List) != 1 {
			continue
		}
		call, sel, rapid, ok := c.checkCall(ifs.Body.List[0])
		if !ok {
			continue
		}
		if call.Ellipsis.IsValid() {
			c.skipped["t.Fatal(args...)"]++
			continue
		}
		msg, ok := c.message(call, sel)
		if !ok {
			c.skipped["message not safe to evaluate eagerly"]++
			continue
		}
		if c.nested(ifs) {
			c.skipped["a check inside the condition"]++
			continue
		}
		init, ok := c.hoist(ifs, stmts[i+1:], scope, hoisted)
		if !ok {
			c.skipped["init statement cannot be hoisted"]++
			continue
		}
		pkg := "assert"
		if rapid || strings.HasPrefix(sel.Sel.Name, "Fatal") {
			pkg = "require"
		}
		name, args := c.assertion(ifs.Cond)
		if len(msg) > 0 {
			name += "f"
		}
		var b strings.Builder
		for _, cm := range c.file.Comments {
			if cm.Pos() >= ifs.Pos() && cm.End() <= ifs.End() {
				b.WriteString(c.text(cm))
				b.WriteString("\n")
			}
		}
		if init != "" {
			b.WriteString(init)
			b.WriteString("\n")
		}
		all := append([]string{c.text(sel.X)}, args...)
		all = append(all, msg...)
		fmt.Fprintf(&b, "%s.%s(%s)", pkg, name, strings.Join(all, ", "))
		c.uses[pkg] = true
		c.edits = append(c.edits, edit{c.offset(ifs.Pos()), c.offset(ifs.End()), b.String()})
	}
}

// message returns the assertion's message arguments for call, or false
// when one of them is not safe to evaluate before the outcome is known.
func (c *converter) message(call *ast.CallExpr, sel *ast.SelectorExpr) ([]string, bool) {
	if !c.safe(sel.X) {
		return nil, false
	}
	var args []string
	for _, a := range call.Args {
		if !c.safe(a) {
			return nil, false
		}
		args = append(args, c.text(a))
	}
	if strings.HasSuffix(sel.Sel.Name, "f") || len(args) == 0 {
		return args, true
	}
	// t.Fatal(a, b) prints fmt.Sprintln(a, b) less the newline: every
	// operand %v, separated by spaces.
	if len(call.Args) == 1 {
		if tv := c.u.info.Types[call.Args[0]]; tv.Value != nil && tv.Value.Kind() == constant.String {
			if !strings.Contains(constant.StringVal(tv.Value), "%") {
				return args, true
			}
		}
	}
	format := strconv.Quote(strings.TrimSuffix(strings.Repeat("%v ", len(args)), " "))
	return append([]string{format}, args...), true
}

// hoist returns the init statement of ifs as a statement to put before the
// assertion ("" when there is none), or false when moving it out of the
// if's scope could change what a name means.
func (c *converter) hoist(ifs *ast.IfStmt, later []ast.Stmt, scope *types.Scope, hoisted map[string]types.Type) (string, bool) {
	if ifs.Init == nil {
		return "", true
	}
	as, ok := ifs.Init.(*ast.AssignStmt)
	if !ok || as.Tok != token.DEFINE {
		return c.text(ifs.Init), true
	}
	if scope == nil {
		return "", false
	}
	var fresh []*ast.Ident
	reused := 0
	for _, e := range as.Lhs {
		id := e.(*ast.Ident)
		if id.Name == "_" {
			continue
		}
		obj := c.u.info.Defs[id]
		if obj == nil {
			return "", false
		}
		if t, ok := hoisted[id.Name]; ok {
			if !types.Identical(t, obj.Type()) {
				return "", false
			}
			reused++
			continue
		}
		if _, o := scope.LookupParent(id.Name, ifs.Pos()); o != nil {
			if !c.reusable(o, obj, scope, later) {
				return "", false
			}
			reused++
			continue
		}
		if declaredIn(later, id.Name) {
			return "", false
		}
		fresh = append(fresh, id)
	}
	for _, id := range fresh {
		hoisted[id.Name] = c.u.info.Defs[id].Type()
	}
	text := c.text(as)
	if len(fresh) == 0 && reused > 0 {
		// every name is already declared by an earlier hoist: assign
		lhs := make([]string, len(as.Lhs))
		rhs := make([]string, len(as.Rhs))
		for i, e := range as.Lhs {
			lhs[i] = c.text(e)
		}
		for i, e := range as.Rhs {
			rhs[i] = c.text(e)
		}
		text = strings.Join(lhs, ", ") + " = " + strings.Join(rhs, ", ")
	}
	return text, true
}

// reusable reports whether the hoisted init may assign o, a variable of
// the enclosing block, instead of declaring obj: o has obj's type, is
// declared in this very block (so no loop lies between its declaration and
// the check), no function literal captures it, and the next statement of
// the block that mentions it, if any, assigns it without reading it. The
// value the hoist leaves in o is then never observed.
func (c *converter) reusable(o, obj types.Object, scope *types.Scope, later []ast.Stmt) bool {
	v, ok := o.(*types.Var)
	if !ok || v.Parent() != scope || !types.Identical(v.Type(), obj.Type()) || c.captured()[v] {
		return false
	}
	for _, st := range later {
		if !c.mentions(st, v) {
			continue
		}
		as, ok := st.(*ast.AssignStmt)
		if !ok {
			return false
		}
		lhs := false
		for _, e := range as.Lhs {
			if id, ok := e.(*ast.Ident); ok && (c.u.info.Uses[id] == v || c.u.info.Defs[id] == v) {
				lhs = true
			}
		}
		for _, e := range as.Rhs {
			if c.mentions(e, v) {
				return false
			}
		}
		return lhs
	}
	return true
}

// mentions reports whether n refers to v.
func (c *converter) mentions(n ast.Node, v *types.Var) bool {
	found := false
	ast.Inspect(n, func(m ast.Node) bool {
		if id, ok := m.(*ast.Ident); ok && (c.u.info.Uses[id] == v || c.u.info.Defs[id] == v) {
			found = true
		}
		return !found
	})
	return found
}

// captured returns the variables that function literals of the file
// refer to.
func (c *converter) captured() map[*types.Var]bool {
	if c.capturedVars != nil {
		return c.capturedVars
	}
	c.capturedVars = map[*types.Var]bool{}
	ast.Inspect(c.file, func(n ast.Node) bool {
		if fl, ok := n.(*ast.FuncLit); ok {
			ast.Inspect(fl.Body, func(m ast.Node) bool {
				if id, ok := m.(*ast.Ident); ok {
					if v, ok := c.u.info.Uses[id].(*types.Var); ok {
						c.capturedVars[v] = true
					}
				}
				return true
			})
		}
		return true
	})
	return c.capturedVars
}

// declaredIn reports whether a statement of list (not nested blocks)
// declares name.
func declaredIn(list []ast.Stmt, name string) bool {
	for _, st := range list {
		if l, ok := st.(*ast.LabeledStmt); ok {
			st = l.Stmt
		}
		switch st := st.(type) {
		case *ast.AssignStmt:
			if st.Tok == token.DEFINE && slices.ContainsFunc(st.Lhs, func(e ast.Expr) bool {
				id, ok := e.(*ast.Ident)
				return ok && id.Name == name
			}) {
				return true
			}
		case *ast.DeclStmt:
			g := st.Decl.(*ast.GenDecl)
			for _, sp := range g.Specs {
				switch sp := sp.(type) {
				case *ast.ValueSpec:
					for _, id := range sp.Names {
						if id.Name == name {
							return true
						}
					}
				case *ast.TypeSpec:
					if sp.Name.Name == name {
						return true
					}
				}
			}
		}
	}
	return false
}

// nested reports whether ifs contains another check (in a function literal
// of its condition or init): its edit would overlap this one.
func (c *converter) nested(ifs *ast.IfStmt) bool {
	found := false
	for _, n := range []ast.Node{ifs.Init, ifs.Cond} {
		if n == nil {
			continue
		}
		ast.Inspect(n, func(m ast.Node) bool {
			if call, ok := m.(*ast.CallExpr); ok {
				if _, _, ok := isCheckCall(c.u.info, call); ok {
					found = true
				}
			}
			return !found
		})
	}
	return found
}
