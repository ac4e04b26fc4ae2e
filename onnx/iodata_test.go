package onnx

import (
	"path/filepath"
	"testing"
)

func TestInputsOutputsRoundTrip(t *testing.T) {
	for _, m := range fullModels {
		t.Run(m, func(t *testing.T) {
			dir := filepath.Join(zooDir, m+"_full")
			g, err := ImportFile(filepath.Join(dir, "model.onnx"), Options{})
			must(t, err)
			ins, err := ReadInputs(g, filepath.Join(dir, "test_data_set_0"))
			must(t, err)
			eq(t, len(ins), 1)
			ref, err := ReadOutputs(g, filepath.Join(dir, "test_data_set_0"))
			must(t, err)
			outs := map[ir_ValueID][]byte{}
			for id, tt := range ref {
				outs[id] = tt.Data
			}
			tmp := t.TempDir()
			must(t, WriteOutputs(g, outs, tmp))
			back, err := ReadOutputs(g, tmp)
			must(t, err)
			eq(t, back, ref)
			// The outputs are not inputs: reading them as inputs fails on the shape.
			_, err = ReadInputs(g, tmp)
			check(t, err != nil, "reading a directory without input_0.pb must fail")
		})
	}
}
