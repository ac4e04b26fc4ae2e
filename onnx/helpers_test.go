package onnx

import (
	"encoding/binary"
	"math"
	"reflect"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/onnx/onnxpb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A tiny DSL for hand-made ONNX models in tests.

const (
	tF32  = int32(onnxpb.TensorProto_FLOAT)
	tI64  = int32(onnxpb.TensorProto_INT64)
	tBool = int32(onnxpb.TensorProto_BOOL)
)

func vi(name string, dt int32, dims ...int64) *onnxpb.ValueInfoProto {
	sh := &onnxpb.TensorShapeProto{}
	for _, d := range dims {
		sh.Dim = append(sh.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
	}
	return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
		TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(dt), Shape: sh}}}}
}

// viSym is vi with one symbolic dimension first.
func viSym(name string, dt int32, sym string, dims ...int64) *onnxpb.ValueInfoProto {
	v := vi(name, dt, dims...)
	sh := v.Type.GetTensorType().Shape
	sh.Dim = append([]*onnxpb.TensorShapeProto_Dimension{{Value: &onnxpb.TensorShapeProto_Dimension_DimParam{DimParam: sym}}}, sh.Dim...)
	return v
}

func node(op string, ins, outs []string, attrs ...*onnxpb.AttributeProto) *onnxpb.NodeProto {
	return &onnxpb.NodeProto{OpType: proto.String(op), Name: proto.String(op + "_" + outs[0]), Input: ins, Output: outs, Attribute: attrs}
}

func aInt(name string, v int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(v)}
}

func aInts(name string, v ...int64) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_INTS.Enum(), Ints: v}
}

func aFloat(name string, v float32) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_FLOAT.Enum(), F: proto.Float32(v)}
}

func aStr(name, v string) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_STRING.Enum(), S: []byte(v)}
}

func aTensor(name string, t *onnxpb.TensorProto) *onnxpb.AttributeProto {
	return &onnxpb.AttributeProto{Name: proto.String(name), Type: onnxpb.AttributeProto_TENSOR.Enum(), T: t}
}

func i64s(name string, dims []int64, vals ...int64) *onnxpb.TensorProto {
	return &onnxpb.TensorProto{Name: proto.String(name), DataType: proto.Int32(tI64), Dims: dims, Int64Data: vals}
}

func f32s(name string, dims []int64, vals ...float32) *onnxpb.TensorProto {
	raw := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	return &onnxpb.TensorProto{Name: proto.String(name), DataType: proto.Int32(tF32), Dims: dims, RawData: raw}
}

// shapeOnly is an f32 initializer with dims and no data.
func shapeOnly(name string, dims ...int64) *onnxpb.TensorProto {
	return &onnxpb.TensorProto{Name: proto.String(name), DataType: proto.Int32(tF32), Dims: dims}
}

// constNode is an ONNX Constant node holding t.
func constNode(out string, t *onnxpb.TensorProto) *onnxpb.NodeProto {
	return node("Constant", nil, []string{out}, aTensor("value", t))
}

type gdef struct {
	opset   int64
	nodes   []*onnxpb.NodeProto
	inputs  []*onnxpb.ValueInfoProto
	outputs []*onnxpb.ValueInfoProto
	inits   []*onnxpb.TensorProto
	infos   []*onnxpb.ValueInfoProto
}

func (d gdef) model() *onnxpb.ModelProto {
	opset := d.opset
	if opset == 0 {
		opset = 13
	}
	return &onnxpb.ModelProto{
		IrVersion:   proto.Int64(7),
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Domain: proto.String(""), Version: proto.Int64(opset)}},
		Graph: &onnxpb.GraphProto{Name: proto.String("t"), Node: d.nodes, Input: d.inputs, Output: d.outputs,
			Initializer: d.inits, ValueInfo: d.infos},
	}
}

// fataler is the part of testing.TB (and rapid.T) that bytes needs.
type fataler interface {
	Helper()
	Fatal(args ...any)
}

func (d gdef) bytes(t fataler) []byte {
	t.Helper()
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(d.model())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// byName finds a value by name.
func byName(g *ir.Graph, name string) *ir.Value {
	for _, v := range g.Values {
		if v.Name == name {
			return v
		}
	}
	return nil
}

// ops lists the graph's node ops in node order.
func ops(g *ir.Graph) []string {
	var out []string
	for _, n := range g.Nodes {
		out = append(out, n.Op)
	}
	return out
}

func f32Values(data []byte) []float32 {
	out := make([]float32, len(data)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
	}
	return out
}

func i64Values(data []byte) []int64 {
	out := make([]int64, len(data)/8)
	for i := range out {
		out[i] = int64(binary.LittleEndian.Uint64(data[8*i:]))
	}
	return out
}

// Short aliases keep the case tables readable.
type (
	ir_ValueID  = ir.ValueID
	onnxpb_VI   = onnxpb.ValueInfoProto
	onnxpb_Node = onnxpb.NodeProto
	onnxpb_TP   = onnxpb.TensorProto
)

func protoString(s string) *string { return proto.String(s) }

// Minimal assertions (the module keeps its test dependencies to the standard library here).

func eq(t *testing.T, got, want any, msg ...any) {
	t.Helper()
	assert.Truef(t, reflect.DeepEqual(got, want), "got %#v, want %#v %v", got, want, msg)
}

func near(t *testing.T, got, want, tol float64, msg ...any) {
	t.Helper()
	assert.Falsef(t, math.Abs(got-want) > tol, "got %v, want %v ± %v %v", got, want, tol, msg)
}

func must(t *testing.T, err error) {
	t.Helper()
	require.NoErrorf(t, err, "%v", err)
}

func check(t *testing.T, ok bool, msg ...any) {
	t.Helper()
	if !ok {
		t.Error(msg...)
	}
}

func notNil[T any](t *testing.T, p *T, msg ...any) {
	t.Helper()
	require.NotNilf(t, p, "%v %v", "unexpected nil", msg)
}

func errIs(t *testing.T, err, target error, contains string) {
	t.Helper()
	require.Errorf(t, err, "no error, want %v", target)
	assert.ErrorIsf(t, err, target, "error %q is not %v", err, target)
	assert.Containsf(t, err.Error(), contains, "error %q does not mention %q", err, contains)
}

type onnxpb_Attr = onnxpb.AttributeProto

func protoInt32(v int32) *int32 { return proto.Int32(v) }
