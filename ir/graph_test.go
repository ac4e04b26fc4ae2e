package ir_test

import (
	"errors"
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/memplan/memplan/internal/irtest"
	"github.com/memplan/memplan/ir"
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
	if _, err := ir.ParseDType("f8"); !errors.Is(err, ir.ErrDType) {
		t.Errorf("ParseDType(f8) = %v", err)
	}
	if d := ir.DType(99); d.Valid() || d.Size() != 0 || d.String() != "dtype(99)" || ir.InvalidDType.Valid() {
		t.Errorf("invalid dtypes: %v %d", d, d.Size())
	}
}

func TestFlags(t *testing.T) {
	f := ir.FlagOutput | ir.FlagPinned | ir.FlagInput
	if f.String() != "input|output|pinned" || !f.Has(ir.FlagInput|ir.FlagPinned) || f.Has(ir.FlagWeight) {
		t.Errorf("flags %v", f)
	}
	for _, n := range []string{"input", "output", "weight", "constant", "pinned"} {
		g, err := ir.ParseFlag(n)
		if err != nil || g.String() != n {
			t.Errorf("ParseFlag(%s) = %v, %v", n, g, err)
		}
	}
	if _, err := ir.ParseFlag("external"); !errors.Is(err, ir.ErrFlags) {
		t.Errorf("ParseFlag(external) = %v", err)
	}
}

func TestAttrs(t *testing.T) {
	a := ir.Attrs{"i": ir.Int(3), "is": ir.Ints(1, 2), "f": ir.Float(0.5), "fs": ir.Floats(1, math.Inf(1)), "s": ir.Str("x")}
	if a.GetInt("i", 0) != 3 || a.GetInt("f", 7) != 7 || a.GetInt("none", 9) != 9 {
		t.Error("GetInt")
	}
	if !slices.Equal(a.GetInts("is", nil), []int64{1, 2}) || a.GetInts("i", nil) != nil {
		t.Error("GetInts")
	}
	if a.GetFloat("f", 0) != 0.5 || a.GetFloat("i", 2) != 2 {
		t.Error("GetFloat")
	}
	if fs := a.GetFloats("fs", nil); len(fs) != 2 || !math.IsInf(fs[1], 1) || a.GetFloats("s", nil) != nil {
		t.Error("GetFloats")
	}
	if a.GetStr("s", "") != "x" || a.GetStr("i", "d") != "d" {
		t.Error("GetStr")
	}
	if !slices.Equal(a.Keys(), []string{"f", "fs", "i", "is", "s"}) {
		t.Errorf("Keys = %v", a.Keys())
	}
	var none ir.Attrs
	if none.GetInt("x", 4) != 4 || len(none.Keys()) != 0 {
		t.Error("nil Attrs")
	}
	src := []int64{1, 2}
	b := ir.Ints(src...)
	src[0] = 9
	if b.Ints[0] != 1 {
		t.Error("Ints shares its argument")
	}
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
		if err != nil || root != id[tc.root] || off != tc.off {
			t.Errorf("Root(%s) = %d, %d, %v; want %s at %d", tc.v, root, off, err, tc.root, tc.off)
		}
	}
	if _, _, err := g.Root(99); !errors.Is(err, ir.ErrUndefined) {
		t.Errorf("Root(99) = %v", err)
	}
	g.Values[id["top"]].View.Base = id["inner"]
	if _, _, err := g.Root(id["inner"]); !errors.Is(err, ir.ErrCycle) {
		t.Errorf("Root on a cyclic chain = %v", err)
	}
	g.Values[id["top"]].View.Base = id["h"]

	cons := g.Consumers()
	node := func(v string) ir.NodeID { return g.Values[id[v]].Producer }
	if got := cons[id["h"]]; !slices.Equal(got, []ir.NodeID{node("z")}) {
		t.Errorf("consumers of h = %v (Add reads it twice: listed once)", got)
	}
	if got := cons[id["x"]]; !slices.Equal(got, []ir.NodeID{node("h"), node("z")}) {
		t.Errorf("consumers of x = %v (input of Relu, kept alive by z)", got)
	}
	if got := g.ValuesWith(ir.FlagOutput); !slices.Equal(got, []ir.ValueID{id["y"], id["z"]}) {
		t.Errorf("outputs = %v", got)
	}
	if !g.Values[id["top"]].IsView() || g.Values[id["h"]].IsView() || !g.Values[id["x"]].IsExternal() || g.Values[id["h"]].IsExternal() {
		t.Error("IsView / IsExternal")
	}
	if !g.IsViewNode(g.Nodes[node("r")]) || g.IsViewNode(g.Nodes[node("y")]) || g.IsViewNode(nil) {
		t.Error("IsViewNode")
	}
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
		if got := v.IsContiguous(tc.shape, 4); got != tc.want {
			t.Errorf("IsContiguous(%v, %v) = %v", tc.shape, tc.strides, got)
		}
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
		if (err == nil) != want {
			t.Fatalf("Validate = %v, oracle says in bounds = %v", err, want)
		}
		if err != nil {
			var ve *ir.ValueError
			if !errors.As(err, &ve) || ve.Name != "v" || !errors.Is(err, ir.ErrViewBounds) {
				t.Fatalf("error %v does not name v as out of bounds", err)
			}
		}
	})
}
