package irtest

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBuildStatements(t *testing.T) {
	g, names := MustBuild(t, `
graph demo   # the graph's name
x = input f32[4,8]
w = weight f32[8,8]
d = weight f32[8] data=[1.5,-2,0,0,0,0,0,0]
c = constant i64[2] data=0x01000000000000000200000000000000
h = MatMul x w
a, b = Split x axis=1 split=[4,4]
r = Reshape h shape=[2,16]
v = view x +64 f32[2,8]
s = view x +0 f32[4,4] strides=[32,4]
o = opaque MyOp(f32[2,2]) x w
p, q = opaque Two(f32[3], i64[]) s
y = Gelu h approximate=tanh
z = Clip y min=-inf max=6.0
n = LayerNorm z d axis=-1 epsilon=1e-05
e = ReduceMean x axes=[] keepdims=0
output y a
pin h "host reads it"
keep y v
order h a r o p y z n e
`)
	if g.Name != "demo" {
		t.Errorf("name %q", g.Name)
	}
	val := func(n string) *ir.Value { return g.Values[names[n]] }
	node := func(n string) *ir.Node { return g.Nodes[val(n).Producer] }
	got := val("x")
	assert.Falsef(t, !got.Flags.Has(ir.FlagInput) || !got.Shape.Equal(ir.Shape{4, 8}) || got.DType != ir.F32, "x = %+v", got)
	if got := val("d").Data; len(got) != 32 || math.Float32frombits(binary.LittleEndian.Uint32(got[4:])) != -2 {
		t.Errorf("d data %v", got)
	}
	got = val("c")
	assert.Falsef(t, !got.Flags.Has(ir.FlagConstant) || got.Data[8] != 2, "c = %+v", got)
	n := node("h")
	assert.Falsef(t, n.Op != "MatMul" || !slices.Equal(n.Inputs, []ir.ValueID{names["x"], names["w"]}), "h's node = %+v", n)
	if node("a") != node("b") || len(node("a").Outputs) != 2 || node("a").Attrs.GetInt("axis", -1) != 1 {
		t.Errorf("split node = %+v", node("a"))
	}
	r := val("r")
	assert.Falsef(t, r.View == nil || r.View.Base != names["h"], "Reshape output is not a view of h: %+v", r)
	v := val("v").View
	assert.Falsef(t, v == nil || v.Base != names["x"] || v.OffsetBytes != 64 || v.StridesBytes != nil, "v view %+v", v)
	s := val("s").View
	assert.Falsef(t, s == nil || !slices.Equal(s.StridesBytes, []int64{32, 4}), "s view %+v", s)
	n = node("p")
	assert.Falsef(t, !n.Opaque || n.Op != "Two" || val("q").DType != ir.I64 || len(val("q").Shape) != 0, "opaque %+v", n)
	a := node("y").Attrs["approximate"]
	assert.Falsef(t, a.Kind != ir.AttrString || a.Str != "tanh", "approximate %+v", a)
	if a := node("z").Attrs; !math.IsInf(a["min"].Float, -1) || a["max"].Kind != ir.AttrFloat || a["max"].Float != 6 {
		t.Errorf("clip attrs %+v", a)
	}
	if a := node("n").Attrs; a["axis"].Kind != ir.AttrInt || a["axis"].Int != -1 || a["epsilon"].Float != 1e-5 {
		t.Errorf("norm attrs %+v", a)
	}
	a = node("e").Attrs["axes"]
	assert.Falsef(t, a.Kind != ir.AttrInts || len(a.Ints) != 0, "empty ints %+v", a)
	assert.Falsef(t, !val("y").Flags.Has(ir.FlagOutput) || !val("a").Flags.Has(ir.FlagOutput), "outputs not marked")
	h := val("h")
	assert.Falsef(t, !h.Flags.Has(ir.FlagPinned) || h.PinReason != "host reads it", "pin %+v", h)
	k := node("y").KeepAlive
	assert.Truef(t, slices.Equal(k, []ir.ValueID{names["v"]}), "keep-alive %v", k)
	var want []ir.NodeID
	for _, n := range strings.Fields("h a r o p y z n e") {
		want = append(want, val(n).Producer)
	}
	if !slices.Equal(g.Order, want) {
		t.Errorf("order %v, want %v", g.Order, want)
	}
	assert.Lenf(t, names, 17, "%d names: %v", len(names), names)
}

