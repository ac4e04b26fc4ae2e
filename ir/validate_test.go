package ir_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/memplan/memplan/internal/irtest"
	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// base is a small valid graph that the cases below corrupt, one way each.
//
//	x -> h=MatMul(x,w) -> y=Relu(h) -> z=Add(y,h) -> out
//	          v = view of h (row 1), s = strided column view of h
const base = `
x = input f32[4,8]
w = weight f32[8,8]
b = weight f32[8] data=[1,2,3,4,5,6,7,8]
h = MatMul x w
y = Relu h
z = Add y b
r = Reshape z shape=[8,4]
v = view h +32 f32[8]
s = view h +4 f32[4,2] strides=[32,8]
output r
`

func build(t *testing.T) (*ir.Graph, map[string]ir.ValueID) {
	t.Helper()
	return irtest.MustBuild(t, base)
}

// want describes the culprit an error must name.
type want struct {
	class error
	value string // a *ValueError naming this value, or
	node  string // a *NodeError naming the node with this name
	text  string // a substring of the message
}

func TestValidateRejects(t *testing.T) {
	type fix = func(g *ir.Graph, id map[string]ir.ValueID)
	n := func(g *ir.Graph, id map[string]ir.ValueID, name string) *ir.Node {
		return g.Nodes[g.Values[id[name]].Producer]
	}
	tests := []struct {
		name    string
		corrupt fix
		want    want
	}{
		// values
		{"nil value", func(g *ir.Graph, id map[string]ir.ValueID) { g.Values[id["v"]] = nil },
			want{class: ir.ErrUndefined, text: "nil value"}},
		{"value id not dense", func(g *ir.Graph, id map[string]ir.ValueID) { g.Values[id["y"]].ID = 42 },
			want{class: ir.ErrID, value: "y"}},
		{"negative value id", func(g *ir.Graph, id map[string]ir.ValueID) { g.Values[id["y"]].ID = -1 },
			want{class: ir.ErrID, value: "y"}},
		{"invalid dtype", func(g *ir.Graph, id map[string]ir.ValueID) { g.Values[id["x"]].DType = 0 },
			want{class: ir.ErrDType, value: "x"}},
		{"negative dimension", func(g *ir.Graph, id map[string]ir.ValueID) { g.Values[id["x"]].Shape = ir.Shape{4, -8} },
			want{class: ir.ErrShape, value: "x"}},
		{"2^40 x 2^40 overflows", func(g *ir.Graph, id map[string]ir.ValueID) { g.Values[id["x"]].Shape = ir.Shape{1 << 40, 1 << 40} },
			want{class: ir.ErrOverflow, value: "x"}},
		{"bytes overflow", func(g *ir.Graph, id map[string]ir.ValueID) { g.Values[id["x"]].Shape = ir.Shape{1 << 47} },
			want{class: ir.ErrOverflow, value: "x"}},
		{"unknown flag bits", func(g *ir.Graph, id map[string]ir.ValueID) { g.Values[id["y"]].Flags |= 0x40 },
			want{class: ir.ErrFlags, value: "y"}},
		{"input and weight", func(g *ir.Graph, id map[string]ir.ValueID) { g.Values[id["w"]].Flags |= ir.FlagInput },
			want{class: ir.ErrFlags, value: "w"}},
		{"pinned without reason", func(g *ir.Graph, id map[string]ir.ValueID) { g.Values[id["y"]].Flags |= ir.FlagPinned },
			want{class: ir.ErrFlags, value: "y", text: "without a reason"}},
		{"reason without pin", func(g *ir.Graph, id map[string]ir.ValueID) { g.Values[id["y"]].PinReason = "why" },
			want{class: ir.ErrFlags, value: "y"}},
		{"data on an activation", func(g *ir.Graph, id map[string]ir.ValueID) { g.Values[id["y"]].Data = make([]byte, 128) },
			want{class: ir.ErrFlags, value: "y"}},
		{"data of the wrong length", func(g *ir.Graph, id map[string]ir.ValueID) { g.Values[id["b"]].Data = g.Values[id["b"]].Data[:4] },
			want{class: ir.ErrShape, value: "b"}},
		{"view flagged input", func(g *ir.Graph, id map[string]ir.ValueID) { g.Values[id["v"]].Flags |= ir.FlagInput },
			want{class: ir.ErrFlags, value: "v"}},
		{"view with data", func(g *ir.Graph, id map[string]ir.ValueID) {
			g.Values[id["v"]].Flags |= ir.FlagConstant
			g.Values[id["v"]].Data = make([]byte, 32)
		}, want{class: ir.ErrFlags, value: "v", text: "cannot carry data"}},
		// nodes
		{"nil node", func(g *ir.Graph, id map[string]ir.ValueID) { g.Nodes[1] = nil },
			want{class: ir.ErrUndefined, text: "nil node"}},
		{"node id not dense", func(g *ir.Graph, id map[string]ir.ValueID) { n(g, id, "y").ID = 7 },
			want{class: ir.ErrID, node: "y"}},
		{"node id out of range", func(g *ir.Graph, id map[string]ir.ValueID) { n(g, id, "y").ID = -5 },
			want{class: ir.ErrID, node: "y"}},
		{"unknown op", func(g *ir.Graph, id map[string]ir.ValueID) { n(g, id, "y").Op = "Relu6" },
			want{class: ir.ErrUnknownOp, node: "y"}},
		{"empty op", func(g *ir.Graph, id map[string]ir.ValueID) { n(g, id, "y").Op = "" },
			want{class: ir.ErrUnknownOp, node: "y"}},
		{"input out of range", func(g *ir.Graph, id map[string]ir.ValueID) { n(g, id, "y").Inputs[0] = 99 },
			want{class: ir.ErrUndefined, node: "y"}},
		{"negative input", func(g *ir.Graph, id map[string]ir.ValueID) { n(g, id, "y").Inputs[0] = -1 },
			want{class: ir.ErrUndefined, node: "y"}},
		{"keep-alive out of range", func(g *ir.Graph, id map[string]ir.ValueID) { n(g, id, "y").KeepAlive = []ir.ValueID{1000} },
			want{class: ir.ErrUndefined, node: "y", text: "keep-alive"}},
		{"output out of range", func(g *ir.Graph, id map[string]ir.ValueID) { n(g, id, "y").Outputs = []ir.ValueID{id["y"], 77} },
			want{class: ir.ErrUndefined, node: "y", text: "output 1"}},
		{"no outputs", func(g *ir.Graph, id map[string]ir.ValueID) {
			n(g, id, "y").Outputs = nil
			g.Values[id["y"]].Producer = ir.NoNode
		}, want{class: ir.ErrArity, node: "y"}},
		{"output repeated", func(g *ir.Graph, id map[string]ir.ValueID) { n(g, id, "y").Outputs = []ir.ValueID{id["y"], id["y"]} },
			want{class: ir.ErrRedefined, node: "y"}},
		{"node writes an input", func(g *ir.Graph, id map[string]ir.ValueID) {
			n(g, id, "y").Outputs = []ir.ValueID{id["x"]}
			g.Values[id["x"]].Producer = n(g, id, "y").ID
			g.Values[id["y"]].Producer = ir.NoNode
		}, want{class: ir.ErrFlags, node: "y", text: "cannot write"}},
		{"attribute of no kind", func(g *ir.Graph, id map[string]ir.ValueID) { n(g, id, "y").Attrs = ir.Attrs{"k": {}} },
			want{class: ir.ErrAttr, node: "y"}},
		// producers
		{"produced twice", func(g *ir.Graph, id map[string]ir.ValueID) {
			nz := n(g, id, "z")
			nz.Outputs = append(nz.Outputs, id["y"])
		}, want{class: ir.ErrRedefined, value: "y", text: "produced by nodes"}},
		{"producer field wrong", func(g *ir.Graph, id map[string]ir.ValueID) { g.Values[id["y"]].Producer = 0 },
			want{class: ir.ErrRedefined, value: "y"}},
		{"producer field out of range", func(g *ir.Graph, id map[string]ir.ValueID) { g.Values[id["x"]].Producer = 12345 },
			want{class: ir.ErrUndefined, value: "x"}},
		{"never defined", func(g *ir.Graph, id map[string]ir.ValueID) { g.Values[id["x"]].Flags = 0 },
			want{class: ir.ErrUndefined, value: "x", text: "never defined"}},
		// views
		{"view chain cycle", func(g *ir.Graph, id map[string]ir.ValueID) {
			g.Values[id["v"]].View.Base = id["s"]
			g.Values[id["s"]].View.Base = id["v"]
		}, want{class: ir.ErrCycle, value: "v", text: "view chain"}},
		{"view of itself", func(g *ir.Graph, id map[string]ir.ValueID) { g.Values[id["v"]].View.Base = id["v"] },
			want{class: ir.ErrCycle, value: "v"}},
		{"view base undefined", func(g *ir.Graph, id map[string]ir.ValueID) { g.Values[id["v"]].View.Base = -3 },
			want{class: ir.ErrUndefined, value: "v"}},
		{"view past the end", func(g *ir.Graph, id map[string]ir.ValueID) { g.Values[id["v"]].View.OffsetBytes = 104 },
			want{class: ir.ErrViewBounds, value: "v", text: "[104, 136)"}},
		{"view before the start", func(g *ir.Graph, id map[string]ir.ValueID) { g.Values[id["v"]].View.OffsetBytes = -4 },
			want{class: ir.ErrViewBounds, value: "v"}},
		{"huge view offset", func(g *ir.Graph, id map[string]ir.ValueID) { g.Values[id["v"]].View.OffsetBytes = 1 << 62 },
			want{class: ir.ErrViewBounds, value: "v"}},
		{"strided view's last element out", func(g *ir.Graph, id map[string]ir.ValueID) {
			// s is f32[4,2] at +4 with strides [32,8]: its last element
			// [3,1] ends at 4+96+8+4 = 112. With a row stride of 40 it
			// ends at 4+120+8+4 = 136, past the 128-byte root; every
			// other element is still inside.
			g.Values[id["s"]].View.StridesBytes = []int64{40, 8}
		}, want{class: ir.ErrViewBounds, value: "s", text: "[4, 136)"}},
		{"negative stride below the root", func(g *ir.Graph, id map[string]ir.ValueID) {
			g.Values[id["s"]].View.StridesBytes = []int64{-32, 8}
		}, want{class: ir.ErrViewBounds, value: "s"}},
		{"huge stride", func(g *ir.Graph, id map[string]ir.ValueID) {
			g.Values[id["s"]].View.StridesBytes = []int64{-1 << 63, 8}
		}, want{class: ir.ErrViewBounds, value: "s"}},
		{"misaligned view", func(g *ir.Graph, id map[string]ir.ValueID) { g.Values[id["v"]].View.OffsetBytes = 2 },
			want{class: ir.ErrViewBounds, value: "v", text: "multiple"}},
		{"strides of the wrong rank", func(g *ir.Graph, id map[string]ir.ValueID) { g.Values[id["s"]].View.StridesBytes = []int64{8} },
			want{class: ir.ErrShape, value: "s"}},
		{"nested view out of its root", func(g *ir.Graph, id map[string]ir.ValueID) {
			g.Values = append(g.Values, &ir.Value{ID: ir.ValueID(len(g.Values)), Name: "nested", DType: ir.F32, Shape: ir.Shape{8},
				View: &ir.View{Base: id["v"], OffsetBytes: 72}, Producer: ir.NoNode})
		}, want{class: ir.ErrViewBounds, value: "nested", text: "[104, 136)"}},
		{"view op output moved", func(g *ir.Graph, id map[string]ir.ValueID) { g.Values[id["r"]].View.OffsetBytes = 4 },
			want{class: ir.ErrViewBounds, node: "r"}},
		{"view op output on another base", func(g *ir.Graph, id map[string]ir.ValueID) { g.Values[id["r"]].View.Base = id["y"] },
			want{class: ir.ErrViewBounds, node: "r"}},
		{"node writes into a view of an input", func(g *ir.Graph, id map[string]ir.ValueID) {
			g.Values[id["y"]].View = &ir.View{Base: id["x"]}
		}, want{class: ir.ErrFlags, node: "y", text: "a view into input"}},
		// types
		{"too many inputs", func(g *ir.Graph, id map[string]ir.ValueID) {
			n(g, id, "y").Inputs = append(n(g, id, "y").Inputs, id["x"])
		},
			want{class: ir.ErrArity, node: "y"}},
		{"too few inputs", func(g *ir.Graph, id map[string]ir.ValueID) { n(g, id, "h").Inputs = n(g, id, "h").Inputs[:1] },
			want{class: ir.ErrArity, node: "h"}},
		{"output shape mismatch", func(g *ir.Graph, id map[string]ir.ValueID) { g.Values[id["y"]].Shape = ir.Shape{4, 9} },
			want{class: ir.ErrTypeMismatch, node: "y", text: `value 4 "y"`}},
		{"output dtype mismatch", func(g *ir.Graph, id map[string]ir.ValueID) { g.Values[id["y"]].DType = ir.F16 },
			want{class: ir.ErrTypeMismatch, node: "y"}},
		{"shape rule fails", func(g *ir.Graph, id map[string]ir.ValueID) { g.Values[id["w"]].Shape = ir.Shape{9, 8} },
			want{class: ir.ErrShape, node: "h"}},
		{"bad attribute value", func(g *ir.Graph, id map[string]ir.ValueID) { n(g, id, "r").Attrs["shape"] = ir.Ints(5, 5) },
			want{node: "r"}},
		{"wrong output count", func(g *ir.Graph, id map[string]ir.ValueID) {
			g.Values = append(g.Values, &ir.Value{ID: ir.ValueID(len(g.Values)), Name: "extra", DType: ir.F32, Shape: ir.Shape{1}, Producer: n(g, id, "y").ID})
			n(g, id, "y").Outputs = append(n(g, id, "y").Outputs, ir.ValueID(len(g.Values)-1))
		}, want{class: ir.ErrArity, node: "y"}},
		// dependencies
		{"cycle", func(g *ir.Graph, id map[string]ir.ValueID) { n(g, id, "h").Inputs[0] = id["y"] },
			want{class: ir.ErrCycle, node: "h", text: "form a cycle"}},
		{"self loop", func(g *ir.Graph, id map[string]ir.ValueID) {
			n(g, id, "y").Op = "Add"
			n(g, id, "y").Inputs = []ir.ValueID{id["h"], id["y"]}
		}, want{class: ir.ErrCycle, node: "y"}},
		{"cycle through a view", func(g *ir.Graph, id map[string]ir.ValueID) { n(g, id, "h").KeepAlive = []ir.ValueID{id["r"]} },
			want{class: ir.ErrCycle, node: "h"}},
		// schedule
		{"order breaks a dependency", func(g *ir.Graph, id map[string]ir.ValueID) {
			g.Order = []ir.NodeID{g.Values[id["y"]].Producer, g.Values[id["h"]].Producer, g.Values[id["z"]].Producer, g.Values[id["r"]].Producer}
		}, want{class: ir.ErrSchedule, node: "y", text: "before its dependency"}},
		{"order misses a node", func(g *ir.Graph, id map[string]ir.ValueID) {
			g.Order = []ir.NodeID{g.Values[id["h"]].Producer, g.Values[id["y"]].Producer, g.Values[id["z"]].Producer}
		}, want{class: ir.ErrSchedule, node: "r", text: "not scheduled"}},
		{"order repeats a node", func(g *ir.Graph, id map[string]ir.ValueID) { g.Order = []ir.NodeID{0, 1, 1, 2, 3} },
			want{class: ir.ErrSchedule, text: "already at step"}},
		{"order names no node", func(g *ir.Graph, id map[string]ir.ValueID) { g.Order = []ir.NodeID{0, 1, 2, 3, 9} },
			want{class: ir.ErrSchedule, text: "out of range"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, id := build(t)
			if err := g.Validate(); err != nil {
				t.Fatalf("the base graph is invalid: %v", err)
			}
			tc.corrupt(g, id)
			err := g.Validate()
			require.Errorf(t, err, "Validate accepted the corrupted graph")
			checkCulprit(t, err, tc.want)
			assert.Truef(t, strings.HasPrefix(err.Error(), "ir: "), "%q does not start with the package name", err)
		})
	}
}

