package ir_test

import (
	"errors"
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/memplan/memplan/internal/irtest"
	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDTypes(t *testing.T) {
	tests := []struct {
		name  string
		dt    ir.DType
		size  int64
		float bool
	}{
		{"f32", ir.F32, 4, true}, {"f16", ir.F16, 2, true}, {"bf16", ir.BF16, 2, true}, {"f64", ir.F64, 8, true},
		{"i64", ir.I64, 8, false}, {"i32", ir.I32, 4, false}, {"i8", ir.I8, 1, false}, {"u8", ir.U8, 1, false}, {"bool", ir.Bool, 1, false},
	}
	for _, tc := range tests {
		dt, err := ir.ParseDType(tc.name)
		if err != nil || dt != tc.dt || dt.String() != tc.name || dt.Size() != tc.size || dt.IsFloat() != tc.float || !dt.Valid() {
			t.Errorf("%s: %v %v size %d float %v", tc.name, dt, err, dt.Size(), dt.IsFloat())
		}
	}
	_, err := ir.ParseDType("f8")
	assert.ErrorIsf(t, err, ir.ErrDType, "ParseDType(f8) = %v", err)
	if d := ir.DType(99); d.Valid() || d.Size() != 0 || d.String() != "dtype(99)" || ir.InvalidDType.Valid() {
		t.Errorf("invalid dtypes: %v %d", d, d.Size())
	}
}

func TestFlags(t *testing.T) {
	f := ir.FlagOutput | ir.FlagPinned | ir.FlagInput
	assert.Falsef(t, f.String() != "input|output|pinned" || !f.Has(ir.FlagInput|ir.FlagPinned) || f.Has(ir.FlagWeight), "flags %v", f)
	for _, n := range []string{"input", "output", "weight", "constant", "pinned"} {
		g, err := ir.ParseFlag(n)
		assert.Falsef(t, err != nil || g.String() != n, "ParseFlag(%s) = %v, %v", n, g, err)
	}
	_, err := ir.ParseFlag("external")
	assert.ErrorIsf(t, err, ir.ErrFlags, "ParseFlag(external) = %v", err)
}

func TestAttrs(t *testing.T) {
	a := ir.Attrs{"i": ir.Int(3), "is": ir.Ints(1, 2), "f": ir.Float(0.5), "fs": ir.Floats(1, math.Inf(1)), "s": ir.Str("x")}
	assert.Falsef(t, a.GetInt("i", 0) != 3 || a.GetInt("f", 7) != 7 || a.GetInt("none", 9) != 9, "GetInt")
	assert.Falsef(t, !slices.Equal(a.GetInts("is", nil), []int64{1, 2}) || a.GetInts("i", nil) != nil, "GetInts")
	assert.Falsef(t, a.GetFloat("f", 0) != 0.5 || a.GetFloat("i", 2) != 2, "GetFloat")
	fs := a.GetFloats("fs", nil)
	assert.Falsef(t, len(fs) != 2 || !math.IsInf(fs[1], 1) || a.GetFloats("s", nil) != nil, "GetFloats")
	assert.Falsef(t, a.GetStr("s", "") != "x" || a.GetStr("i", "d") != "d", "GetStr")
	if !slices.Equal(a.Keys(), []string{"f", "fs", "i", "is", "s"}) {
		t.Errorf("Keys = %v", a.Keys())
	}
	var none ir.Attrs
	assert.Falsef(t, none.GetInt("x", 4) != 4 || len(none.Keys()) != 0, "nil Attrs")
	src := []int64{1, 2}
	b := ir.Ints(src...)
	src[0] = 9
	assert.Equalf(t, int64(1), b.Ints[0], "Ints shares its argument")
}

func TestRootAndConsumers(t *testing.T) {
	g, id := irtest.MustBuild(t, `
x = input f32[4,8]
h = Relu x
top = view h +32 f32[2,8]
inner = view top +16 f32[4]
r = Reshape inner shape=[2,2]
y = Neg r
z = Add h h
keep z x
output y z
`)
	tests := []struct {
		v    string
		root string
		off  int64
	}{{"x", "x", 0}, {"h", "h", 0}, {"top", "h", 32}, {"inner", "h", 48}, {"r", "h", 48}, {"y", "y", 0}}
	for _, tc := range tests {
		root, off, err := g.Root(id[tc.v])
		assert.Falsef(t, err != nil || root != id[tc.root] || off != tc.off, "Root(%s) = %d, %d, %v; want %s at %d", tc.v, root, off, err, tc.root, tc.off)
	}
	_, _, err := g.Root(99)
	assert.ErrorIsf(t, err, ir.ErrUndefined, "Root(99) = %v", err)
	g.Values[id["top"]].View.Base = id["inner"]
	_, _, err = g.Root(id["inner"])
	assert.ErrorIsf(t, err, ir.ErrCycle, "Root on a cyclic chain = %v", err)
	g.Values[id["top"]].View.Base = id["h"]

	cons := g.Consumers()
	node := func(v string) ir.NodeID { return g.Values[id[v]].Producer }
	got := cons[id["h"]]
	assert.Truef(t, slices.Equal(got, []ir.NodeID{node("z")}), "consumers of h = %v (Add reads it twice: listed once)", got)
	got = cons[id["x"]]
	assert.Truef(t, slices.Equal(got, []ir.NodeID{node("h"), node("z")}), "consumers of x = %v (input of Relu, kept alive by z)", got)
	if got := g.ValuesWith(ir.FlagOutput); !slices.Equal(got, []ir.ValueID{id["y"], id["z"]}) {
		t.Errorf("outputs = %v", got)
	}
	assert.Falsef(t, !g.Values[id["top"]].IsView() || g.Values[id["h"]].IsView() || !g.Values[id["x"]].IsExternal() || g.Values[id["h"]].IsExternal(), "IsView / IsExternal")
	assert.Falsef(t, !g.IsViewNode(g.Nodes[node("r")]) || g.IsViewNode(g.Nodes[node("y")]) || g.IsViewNode(nil), "IsViewNode")
}

func TestIsContiguous(t *testing.T) {
	tests := []struct {
		shape   ir.Shape
		strides []int64
		want    bool
	}{
		{ir.Shape{2, 3}, nil, true},
		{ir.Shape{2, 3}, []int64{12, 4}, true},
		{ir.Shape{2, 1}, []int64{4, 100}, true}, // unit axes' strides do not matter
		{ir.Shape{2, 3}, []int64{16, 4}, false},
		{ir.Shape{2, 3}, []int64{4}, false},
		{ir.Shape{2, 3}, []int64{}, false},
		{ir.Shape{}, []int64{}, true},
	}
	for _, tc := range tests {
		v := &ir.View{StridesBytes: tc.strides}
		got := v.IsContiguous(tc.shape, 4)
		assert.Equalf(t, tc.want, got, "IsContiguous(%v, %v) = %v", tc.shape, tc.strides, got)
	}
}

// TestViewBoundsMatchOracle: Validate accepts a view exactly when every
// element it addresses, enumerated one by one, lies inside the root and the
// view is aligned.
func TestViewBoundsMatchOracle(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rootBytes := int64(rapid.IntRange(0, 64).Draw(t, "root"))
		rank := rapid.IntRange(0, 3).Draw(t, "rank")
		shape := make(ir.Shape, rank)
		strides := make([]int64, rank)
		for k := range rank {
			shape[k] = int64(rapid.IntRange(0, 4).Draw(t, "dim"))
			strides[k] = int64(rapid.IntRange(-24, 24).Draw(t, "stride"))
		}
		elem := []int64{1, 2, 4}[rapid.IntRange(0, 2).Draw(t, "elem")]
		dt := map[int64]ir.DType{1: ir.U8, 2: ir.F16, 4: ir.F32}[elem]
		off := int64(rapid.IntRange(-16, 80).Draw(t, "offset"))
		g := &ir.Graph{Values: []*ir.Value{
			{ID: 0, Name: "root", DType: ir.U8, Shape: ir.Shape{rootBytes}, Flags: ir.FlagInput, Producer: ir.NoNode},
			{ID: 1, Name: "v", DType: dt, Shape: shape, View: &ir.View{Base: 0, OffsetBytes: off, StridesBytes: strides}, Producer: ir.NoNode},
		}}
		// Oracle: visit every index.
		want := off%elem == 0
		for k := range rank {
			if shape[k] > 1 && strides[k]%elem != 0 {
				want = false
			}
		}
		empty := slices.Contains(shape, 0)
		if empty {
			want = want && off >= 0 && off <= rootBytes
		}
		idx := make([]int64, rank)
		for !empty {
			at := off
			for k := range rank {
				at += idx[k] * strides[k]
			}
			if at < 0 || at+elem > rootBytes {
				want = false
			}
			k := rank - 1
			for k >= 0 {
				if idx[k]++; idx[k] < shape[k] {
					break
				}
				idx[k] = 0
				k--
			}
			if k < 0 {
				break
			}
		}
		err := g.Validate()
		require.Equalf(t, want, err == nil, "Validate = %v, oracle says in bounds = %v", err, want)
		if err != nil {
			var ve *ir.ValueError
			require.Falsef(t, !errors.As(err, &ve) || ve.Name != "v" || !errors.Is(err, ir.ErrViewBounds), "error %v does not name v as out of bounds", err)
		}
	})
}
