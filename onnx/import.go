package onnx

// The importer walks the ONNX node list once, in file order (ONNX requires a
// topological order), keeping one entry per tensor name:
//
//	graph input        -> ir input, added first, in file order
//	initializer        -> ir weight (with data, or shape-only), added at first use
//	Constant node      -> ir constant, added at first use
//	node, inputs known -> folded (fold.go): a konst entry, no ir node
//	core op            -> ir node through ir.Builder (views become views)
//	other op           -> opaque ir node typed from value_info
//
// Values enter the graph only when a real node reads them or the graph
// outputs them, in the order the node list first needs them: importing the
// same bytes twice gives the same graph, value for value.

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/onnx/onnxpb"
)

// The range of default-domain ("" or "ai.onnx") opset versions the importer
// maps. Below 11, Clip, Pad, Slice and Squeeze take different attributes.
const (
	MinOpset = 11
	MaxOpset = 21
)

// DefaultFoldLimit is the largest number of elements a folded tensor may have.
const DefaultFoldLimit = 1 << 16

// Options adjusts an import. The zero value is ready to use.
type Options struct {
	// DimParams binds symbolic dimensions (dim_param, e.g. "batch") of the
	// graph inputs and value_info to sizes. A graph input with an unbound
	// symbolic dimension is an error, and so is a name the model does not
	// use (ErrDimParam, listing SymbolicDims).
	DimParams map[string]int64
	// FoldLimit bounds the element count of tensors the importer evaluates at
	// import time; 0 means DefaultFoldLimit.
	FoldLimit int64
	// Name overrides the graph's name (default: the ONNX graph's name).
	Name string
	// Fuse imports the op chains exporters write for LayerNorm, GELU and
	// RMSNorm at opsets without those ops as one core op each (fuse.go).
	Fuse bool
}

// entry is what the importer knows about one ONNX tensor name.
type entry struct {
	name  string // the name the value takes in the graph (the first one defined)
	typ   ir.TensorType
	typed bool
	k     *konst   // values known at import time, or nil
	data  []byte   // raw bytes of an initializer or Constant (nil: shape-only or computed)
	flags ir.Flags // FlagWeight or FlagConstant for values added on first use; 0 otherwise
	id    ir.ValueID
}

type importer struct {
	opts     Options
	opset    int64
	b        *ir.Builder
	ents     map[string]*entry
	declared map[string]ir.TensorType // value_info, graph inputs and outputs with static types
	uses     map[string]int           // readers of each name (node inputs and graph outputs)
	fixes    []fix                    // node names and attributes to set after Build
}

// fix records a node (through one of its outputs) whose name and attributes
// the builder does not set.
type fix struct {
	out   ir.ValueID
	name  string
	attrs ir.Attrs
}

// ImportFile reads and imports an ONNX model file.
func ImportFile(path string, opts Options) (*ir.Graph, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("onnx: %w", err)
	}
	g, err := Import(data, opts)
	if err != nil {
		return nil, &fileError{path: path, err: err}
	}
	return g, nil
}

// fileError names the file an Import error came from, once: "onnx: PATH:
// model: ..." rather than "onnx: PATH: onnx: model: ...".
type fileError struct {
	path string
	err  error
}

func (e *fileError) Error() string {
	return "onnx: " + e.path + ": " + strings.TrimPrefix(e.err.Error(), "onnx: ")
}

func (e *fileError) Unwrap() error { return e.err }

// Import decodes a serialized ModelProto and converts it to an ir graph.
func Import(data []byte, opts Options) (*ir.Graph, error) {
	var m onnxpb.ModelProto
	if err := proto.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("onnx: model: %w: %w", ErrProto, err)
	}
	return ImportModel(&m, opts)
}