// checkCulprit finds, among the joined errors, one that matches w.
func checkCulprit(t *testing.T, err error, w want) {
	t.Helper()
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{err}
	}
	for _, e := range errs {
		if w.class != nil && !errors.Is(e, w.class) {
			continue
		}
		if w.text != "" && !strings.Contains(e.Error(), w.text) {
			continue
		}
		var ve *ir.ValueError
		var ne *ir.NodeError
		switch {
		case w.value != "":
			if errors.As(e, &ve) && ve.Name == w.value {
				return
			}
		case w.node != "":
			if errors.As(e, &ne) && ne.Name == w.node {
				return
			}
		default:
			return
		}
	}
	t.Errorf("no error matches %+v; got:\n%v", w, err)
}

// TestValidateReportsEverything: three independent problems give (at least)
// three errors, each naming its culprit.
func TestValidateReportsEverything(t *testing.T) {
	g, id := build(t)
	g.Values[id["x"]].Shape = ir.Shape{1 << 40, 1 << 40}
	g.Values[id["v"]].View.OffsetBytes = 120
	g.Values[id["z"]].Flags |= ir.FlagPinned
	g.Nodes[g.Values[id["y"]].Producer].Op = "Nope"
	err := g.Validate()
	checkCulprit(t, err, want{class: ir.ErrOverflow, value: "x"})
	checkCulprit(t, err, want{class: ir.ErrViewBounds, value: "v"})
	checkCulprit(t, err, want{class: ir.ErrFlags, value: "z"})
	checkCulprit(t, err, want{class: ir.ErrUnknownOp, node: "y"})
}

