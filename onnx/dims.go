package onnx

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/memplan/memplan/onnx/onnxpb"
)

// SymbolicDims returns the names of the symbolic dimensions (dim_param)
// that the graph's inputs, outputs and value_info use, sorted, each once.
func SymbolicDims(m *onnxpb.ModelProto) []string {
	seen := map[string]bool{}
	gp := m.GetGraph()
	for _, vi := range slices.Concat(gp.GetInput(), gp.GetOutput(), gp.GetValueInfo()) {
		for _, d := range vi.GetType().GetTensorType().GetShape().GetDim() {
			if p := d.GetDimParam(); p != "" {
				seen[p] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// checkDimParams reports every name Options.DimParams binds that is not a
// symbolic dimension of the model (a misspelt "bacth" would otherwise be
// ignored), listing the ones the model has.
func checkDimParams(m *onnxpb.ModelProto, bind map[string]int64) error {
	if len(bind) == 0 {
		return nil
	}
	have := SymbolicDims(m)
	var unknown []string
	for name := range bind {
		if _, ok := slices.BinarySearch(have, name); !ok {
			unknown = append(unknown, fmt.Sprintf("%q", name))
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	list := "none"
	if len(have) > 0 {
		list = strings.Join(have, ", ")
	}
	return fmt.Errorf("onnx: DimParams binds %s, which the model does not have (its symbolic dimensions: %s): %w", strings.Join(unknown, ", "), list, ErrDimParam)
}
