// Package onnxpb holds the Go types generated from ONNX's onnx.proto
// (ModelProto, GraphProto, NodeProto, TensorProto, ...). The code is generated;
// do not edit onnx.pb.go by hand: run scripts/gen_onnx_proto.sh (or
// go generate ./onnx/onnxpb) to reproduce it.
package onnxpb

//go:generate sh ../../scripts/gen_onnx_proto.sh