func TestValidateAccepts(t *testing.T) {
	tests := []struct{ name, src string }{
		{"empty", ""},
		{"opaque op of any name", "x = input f32[2]\ny, z = opaque Anything(f32[3], i64[]) x\noutput y z"},
		{"view as output", "x = input f32[2,4]\nh = Relu x\nv = view h +16 f32[4]\noutput v"},
		{"pinned view", "x = input f32[4]\nh = Relu x\nv = view h +8 f32[2]\npin v \"tap\""},
		{"empty view at the end", "x = input f32[4]\nv = view x +16 f32[0]"},
		{"bitcast view", "x = input f32[4]\nv = view x +4 u8[12]"},
		{"reversed rows", "x = input f32[4,2]\nv = view x +24 f32[4,2] strides=[-8,4]"},
		{"broadcast view", "x = input f32[2]\nv = view x +0 f32[3,2] strides=[0,4]"},
		{"zero-size tensor", "x = input f32[0,5]\ny = Relu x"},
		{"valid explicit order", "x = input f32[2]\na = Relu x\nb = Neg x\nc = Add a b\norder b a c"},
		{"keep-alive", "x = input f32[2]\na = Relu x\nb = Neg a\nkeep b x"},
		{"weight view", "w = weight f32[4,4]\nv = view w +16 f32[4]\ny = Relu v"},
		{"reshape of a weight", "w = weight f32[4,4]\nr = Reshape w shape=[16]\ny = Relu r"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, _ := irtest.MustBuild(t, tc.src)
			err := g.Validate()
			require.NoErrorf(t, err, "%v", err)
		})
	}
}

