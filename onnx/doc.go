// Package onnx imports ONNX models into memplan's ir.
//
// The importer reads a ModelProto (types generated from onnx.proto in
// package onnxpb) and walks its node list once, in file order. Graph inputs
// become ir inputs, initializers ir weights (with their data, or shape-only
// when a graph-only file keeps dims without data), Constant nodes ir
// constants. Every node whose inputs are all known at import time — Shape of
// a statically shaped value, Gather/Unsqueeze/Concat of shape vectors,
// ConstantOfShape, Range, Equal/Where on constants, arithmetic on them — is
// evaluated in the importer (fold.go) and never reaches the graph; the
// tensor inputs memplan keeps as attributes (Reshape's shape, Slice's
// bounds, Squeeze/Unsqueeze axes, Expand's shape, Pad's pads, Clip's limits)
// are folded into those attributes. The remaining nodes map to core ops
// through ir.Builder, whose shape rules type every output and turn view ops
// (Reshape, Flatten, Squeeze, Unsqueeze, Identity, same-type Cast,
// contiguous Slice) into views; a type the file declares in value_info must
// agree with the rules. An op outside the core set (or a core op with
// attributes memplan cannot run, such as Pad in reflect mode) becomes an
// opaque node typed from value_info: the graph can be planned, and
// CheckRunnable names every such op before a run. With Options.Fuse the
// chains exporters write for LayerNorm, GELU and RMSNorm at opsets without
// those ops are recognised first (fuse.go) and import as one op each.
//
// Calls in order:
//
//	g, err := onnx.ImportFile("model.onnx", onnx.Options{})
//	// plan g with the planner; before running it:
//	if err := onnx.CheckRunnable(g); err != nil { ... } // lists unsupported ops and counts
//	in, err := onnx.ReadTensorFile("test_data_set_0/input_0.pb")
//	// run, then write each output with onnx.WriteTensorFile
//
// Importing the same bytes twice gives the same graph (values are added in
// the order the node list first needs them), so ir.Print output is
// byte-identical. Errors name the ONNX node (*NodeError) or tensor
// (*TensorError) and wrap a sentinel from errors.go. Default-domain opsets
// MinOpset..MaxOpset are accepted; nodes of other domains import as opaque.
package onnx
