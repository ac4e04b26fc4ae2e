package onnx

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/memplan/memplan/ir"
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

// TestReadSetRejects: two reference files for one output (which would leave
// the other output unchecked), a shape that differs from the graph's, and a
// missing file are all errors, reported together, for inputs and outputs.
func TestReadSetRejects(t *testing.T) {
	b := ir.NewBuilder("two")
	x := b.Input("x", ir.F32, 2)
	y := b.Name(b.Op("Relu", nil, x), "y")
	z := b.Name(b.Op("Neg", nil, x), "z")
	b.Output(y, z)
	g, err := b.Build()
	must(t, err)
	f32 := func(name string, n int64) *Tensor {
		return &Tensor{Name: name, DType: ir.F32, Shape: ir.Shape{n}, Data: make([]byte, 4*n)}
	}
	dir := t.TempDir()
	write := func(file string, tt *Tensor) { must(t, WriteTensorFile(filepath.Join(dir, file), tt)) }

	names := [2]string{g.Values[y].Name, g.Values[z].Name}
	write("output_0.pb", f32(names[0], 2))
	write("output_1.pb", f32(names[0], 2)) // y again: z would have no reference
	_, err = ReadOutputs(g, dir)
	errIs(t, err, ErrRedefined, "given twice")

	write("output_1.pb", f32(names[1], 3))
	_, err = ReadOutputs(g, dir)
	errIs(t, err, ErrShapeMismatch, "the graph output is")

	write("output_1.pb", f32("", 2)) // unnamed: goes to z by position
	ref, err := ReadOutputs(g, dir)
	must(t, err)
	eq(t, len(ref), 2)

	write("input_0.pb", f32("x", 3))
	_, err = ReadInputs(g, dir)
	errIs(t, err, ErrShapeMismatch, "the graph input is")
	_, err = ReadInputs(g, t.TempDir())
	check(t, err != nil && strings.Contains(err.Error(), "input_0.pb"), "a missing input file must be an error naming it")
}
