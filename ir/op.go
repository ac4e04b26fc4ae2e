package ir

import "sort"

// Kind groups ops by the shape of their work. Reports colour by it and
// backends pick kernels by it; the planner never looks at it.
type Kind uint8

// Op kinds.
const (
	KindOpaque Kind = iota
	KindView
	KindElementwise
	KindMatMul
	KindConv
	KindPool
	KindNorm
	KindReduce
	KindSoftmax
	KindData
)

var kindNames = [...]string{"opaque", "view", "elementwise", "matmul", "conv", "pool", "norm", "reduce", "softmax", "data"}

// String returns the kind's lowercase name.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind?"
}

// OpInfo is everything the pipeline may know about an op: the planner asks
// it about views and in-place sharing instead of matching op names.
type OpInfo struct {
	Name string
	Kind Kind
	// MinInputs and MaxInputs bound the number of inputs.
	MinInputs, MaxInputs int
	// InPlace is the index of the input whose buffer the (single) output may
	// share, or -1. The planner still checks sizes and liveness.
	InPlace int
	// Infer computes the output types from the input types and attributes.
	Infer func(in []TensorType, a Attrs) ([]TensorType, error)
	// View is non-nil for ops that can be pure views. It reports where the
	// output starts inside input 0, or ok=false when this instance is not a
	// view (a Cast to another dtype, a Slice that is not contiguous).
	View func(in []TensorType, a Attrs) (offsetBytes int64, ok bool)
	// Attrs lists the attributes the op takes (op_attrs.go); Validate
	// rejects any other name, a wrong kind or a value outside an
	// enumeration.
	Attrs []AttrSpec
}

var opTable = map[string]*OpInfo{}

func reg(name string, kind Kind, minIn, maxIn, inPlace int, infer func([]TensorType, Attrs) ([]TensorType, error)) *OpInfo {
	o := &OpInfo{Name: name, Kind: kind, MinInputs: minIn, MaxInputs: maxIn, InPlace: inPlace, Infer: infer}
	opTable[name] = o
	return o
}

func init() {
	for _, n := range []string{"Relu", "Sigmoid", "Tanh", "Gelu", "Silu", "Erf", "Sqrt", "Neg", "Exp", "Log", "Abs", "Sin", "Cos", "Reciprocal", "Clip", "HardSigmoid", "HardSwish"} {
		reg(n, KindElementwise, 1, 1, 0, inferUnary)
	}
	for _, n := range []string{"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min"} {
		reg(n, KindElementwise, 2, 2, 0, inferBinary(false))
	}
	for _, n := range []string{"Equal", "Less", "Greater"} {
		reg(n, KindElementwise, 2, 2, -1, inferBinary(true))
	}
	reg("Where", KindElementwise, 3, 3, 1, inferWhere)
	reg("MatMul", KindMatMul, 2, 2, -1, inferMatMul)
	reg("Gemm", KindMatMul, 2, 3, -1, inferGemm)
	reg("Conv", KindConv, 2, 3, -1, inferConv)
	reg("ConvTranspose", KindConv, 2, 3, -1, inferConvTranspose)
	reg("BatchNorm", KindNorm, 5, 5, 0, inferBatchNorm)
	reg("LayerNorm", KindNorm, 2, 3, 0, inferNorm)
	reg("RMSNorm", KindNorm, 2, 2, 0, inferNorm)
	reg("Softmax", KindSoftmax, 1, 1, 0, inferAxisUnary)
	reg("LogSoftmax", KindSoftmax, 1, 1, 0, inferAxisUnary)
	for _, n := range []string{"ReduceMean", "ReduceSum", "ReduceMax"} {
		reg(n, KindReduce, 1, 1, -1, inferReduce)
	}
	reg("MaxPool", KindPool, 1, 1, -1, inferPool)
	reg("AveragePool", KindPool, 1, 1, -1, inferPool)
	reg("GlobalAveragePool", KindPool, 1, 1, -1, inferGlobalPool)
	reg("Concat", KindData, 1, 1<<16, -1, inferConcat)
	reg("Split", KindData, 1, 1, -1, inferSplit)
	reg("Transpose", KindData, 1, 1, -1, inferTranspose)
	reg("Gather", KindData, 2, 2, -1, inferGather)
	reg("Expand", KindData, 1, 1, -1, inferExpand)
	reg("Pad", KindData, 1, 1, -1, inferPad)
	reg("Slice", KindData, 1, 1, -1, inferSlice).View = viewSlice
	reg("Cast", KindData, 1, 1, -1, inferCast).View = viewCast
	reg("Reshape", KindView, 1, 1, -1, inferReshape).View = viewWhole
	reg("Flatten", KindView, 1, 1, -1, inferFlatten).View = viewWhole
	reg("Squeeze", KindView, 1, 1, -1, inferSqueeze).View = viewWhole
	reg("Unsqueeze", KindView, 1, 1, -1, inferUnsqueeze).View = viewWhole
	reg("Identity", KindView, 1, 1, -1, inferUnary).View = viewWhole
}

// LookupOp returns the property table entry for an op name.
func LookupOp(name string) (*OpInfo, bool) {
	o, ok := opTable[name]
	return o, ok
}

// OpNames returns every op in the core set, sorted.
func OpNames() []string {
	names := make([]string, 0, len(opTable))
	for n := range opTable {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// IsViewNode reports whether every output of n is a view: such a node only
// renames storage and makes no dispatch.
func (g *Graph) IsViewNode(n *Node) bool {
	if n == nil || len(n.Outputs) == 0 || n.Opaque {
		return false
	}
	for _, id := range n.Outputs {
		v := g.Value(id)
		if v == nil || v.View == nil {
			return false
		}
	}
	return true
}

func viewWhole([]TensorType, Attrs) (int64, bool) { return 0, true }

func viewCast(in []TensorType, a Attrs) (int64, bool) {
	to, err := ParseDType(a.GetStr("to", ""))
	return 0, err == nil && len(in) == 1 && to == in[0].DType
}

// viewSlice reports the byte offset of a Slice whose result is one contiguous
// run of its input. With unit steps, result extents n[i] and input extents
// s[i], let p be the last axis with n[p] != s[p]: the run is contiguous iff
// every axis before p has n[i] == 1. (Axes after p are whole by definition.)
func viewSlice(in []TensorType, a Attrs) (int64, bool) {
	if len(in) != 1 {
		return 0, false
	}
	sh := in[0].Shape
	starts, ends, steps, err := sliceBounds(sh, a)
	if err != nil {
		return 0, false
	}
	p := -1
	for i := range sh {
		if steps[i] != 1 {
			return 0, false
		}
		if ends[i]-starts[i] != sh[i] {
			p = i
		}
	}
	for i := 0; i < p; i++ {
		if ends[i]-starts[i] != 1 {
			return 0, false
		}
	}
	strides := ContiguousStrides(sh, in[0].DType.Size())
	off := int64(0)
	for i := range sh {
		off += starts[i] * strides[i]
	}
	return off, true
}