// ImportModel converts a decoded ModelProto to an ir graph.
func ImportModel(m *onnxpb.ModelProto, opts Options) (*ir.Graph, error) {
	if opts.FoldLimit <= 0 {
		opts.FoldLimit = DefaultFoldLimit
	}
	opset := int64(-1)
	for _, o := range m.GetOpsetImport() {
		if d := o.GetDomain(); d == "" || d == "ai.onnx" {
			opset = o.GetVersion()
		}
	}
	if opset < MinOpset || opset > MaxOpset {
		return nil, fmt.Errorf("onnx: default-domain opset %d, want %d..%d: %w", opset, MinOpset, MaxOpset, ErrOpset)
	}
	gp := m.GetGraph()
	if gp == nil {
		return nil, fmt.Errorf("onnx: model has no graph: %w", ErrProto)
	}
	if err := checkDimParams(m, opts.DimParams); err != nil {
		return nil, err
	}
	name := opts.Name
	if name == "" {
		name = gp.GetName()
	}
	if name == "" {
		name = "onnx"
	}
	imp := &importer{opts: opts, opset: opset, b: ir.NewBuilder(name), ents: map[string]*entry{}, declared: map[string]ir.TensorType{}, uses: map[string]int{}}
	if err := imp.graph(gp); err != nil {
		return nil, err
	}
	g, err := imp.b.Build()
	if err != nil {
		return nil, fmt.Errorf("onnx: %w", err)
	}
	for _, f := range imp.fixes {
		n := g.Node(g.Values[f.out].Producer)
		n.Name = f.name
		if f.attrs != nil {
			n.Attrs = f.attrs
		}
	}
	return g, nil
}

func (imp *importer) graph(gp *onnxpb.GraphProto) error {
	if len(gp.GetSparseInitializer()) > 0 {
		return fmt.Errorf("onnx: sparse initializers are not supported: %w", ErrTensor)
	}
	for _, vi := range slices.Concat(gp.GetInput(), gp.GetOutput(), gp.GetValueInfo()) {
		if t, ok, _ := imp.staticType(vi.GetType()); ok {
			imp.declared[vi.GetName()] = t
		}
	}
	for _, n := range gp.GetNode() {
		for _, in := range n.GetInput() {
			imp.uses[in]++
		}
	}
	for _, o := range gp.GetOutput() {
		imp.uses[o.GetName()]++
	}
	for _, t := range gp.GetInitializer() {
		if err := imp.initializer(t); err != nil {
			return err
		}
	}
	for _, in := range gp.GetInput() {
		if err := imp.input(in); err != nil {
			return err
		}
	}
	nodes := gp.GetNode()
	if imp.opts.Fuse {
		nodes = fuseNodes(gp, imp.uses, imp.declared)
	}
	for i, n := range nodes {
		c := &nodeCtx{imp: imp, idx: i, n: n, attrs: map[string]*onnxpb.AttributeProto{}}
		if err := c.run(); err != nil {
			return &NodeError{Index: i, Name: n.GetName(), Op: n.GetOpType(), Err: err}
		}
	}
	if len(gp.GetOutput()) == 0 {
		return fmt.Errorf("onnx: graph has no outputs: %w", ErrUndefined)
	}
	for _, o := range gp.GetOutput() {
		id, err := imp.value(o.GetName())
		if err != nil {
			return &TensorError{Name: o.GetName(), Err: fmt.Errorf("graph output: %w", err)}
		}
		imp.b.Output(id)
	}
	return nil
}

// staticType converts a TypeProto to a tensor type. ok is false when the
// type is not a tensor, has no shape, or has an unbound symbolic dimension;
// err says why.
func (imp *importer) staticType(tp *onnxpb.TypeProto) (ir.TensorType, bool, error) {
	tt := tp.GetTensorType()
	if tt == nil {
		return ir.TensorType{}, false, fmt.Errorf("not a tensor type: %w", ErrNoShape)
	}
	dt, err := DType(tt.GetElemType())
	if err != nil {
		return ir.TensorType{}, false, err
	}
	if tt.GetShape() == nil {
		return ir.TensorType{}, false, fmt.Errorf("no shape: %w", ErrNoShape)
	}
	shape := ir.Shape{}
	for i, d := range tt.GetShape().GetDim() {
		switch v := d.GetValue().(type) {
		case *onnxpb.TensorShapeProto_Dimension_DimValue:
			if v.DimValue < 0 {
				return ir.TensorType{}, false, fmt.Errorf("dimension %d is %d: %w", i, v.DimValue, ErrNoShape)
			}
			shape = append(shape, v.DimValue)
		case *onnxpb.TensorShapeProto_Dimension_DimParam:
			size, ok := imp.opts.DimParams[v.DimParam]
			if !ok || size < 0 {
				return ir.TensorType{}, false, fmt.Errorf("dimension %d is symbolic %q (bind it in Options.DimParams): %w", i, v.DimParam, ErrNoShape)
			}
			shape = append(shape, size)
		default:
			return ir.TensorType{}, false, fmt.Errorf("dimension %d is unknown: %w", i, ErrNoShape)
		}
	}
	if _, err := ir.ByteSize(dt, shape); err != nil {
		return ir.TensorType{}, false, err
	}
	return ir.TensorType{DType: dt, Shape: shape}, true, nil
}

