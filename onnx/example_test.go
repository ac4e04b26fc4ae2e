package onnx_test

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/memplan/memplan/onnx"
	"github.com/memplan/memplan/onnx/onnxpb"
)

func tensorInfo(name string, dims ...int64) *onnxpb.ValueInfoProto {
	sh := &onnxpb.TensorShapeProto{}
	for _, d := range dims {
		sh.Dim = append(sh.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
	}
	return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
		TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)), Shape: sh}}}}
}

// A traced x.view(-1, 4): Shape and Gather fold into Reshape's shape
// attribute, the Reshape becomes a view, and the unknown LeakyRelu is an
// opaque node typed from the file.
func Example() {
	i64 := func(name string, v ...int64) *onnxpb.NodeProto {
		t := &onnxpb.TensorProto{DataType: proto.Int32(int32(onnxpb.TensorProto_INT64)), Dims: []int64{int64(len(v))}, Int64Data: v}
		return &onnxpb.NodeProto{OpType: proto.String("Constant"), Output: []string{name},
			Attribute: []*onnxpb.AttributeProto{{Name: proto.String("value"), Type: onnxpb.AttributeProto_TENSOR.Enum(), T: t}}}
	}
	n := func(op string, in []string, out string) *onnxpb.NodeProto {
		return &onnxpb.NodeProto{OpType: proto.String(op), Name: proto.String(op), Input: in, Output: []string{out}}
	}
	m := &onnxpb.ModelProto{
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Version: proto.Int64(13)}},
		Graph: &onnxpb.GraphProto{
			Name:      proto.String("tiny"),
			Input:     []*onnxpb.ValueInfoProto{tensorInfo("x", 2, 8)},
			Output:    []*onnxpb.ValueInfoProto{tensorInfo("z", 4, 4)},
			ValueInfo: []*onnxpb.ValueInfoProto{tensorInfo("z", 4, 4)},
			Node: []*onnxpb.NodeProto{
				n("Relu", []string{"x"}, "r"),
				n("Shape", []string{"r"}, "s"), i64("last", 1),
				n("Gather", []string{"s", "last"}, "d"), // [8]
				i64("four", 4), i64("minus1", -1),
				n("Div", []string{"d", "four"}, "q"), // [2]
				n("Mul", []string{"q", "q"}, "c"),    // [4]
				n("Concat", []string{"minus1", "c"}, "shape"),
				n("Reshape", []string{"r", "shape"}, "y"),
				n("LeakyRelu", []string{"y"}, "z"),
			},
		},
	}
	m.Graph.Node[8].Attribute = []*onnxpb.AttributeProto{{Name: proto.String("axis"), Type: onnxpb.AttributeProto_INT.Enum(), I: proto.Int64(0)}}
	data, _ := proto.Marshal(m)
	g, err := onnx.Import(data, onnx.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, nd := range g.Nodes {
		out := g.Values[nd.Outputs[0]]
		fmt.Printf("%s %s -> %s%v view=%v opaque=%v\n", nd.Name, nd.Op, out.Name, out.Shape, out.IsView(), nd.Opaque)
	}
	fmt.Println("shape attribute:", g.Nodes[1].Attrs.GetInts("shape", nil))
	fmt.Println(onnx.CheckRunnable(g))
	// Output:
	// Relu Relu -> r[2 8] view=false opaque=false
	// Reshape Reshape -> y[4 4] view=true opaque=false
	// LeakyRelu LeakyRelu -> z[4 4] view=false opaque=true
	// shape attribute: [-1 4]
	// onnx: 1 nodes of 1 ops outside the core set cannot run: LeakyRelu x1
}
