package onnx

import (
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/onnx/onnxpb"
)

func TestTensorRoundTrip(t *testing.T) {
	in := &Tensor{Name: "x", DType: ir.F32, Shape: ir.Shape{2, 1}, Data: []byte{0, 0, 128, 63, 0, 0, 0, 64}}
	data, err := WriteTensor(in)
	must(t, err)
	out, err := ReadTensor(data)
	must(t, err)
	eq(t, out, in)
	path := filepath.Join(t.TempDir(), "t.pb")
	must(t, WriteTensorFile(path, in))
	out, err = ReadTensorFile(path)
	must(t, err)
	eq(t, out, in)
}

func TestDecodeTensorTypedFields(t *testing.T) {
	cases := []struct {
		name string
		p    *onnxpb.TensorProto
		want []byte
	}{
		{"float_data", &onnxpb.TensorProto{DataType: proto.Int32(tF32), Dims: []int64{1}, FloatData: []float32{1}}, []byte{0, 0, 128, 63}},
		{"int64_data", &onnxpb.TensorProto{DataType: proto.Int32(tI64), Dims: []int64{1}, Int64Data: []int64{-2}}, []byte{254, 255, 255, 255, 255, 255, 255, 255}},
		{"bool in int32_data", &onnxpb.TensorProto{DataType: proto.Int32(tBool), Dims: []int64{2}, Int32Data: []int32{1, 0}}, []byte{1, 0}},
		{"f16 bits in int32_data", &onnxpb.TensorProto{DataType: proto.Int32(int32(onnxpb.TensorProto_FLOAT16)), Dims: []int64{1}, Int32Data: []int32{0x3c00}}, []byte{0, 0x3c}},
		{"shape only", &onnxpb.TensorProto{DataType: proto.Int32(tF32), Dims: []int64{4}}, nil},
		{"empty tensor has empty data", &onnxpb.TensorProto{DataType: proto.Int32(tF32), Dims: []int64{0}}, []byte{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeTensor(tc.p)
			must(t, err)
			eq(t, got.Data, tc.want)
		})
	}
}

func TestDecodeTensorErrors(t *testing.T) {
	cases := []struct {
		name string
		p    *onnxpb.TensorProto
		err  error
	}{
		{"string tensor", &onnxpb.TensorProto{Name: proto.String("s"), DataType: proto.Int32(int32(onnxpb.TensorProto_STRING)), Dims: []int64{1}}, ErrDType},
		{"too few floats", &onnxpb.TensorProto{Name: proto.String("s"), DataType: proto.Int32(tF32), Dims: []int64{3}, FloatData: []float32{1}}, ErrTensor},
		{"external data", &onnxpb.TensorProto{Name: proto.String("s"), DataType: proto.Int32(tF32), Dims: []int64{1}, DataLocation: onnxpb.TensorProto_EXTERNAL.Enum()}, ErrTensor},
		{"negative dim", &onnxpb.TensorProto{Name: proto.String("s"), DataType: proto.Int32(tF32), Dims: []int64{-1}}, ErrTensor},
		{"absurd dims", &onnxpb.TensorProto{Name: proto.String("s"), DataType: proto.Int32(tF32), Dims: []int64{1 << 40, 1 << 40}}, ErrTensor},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeTensor(tc.p)
			errIs(t, err, tc.err, `"s"`)
		})
	}
	_, err := ReadTensor([]byte{0x0a, 0xff})
	errIs(t, err, ErrProto, "tensor")
	shapeOnly, _ := proto.Marshal(&onnxpb.TensorProto{DataType: proto.Int32(tF32), Dims: []int64{2}})
	_, err = ReadTensor(shapeOnly)
	errIs(t, err, ErrTensor, "no data")
}

// TestZooReferenceTensors reads every committed test-data file.
func TestZooReferenceTensors(t *testing.T) {
	for _, m := range fullModels {
		for _, f := range []string{"input_0.pb", "output_0.pb"} {
			path := filepath.Join(zooDir, m+"_full", "test_data_set_0", f)
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			tt, err := ReadTensorFile(path)
			must(t, err)
			check(t, len(tt.Data) > 0, path)
		}
	}
}
