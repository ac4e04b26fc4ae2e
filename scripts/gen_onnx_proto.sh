#!/bin/sh
# Regenerates onnx/onnxpb/onnx.pb.go from onnx/onnxpb/onnx.proto.
#
# onnx.proto is copied verbatim from Debian's python3-onnx 1.12.0
# (/usr/lib/python3/dist-packages/onnx/onnx.proto; ONNX is Apache-2.0, see the
# SPDX header in the file). Needs protoc (Debian: protobuf-compiler, 3.21.12)
# and protoc-gen-go at the protobuf version in go.mod:
#
#   GOBIN=/tmp/gobin go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
#   PATH=/tmp/gobin:$PATH scripts/gen_onnx_proto.sh
#
# The go_package comes from an M mapping flag, so the .proto stays unmodified.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root/onnx/onnxpb"
protoc --proto_path=. \
	--go_out=. --go_opt=paths=source_relative \
	--go_opt=Monnx.proto=github.com/memplan/memplan/onnx/onnxpb \
	onnx.proto