// TestValidateNeverPanics: hostile graphs built directly from structs.
func TestValidateNeverPanics(t *testing.T) {
	var nilGraph *ir.Graph
	err := nilGraph.Validate()
	assert.ErrorIsf(t, err, ir.ErrUndefined, "nil graph: %v", err)
	graphs := []*ir.Graph{
		{},
		{Values: []*ir.Value{nil, nil}, Nodes: []*ir.Node{nil}, Order: []ir.NodeID{-1, 5}},
		{Values: []*ir.Value{{ID: 0, DType: 200, Shape: ir.Shape{-1}, Flags: 0xff, Producer: 7, View: &ir.View{Base: 0}}},
			Nodes: []*ir.Node{{ID: 3, Op: "MatMul", Inputs: []ir.ValueID{0, -4}, Outputs: []ir.ValueID{0, 0}, KeepAlive: []ir.ValueID{1 << 30}}}},
		{Values: []*ir.Value{{ID: 0, DType: ir.F32, Shape: ir.Shape{2}, Producer: -9}},
			Nodes: []*ir.Node{{ID: 0, Op: "Relu", Inputs: []ir.ValueID{0}, Outputs: []ir.ValueID{0}}}, Order: []ir.NodeID{0, 0}},
		{Values: []*ir.Value{{ID: 0, DType: ir.F32, Shape: ir.Shape{2}, Flags: ir.FlagInput, Producer: ir.NoNode},
			{ID: 1, DType: ir.F32, Shape: ir.Shape{2}, Producer: 0}},
			Nodes: []*ir.Node{{ID: 0, Op: "Concat", Inputs: nil, Outputs: []ir.ValueID{1}}}},
	}
	for i, g := range graphs {
		// Only the empty graph is well-formed; every other one must be
		// rejected, and no schedule naming nodes -1 and 99 is valid.
		err := g.Validate()
		assert.Equalf(t, i == 0, err == nil, "graph %d: Validate = %v, want an error for every graph but the empty one", i, err)
		_, _ = g.Schedule()
		_, _ = g.TopoOrder()
		err = g.CheckSchedule([]ir.NodeID{0, -1, 99})
		assert.Errorf(t, err, "graph %d: CheckSchedule accepted nodes -1 and 99", i)
	}
}
