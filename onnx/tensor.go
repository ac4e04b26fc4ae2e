package onnx

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"

	"google.golang.org/protobuf/proto"

	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/onnx/onnxpb"
)

// Tensor is a named dense tensor in memplan's terms: an ir dtype and shape
// and raw little-endian bytes. Data is nil for a shape-only tensor (a
// graph-only model file keeps an initializer's dims but drops its data).
type Tensor struct {
	Name  string
	DType ir.DType
	Shape ir.Shape
	Data  []byte
}

// dtypes maps ONNX TensorProto.DataType numbers to ir dtypes; absent = unsupported.
var dtypes = map[int32]ir.DType{
	int32(onnxpb.TensorProto_FLOAT):    ir.F32,
	int32(onnxpb.TensorProto_UINT8):    ir.U8,
	int32(onnxpb.TensorProto_INT8):     ir.I8,
	int32(onnxpb.TensorProto_INT32):    ir.I32,
	int32(onnxpb.TensorProto_INT64):    ir.I64,
	int32(onnxpb.TensorProto_BOOL):     ir.Bool,
	int32(onnxpb.TensorProto_FLOAT16):  ir.F16,
	int32(onnxpb.TensorProto_DOUBLE):   ir.F64,
	int32(onnxpb.TensorProto_BFLOAT16): ir.BF16,
}

// DType maps an ONNX TensorProto.DataType number to an ir dtype.
func DType(onnxType int32) (ir.DType, error) {
	if d, ok := dtypes[onnxType]; ok {
		return d, nil
	}
	return ir.InvalidDType, fmt.Errorf("onnx: data type %s (%d): %w", onnxpb.TensorProto_DataType(onnxType), onnxType, ErrDType)
}

// ONNXType maps an ir dtype to its ONNX TensorProto.DataType number.
func ONNXType(d ir.DType) (int32, error) {
	for k, v := range dtypes {
		if v == d {
			return k, nil
		}
	}
	return 0, fmt.Errorf("onnx: dtype %v: %w", d, ErrDType)
}

// DecodeTensor converts a TensorProto to a Tensor, checking that its data
// (raw_data or the typed field for its type) matches its dims. A tensor with
// elements but no data at all decodes as shape-only (Data nil).
func DecodeTensor(t *onnxpb.TensorProto) (*Tensor, error) {
	name := t.GetName()
	fail := func(format string, args ...any) (*Tensor, error) {
		return nil, &TensorError{Name: name, Err: fmt.Errorf(format, args...)}
	}
	dt, err := DType(t.GetDataType())
	if err != nil {
		return nil, &TensorError{Name: name, Err: err}
	}
	shape := ir.Shape(append([]int64{}, t.GetDims()...))
	size, err := ir.ByteSize(dt, shape)
	if err != nil {
		return fail("dims %v: %w: %w", t.GetDims(), ErrTensor, err)
	}
	if t.GetDataLocation() == onnxpb.TensorProto_EXTERNAL || len(t.GetExternalData()) > 0 {
		return fail("data in an external file is not supported: %w", ErrTensor)
	}
	if t.GetSegment() != nil {
		return fail("segmented tensors are not supported: %w", ErrTensor)
	}
	n := size / dt.Size()
	out := &Tensor{Name: name, DType: dt, Shape: shape}
	if raw := t.GetRawData(); raw != nil {
		if int64(len(raw)) != size {
			return fail("raw_data has %d bytes, %v%v needs %d: %w", len(raw), dt, shape, size, ErrTensor)
		}
		out.Data = append([]byte{}, raw...)
		return out, nil
	}
	// Typed fields: which one carries the data depends on the type.
	var have int
	switch dt {
	case ir.F32:
		have = len(t.GetFloatData())
	case ir.F64:
		have = len(t.GetDoubleData())
	case ir.I64:
		have = len(t.GetInt64Data())
	default:
		have = len(t.GetInt32Data())
	}
	if have == 0 && n > 0 {
		return out, nil // shape only
	}
	if int64(have) != n {
		return fail("%d data elements, %v%v needs %d: %w", have, dt, shape, n, ErrTensor)
	}
	b := make([]byte, size)
	for i := range int(n) {
		switch dt {
		case ir.F32:
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(t.GetFloatData()[i]))
		case ir.F64:
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(t.GetDoubleData()[i]))
		case ir.I64:
			binary.LittleEndian.PutUint64(b[8*i:], uint64(t.GetInt64Data()[i]))
		case ir.I32:
			binary.LittleEndian.PutUint32(b[4*i:], uint32(t.GetInt32Data()[i]))
		case ir.F16, ir.BF16:
			binary.LittleEndian.PutUint16(b[2*i:], uint16(t.GetInt32Data()[i]))
		default: // one byte: u8, i8, bool
			b[i] = byte(t.GetInt32Data()[i])
		}
	}
	out.Data = b
	return out, nil
}

// EncodeTensor converts a Tensor with data to a TensorProto with raw_data.
func EncodeTensor(t *Tensor) (*onnxpb.TensorProto, error) {
	dt, err := ONNXType(t.DType)
	if err != nil {
		return nil, &TensorError{Name: t.Name, Err: err}
	}
	size, err := ir.ByteSize(t.DType, t.Shape)
	if err != nil {
		return nil, &TensorError{Name: t.Name, Err: fmt.Errorf("%w: %w", ErrTensor, err)}
	}
	if int64(len(t.Data)) != size {
		return nil, &TensorError{Name: t.Name, Err: fmt.Errorf("%d bytes of data, %v%v needs %d: %w", len(t.Data), t.DType, t.Shape, size, ErrTensor)}
	}
	p := &onnxpb.TensorProto{Dims: append([]int64{}, t.Shape...), DataType: proto.Int32(dt), RawData: append([]byte{}, t.Data...)}
	if t.Name != "" {
		p.Name = proto.String(t.Name)
	}
	return p, nil
}

// ReadTensor decodes one serialized TensorProto (an ONNX test-data file such
// as input_0.pb). The tensor must carry its data.
func ReadTensor(data []byte) (*Tensor, error) {
	var p onnxpb.TensorProto
	if err := proto.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("onnx: tensor: %w: %w", ErrProto, err)
	}
	t, err := DecodeTensor(&p)
	if err != nil {
		return nil, err
	}
	if t.Data == nil {
		return nil, &TensorError{Name: t.Name, Err: fmt.Errorf("no data: %w", ErrTensor)}
	}
	return t, nil
}

// WriteTensor serializes a tensor as a TensorProto with raw_data.
func WriteTensor(t *Tensor) ([]byte, error) {
	p, err := EncodeTensor(t)
	if err != nil {
		return nil, err
	}
	return proto.MarshalOptions{Deterministic: true}.Marshal(p)
}

// ReadTensorFile reads a TensorProto file (see ReadTensor).
func ReadTensorFile(path string) (*Tensor, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("onnx: %w", err)
	}
	t, err := ReadTensor(data)
	if err != nil {
		return nil, fmt.Errorf("onnx: %s: %w", path, err)
	}
	return t, nil
}

// WriteTensorFile writes a tensor as a TensorProto file (see WriteTensor).
func WriteTensorFile(path string, t *Tensor) error {
	data, err := WriteTensor(t)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("onnx: %w", err)
	}
	return nil
}