func (imp *importer) define(name string, e *entry) error {
	if name == "" {
		return nil
	}
	if _, dup := imp.ents[name]; dup {
		return &TensorError{Name: name, Err: ErrRedefined}
	}
	if e.name == "" {
		e.name = name
	}
	imp.ents[name] = e
	return nil
}

func (imp *importer) initializer(t *onnxpb.TensorProto) error {
	if t.GetName() == "" {
		return &TensorError{Name: "", Err: fmt.Errorf("initializer without a name: %w", ErrUndefined)}
	}
	tensor, err := DecodeTensor(t)
	if err != nil {
		return err
	}
	return imp.define(t.GetName(), imp.tensorEntry(tensor, ir.FlagWeight))
}

// tensorEntry wraps a decoded tensor, decoding its values for folding when
// it is small enough.
func (imp *importer) tensorEntry(t *Tensor, flags ir.Flags) *entry {
	e := &entry{typ: ir.TensorType{DType: t.DType, Shape: t.Shape}, typed: true, data: t.Data, flags: flags, id: -1}
	if n, _ := t.Shape.NumElements(); t.Data != nil && foldable(t.DType) && n <= imp.opts.FoldLimit {
		e.k, _ = konstFromBytes(t.DType, t.Shape, t.Data) // sizes were checked by DecodeTensor
	}
	return e
}

func (imp *importer) input(vi *onnxpb.ValueInfoProto) error {
	name := vi.GetName()
	if e, ok := imp.ents[name]; ok && e.flags == ir.FlagWeight {
		return nil // an initializer listed as an input (IR < 4 style): a weight
	}
	t, ok, err := imp.staticType(vi.GetType())
	if !ok {
		return &TensorError{Name: name, Err: fmt.Errorf("graph input: %w", err)}
	}
	id := imp.b.Input(name, t.DType, t.Shape...)
	return imp.define(name, &entry{typ: t, typed: true, id: id})
}

// value returns the ir value for an ONNX name, adding a weight or constant
// on first use.
func (imp *importer) value(name string) (ir.ValueID, error) {
	e, ok := imp.ents[name]
	if !ok {
		return -1, &TensorError{Name: name, Err: ErrUndefined}
	}
	if e.id >= 0 {
		return e.id, nil
	}
	name = e.name
	data := e.data
	if data == nil && e.k != nil {
		data = e.k.bytes()
	}
	switch {
	case e.flags == ir.FlagWeight && data == nil:
		e.id = imp.b.Weight(name, e.typ.DType, e.typ.Shape...)
	case e.flags == ir.FlagWeight:
		e.id = imp.b.WeightData(name, e.typ.DType, data, e.typ.Shape...)
	case data != nil:
		e.id = imp.b.Constant(name, e.typ.DType, data, e.typ.Shape...)
	default:
		return -1, &TensorError{Name: name, Err: fmt.Errorf("constant without data: %w", ErrTensor)}
	}
	return e.id, nil
}

// checkDeclared compares an inferred type with the one the file declares.
func (imp *importer) checkDeclared(name string, t ir.TensorType) error {
	d, ok := imp.declared[name]
	if ok && (d.DType != t.DType || !d.Shape.Equal(t.Shape)) {
		return fmt.Errorf("output %q: the file declares %v, the shape rules give %v: %w", name, d, t, ErrShapeMismatch)
	}
	return nil
}
