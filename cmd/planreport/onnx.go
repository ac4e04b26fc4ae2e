package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/memplan/memplan/onnx"
)

// onnxDims and onnxFuse hold this run's -onnx-dims and -onnx-fuse for
// loadONNX (set by the extension's flag hook before any loader runs).
var (
	onnxDims map[string]int64
	onnxFuse *bool
)

func init() {
	loaders[".onnx"] = loadONNX
	register(extension{Name: "onnx", Flags: func(fs *flag.FlagSet) hooks {
		onnxDims = nil
		onnxFuse = fs.Bool("onnx-fuse", false, "import the op chains exporters write for LayerNorm, GELU and RMSNorm as one op each")
		fs.Func("onnx-dims", "bind symbolic ONNX dimensions: `NAME=SIZE[,NAME=SIZE...]` (e.g. batch=1,seq=128); a NAME the model does not have is an error listing the ones it has", func(v string) error {
			dims, err := parseDims(v)
			onnxDims = dims
			return err
		})
		return hooks{}
	}})
}

// loadONNX imports an ONNX model (onnx.ImportFile): every core op maps to
// the ir, other ops import as opaque nodes that can be planned.
func loadONNX(path string) (*input, error) {
	g, err := onnx.ImportFile(path, onnx.Options{DimParams: onnxDims, Fuse: onnxFuse != nil && *onnxFuse, Name: modelName(path)})
	if err != nil {
		return nil, err
	}
	return &input{Graph: g}, nil
}

// modelName names the graph after its file (exporters give most graphs one
// name, torch "torch_jit"): model.onnx takes its folder's name, as in ONNX's
// model-zoo layout (resnet18/model.onnx).
func modelName(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if base == "model" {
		if dir := filepath.Base(filepath.Dir(path)); dir != "." && dir != string(filepath.Separator) {
			return dir
		}
	}
	return base
}

// parseDims parses NAME=SIZE pairs separated by commas.
func parseDims(v string) (map[string]int64, error) {
	out := map[string]int64{}
	for _, kv := range strings.Split(v, ",") {
		name, size, ok := strings.Cut(kv, "=")
		n, err := strconv.ParseInt(size, 10, 64)
		if !ok || name == "" || err != nil || n < 0 {
			return nil, fmt.Errorf("-onnx-dims: %q is not NAME=SIZE", kv)
		}
		out[name] = n
	}
	return out, nil
}
