package onnx

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error the package returns wraps one of them.
var (
	// ErrProto: the bytes are not a valid ONNX protobuf message.
	ErrProto = errors.New("malformed protobuf")
	// ErrOpset: the model imports a version of the default domain outside
	// [MinOpset, MaxOpset], or none at all.
	ErrOpset = errors.New("unsupported opset")
	// ErrDType: a tensor element type memplan does not know (string, complex, ...).
	ErrDType = errors.New("unsupported element type")
	// ErrTensor: a tensor's data does not match its type and dims, or lives
	// in an external file.
	ErrTensor = errors.New("invalid tensor")
	// ErrUndefined: a node reads a name that no input, initializer or
	// earlier node defines, or a graph output names nothing.
	ErrUndefined = errors.New("undefined name")
	// ErrRedefined: two producers (inputs, initializers, node outputs) share a name.
	ErrRedefined = errors.New("name defined twice")
	// ErrNoShape: an opaque op's output, or a graph input, has no static shape.
	ErrNoShape = errors.New("no static shape")
	// ErrNotConstant: an input that memplan folds into an attribute (Reshape's
	// shape, Slice's starts, ...) is not known at import time.
	ErrNotConstant = errors.New("input must be constant at import time")
	// ErrAttr: an attribute is missing, malformed or out of range.
	ErrAttr = errors.New("invalid attribute")
	// ErrShapeMismatch: the type the file states for a value (value_info)
	// differs from the one the shape rules infer.
	ErrShapeMismatch = errors.New("shape mismatch")
	// ErrFold: a constant subgraph cannot be evaluated (bad index, too large).
	ErrFold = errors.New("constant folding failed")
	// ErrDimParam: Options.DimParams binds a name that is not a symbolic
	// dimension of the model.
	ErrDimParam = errors.New("unknown symbolic dimension")
	// ErrUnsupported: the graph holds opaque ops, so it can be planned but
	// not run. The error is an *UnsupportedError listing them.
	ErrUnsupported = errors.New("unsupported ops")
)

// NodeError is a problem with one ONNX node: its position in the file's node
// list, its name (or "" when the file gives none) and op type.
type NodeError struct {
	Index int
	Name  string
	Op    string
	Err   error
}

func (e *NodeError) Error() string {
	return fmt.Sprintf("onnx: node %d %q (%s): %v", e.Index, e.Name, e.Op, e.Err)
}

func (e *NodeError) Unwrap() error { return e.Err }

// TensorError is a problem with one named tensor or graph input/output.
type TensorError struct {
	Name string
	Err  error
}

func (e *TensorError) Error() string { return fmt.Sprintf("onnx: tensor %q: %v", e.Name, e.Err) }

func (e *TensorError) Unwrap() error { return e.Err }
