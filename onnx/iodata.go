package onnx

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/memplan/memplan/ir"
)

// ONNX test data: a model directory holds test_data_set_N/ folders with
// input_0.pb, input_1.pb, ... (one TensorProto per graph input, in the
// graph's input order) and output_0.pb, ... (the expected outputs). These
// helpers move such files in and out of an imported graph's values.

// InputValues returns the graph's run-time inputs in ONNX input order (the
// importer adds them first, in file order, so this is ascending ID).
func InputValues(g *ir.Graph) []ir.ValueID { return g.ValuesWith(ir.FlagInput) }

// OutputValues returns the graph's outputs by ascending ID. The ir keeps no
// output order of its own; for a single-output model (the common case) this
// is output_0. WriteOutputs names every file's tensor after its value.
func OutputValues(g *ir.Graph) []ir.ValueID { return g.ValuesWith(ir.FlagOutput) }

// ReadInputs reads input_<i>.pb from dir for every graph input. A tensor
// whose name is a graph input's name goes to that input; an unnamed one to
// the input at its position. Dtype and shape must match the graph's. Every
// problem is reported (errors.Join).
func ReadInputs(g *ir.Graph, dir string) (map[ir.ValueID][]byte, error) {
	ts, err := readSet(g, InputValues(g), dir, "input")
	if err != nil {
		return nil, err
	}
	out := make(map[ir.ValueID][]byte, len(ts))
	for id, t := range ts {
		out[id] = t.Data
	}
	return out, nil
}

// WriteOutputs writes output_<i>.pb into dir (created if needed) for the
// graph outputs in OutputValues order; outs holds each output's dense bytes.
func WriteOutputs(g *ir.Graph, outs map[ir.ValueID][]byte, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("onnx: %w", err)
	}
	for i, id := range OutputValues(g) {
		v := g.Values[id]
		data, ok := outs[id]
		if !ok {
			return &TensorError{Name: v.Name, Err: fmt.Errorf("no data for graph output: %w", ErrUndefined)}
		}
		t := &Tensor{Name: v.Name, DType: v.DType, Shape: v.Shape, Data: data}
		if err := WriteTensorFile(filepath.Join(dir, fmt.Sprintf("output_%d.pb", i)), t); err != nil {
			return err
		}
	}
	return nil
}

// ReadOutputs reads output_<i>.pb from dir for every graph output (the
// reference a run is compared with), matched like ReadInputs.
func ReadOutputs(g *ir.Graph, dir string) (map[ir.ValueID]*Tensor, error) {
	return readSet(g, OutputValues(g), dir, "output")
}

// readSet reads <kind>_<i>.pb from dir for each of ids (the graph's inputs
// or outputs, kind "input" or "output"). A tensor named after one of ids
// goes to that value, any other to ids[i]. A file that cannot be read, a
// dtype or shape that differs from the value's, or a value given twice is
// an error; all of them are reported, joined. A value given twice would
// otherwise leave another without data, unnoticed.
func readSet(g *ir.Graph, ids []ir.ValueID, dir, kind string) (map[ir.ValueID]*Tensor, error) {
	byName := map[string]ir.ValueID{}
	for _, id := range ids {
		byName[g.Values[id].Name] = id
	}
	out := map[ir.ValueID]*Tensor{}
	var errs []error
	for i := range ids {
		path := filepath.Join(dir, fmt.Sprintf("%s_%d.pb", kind, i))
		t, err := ReadTensorFile(path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		id, ok := byName[t.Name]
		if !ok {
			id = ids[i]
		}
		v := g.Values[id]
		if t.DType != v.DType || !t.Shape.Equal(v.Shape) {
			errs = append(errs, &TensorError{Name: v.Name, Err: fmt.Errorf("%s holds %v%v, the graph %s is %v: %w", path, t.DType, t.Shape, kind, v.Type(), ErrShapeMismatch)})
			continue
		}
		if _, dup := out[id]; dup {
			errs = append(errs, &TensorError{Name: v.Name, Err: fmt.Errorf("%s: %s given twice: %w", path, kind, ErrRedefined)})
			continue
		}
		out[id] = t
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}
