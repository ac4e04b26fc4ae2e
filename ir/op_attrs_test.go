package ir_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/require"
)

// TestAttrsCheckedAgainstTheOpTable: a wrong kind, a misspelt name or a
// value outside an op's enumeration fails Validate with an error naming the
// node and the attribute; an opaque node takes anything.
func TestAttrsCheckedAgainstTheOpTable(t *testing.T) {
	cases := []struct {
		name, op string
		attrs    ir.Attrs
		want     string // "" when valid
	}{
		{"valid transpose", "Transpose", ir.Attrs{"perm": ir.Ints(1, 0)}, ""},
		{"string perm", "Transpose", ir.Attrs{"perm": ir.Str("1,0")}, `attribute "perm": str, Transpose wants ints`},
		{"misspelt", "Softmax", ir.Attrs{"axsi": ir.Int(1)}, `attribute "axsi": Softmax takes no such attribute (it takes: axis)`},
		{"attribute on an op that takes none", "Relu", ir.Attrs{"alpha": ir.Float(1)}, `attribute "alpha": Relu takes no such attribute (it takes: none)`},
		{"valid gelu", "Gelu", ir.Attrs{"approximate": ir.Str("tanh")}, ""},
		{"bogus gelu", "Gelu", ir.Attrs{"approximate": ir.Str("bogus")}, `attribute "approximate": "bogus" is not one of none, tanh`},
		{"cast to no dtype", "Cast", ir.Attrs{"to": ir.Str("f33")}, `attribute "to": "f33" is not one of`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := ir.NewBuilder("attrs")
			x := b.Input("x", ir.F32, 2, 2)
			var y ir.ValueID
			if c.op == "Cast" {
				y = b.Opaque("Placeholder", []ir.TensorType{{DType: ir.F32, Shape: ir.Shape{2, 2}}}, x)[0]
			} else {
				y = b.Op(c.op, c.attrs, x)
			}
			b.Output(y)
			g, err := b.Build()
			if c.op == "Cast" { // the builder infers types; set the attribute after
				require.NoErrorf(t, err, "%v", err)
				n := g.Nodes[g.Values[y].Producer]
				n.Op, n.Opaque, n.Attrs = "Cast", false, c.attrs
				err = g.Validate()
			}
			if c.want == "" {
				require.NoErrorf(t, err, "valid attributes rejected: %v", err)
				return
			}
			var ne *ir.NodeError
			require.Falsef(t, !errors.Is(err, ir.ErrAttr) || !errors.As(err, &ne) || !strings.Contains(err.Error(), c.want), "got %v, want a NodeError wrapping ErrAttr saying %q", err, c.want)
		})
	}
	// Opaque nodes take any attribute.
	b := ir.NewBuilder("opaque")
	x := b.Input("x", ir.F32, 2)
	y := b.Opaque("Mine", []ir.TensorType{{DType: ir.F32, Shape: ir.Shape{2}}}, x)[0]
	b.Output(y)
	g, err := b.Build()
	require.NoErrorf(t, err, "%v", err)
	g.Nodes[0].Attrs = ir.Attrs{"anything": ir.Str("goes")}
	err = g.Validate()
	require.NoErrorf(t, err, "opaque node: %v", err)
}
