package irtest_test

import (
	"errors"
	"fmt"

	"github.com/memplan/memplan/internal/irtest"
	"github.com/memplan/memplan/ir"
)

// Build reads one statement a line; the names map each fixture name to its
// value ID, and output types are inferred by ir's shape rules.
func ExampleBuild() {
	g, names, err := irtest.Build(`
x = input f32[4,8]
w = weight f32[8,2]
h = MatMul x w
v = view h +8 f32[2,2]
y = Relu v
output y`)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, n := range []string{"x", "w", "h", "v", "y"} {
		v := g.Value(names[n])
		fmt.Println(n, v.Type(), "view:", v.IsView())
	}

	_, _, err = irtest.Build("x = input f32(4)")
	fmt.Println(errors.Is(err, irtest.ErrSyntax), err)
	_, _, err = irtest.Build("x = input f32[4]\ny = Frobnicate x")
	fmt.Println(errors.Is(err, ir.ErrUnknownOp))
	// Output:
	// x f32[4 8] view: false
	// w f32[8 2] view: false
	// h f32[4 2] view: false
	// v f32[2 2] view: true
	// y f32[2 2] view: false
	// true irtest: line 1 "x = input f32(4)": syntax error: type "f32(4)": want DTYPE[DIMS]
	// true
}