func TestBuildErrors(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"unknown value", "y = Relu x", `unknown value "x"`},
		{"bad dtype", "x = input f99[2]", "dtype"},
		{"bad type", "x = input f32(2)", "DTYPE[DIMS]"},
		{"duplicate name", "x = input f32[2]\nx = input f32[2]", "defined twice"},
		{"names vs outputs", "x = input f32[4]\na, b = Relu x", "2 names for 1 outputs"},
		{"unknown op", "x = input f32[4]\ny = Frobnicate x", "unknown op"},
		{"shape rule", "x = input f32[4]\nw = input f32[5]\ny = MatMul x w", "line 3"},
		{"unbalanced", "x = input f32[4", "unbalanced"},
		{"no op", "x =", "missing op"},
		{"no equals", "frob", "want NAME"},
		{"bad view offset", "x = input f32[4]\nv = view x 4 f32[1]", "offset"},
		{"view out of bounds", "x = input f32[4]\nv = view x +16 f32[1]", "view out of bounds"},
		{"bad strides", "x = input f32[4]\nv = view x +0 f32[2] stride=[4]", "unexpected"},
		{"input with data", "x = input f32[1] data=[1]", "no data"},
		{"constant without data", "c = constant f32[1]", "needs data"},
		{"data length", "c = constant f32[2] data=[1]", "bytes"},
		{"f16 data list", "c = constant f16[1] data=[1]", "0xHEX"},
		{"bad hex", "c = constant u8[1] data=0xZZ", "invalid byte"},
		{"opaque syntax", "x = input f32[1]\no = opaque Foo x", "OP(TYPE"},
		{"pin syntax", "x = input f32[1]\npin x", "pin VALUE"},
		{"keep syntax", "x = input f32[1]\nkeep x", "keep AT"},
		{"keep anchor", "x = input f32[1]\ny = input f32[1]\nkeep x y", "no producer"},
		{"order of input", "x = input f32[1]\norder x", "no producer"},
		{"graph syntax", "graph a b", "graph NAME"},
		{"bad attr", "x = input f32[4]\ny = Softmax x axis=[1,x]", "attribute axis"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, _, err := Build(tc.src)
			require.Errorf(t, err, "built %v, want an error containing %q", g, tc.want)
			assert.Containsf(t, err.Error(), tc.want, "error %q does not contain %q", err, tc.want)
		})
	}
}

func TestParseAttr(t *testing.T) {
	tests := []struct {
		in   string
		want ir.Attr
	}{
		{"1", ir.Int(1)},
		{"-3", ir.Int(-3)},
		{"0.5", ir.Float(0.5)},
		{"1e-5", ir.Float(1e-5)},
		{"[0,2,1]", ir.Ints(0, 2, 1)},
		{"[ 1, 2 ]", ir.Ints(1, 2)},
		{"[]", ir.Ints()},
		{"[0.5,1]", ir.Floats(0.5, 1)},
		{`"a b"`, ir.Str("a b")},
		{"tanh", ir.Str("tanh")},
		{"f32", ir.Str("f32")},
	}
	for _, tc := range tests {
		got, err := parseAttr(tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		assert.Falsef(t, got.Kind != tc.want.Kind || got.Int != tc.want.Int || got.Float != tc.want.Float || got.Str != tc.want.Str ||
			!slices.Equal(got.Ints, tc.want.Ints) || !slices.Equal(got.Floats, tc.want.Floats), "%s = %+v, want %+v", tc.in, got, tc.want)
	}
	a, _ := parseAttr("inf")
	assert.Falsef(t, a.Kind != ir.AttrFloat || !math.IsInf(a.Float, 1), "inf = %+v", a)
}

func TestTestdataSourcesBuild(t *testing.T) {
	for name := range Testdata {
		_, err := Graph(name)
		assert.NoErrorf(t, err, "%s: %v", name, err)
	}
	_, err := Graph("nope")
	assert.Errorf(t, err, "Graph of an unknown name succeeded")
}

// TestWideDiamondBranches: the concurrency benchmark graph has 16
// independent branches, each a 64x256x128 MatMul (about 4.2 MFLOP).
func TestWideDiamondBranches(t *testing.T) {
	g, err := Graph("wide_diamond")
	require.NoErrorf(t, err, "%v", err)
	deps, err := g.Deps()
	require.NoErrorf(t, err, "%v", err)
	branches := 0
	for _, n := range g.Nodes {
		if n.Op != "MatMul" || len(deps[n.ID]) != 0 {
			continue
		}
		branches++
		a, b := g.Values[n.Inputs[0]].Shape, g.Values[n.Inputs[1]].Shape
		if flops := 2 * a[0] * a[1] * b[1]; flops < 1e6 || flops > 5e6 {
			t.Errorf("branch %s: %d flops", n.Name, flops)
		}
	}
	assert.Equalf(t, 16, branches, "%d independent branches, want 16", branches)
}

// TestBuildErrorClasses: what the language cannot read wraps ErrSyntax, what
// ir rejects wraps ir's sentinel and not ErrSyntax (validation errors after
// the last line name the value instead of a line), and an unknown testdata
// name wraps ErrNoGraph.
func TestBuildErrorClasses(t *testing.T) {
	tests := []struct {
		name, src string
		want      error
	}{
		{"bad integer", "x = input f32[4]\ny = Softmax x axis=[1,x]", ErrSyntax},
		{"bad hex", "c = constant u8[1] data=0xZZ", ErrSyntax},
		{"bad number", "c = constant f32[1] data=[1x]", ErrSyntax},
		{"bad string", `x = input f32[4]` + "\n" + `y = Gelu x approximate="a`, ErrSyntax},
		{"unknown value", "y = Relu x", ErrSyntax},
		{"unknown op", "x = input f32[4]\ny = Frobnicate x", ir.ErrUnknownOp},
		{"view out of bounds", "x = input f32[4]\nv = view x +16 f32[1]", ir.ErrViewBounds},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Build(tc.src)
			require.ErrorIsf(t, err, tc.want, "error %v, want one wrapping %v", err, tc.want)
			assert.Falsef(t, tc.want != ErrSyntax && errors.Is(err, ErrSyntax), "error %v wraps ErrSyntax, want only %v", err, tc.want)
			assert.Falsef(t, tc.want == ErrSyntax && !strings.HasPrefix(err.Error(), "irtest: line "), "error %q does not start with the package and line", err)
		})
	}
	_, err := Graph("no-such-graph")
	assert.Falsef(t, !errors.Is(err, ErrNoGraph) || !strings.Contains(err.Error(), "no-such-graph"), "Graph(no-such-graph): %v, want ErrNoGraph naming it", err)
}
