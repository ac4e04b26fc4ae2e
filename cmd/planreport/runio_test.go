package main

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/onnx"
	"github.com/memplan/memplan/onnx/onnxpb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func f32s(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
}

// writeAddModel writes y = Relu(x + w), x and w f32[2 3], into dir/addrelu/model.onnx
// (w as an initializer, with its data unless graphOnly) and, unless
// graphOnly, a test-data folder dir/data with input_0.pb (x = 1 -2 3 -4 5 -6,
// so y = 1.5 0 3.5 0 5.5 0 with w = 0.5) and an output_0.pb that is off by
// 0.001 at [1,0] (relative error 1: the reference is 0.001, we compute 0)
// and by 0.5 at [1,1] (the largest absolute error).
func writeAddModel(t *testing.T, dir string, graphOnly bool) (model, data string) {
	t.Helper()
	info := func(name string) *onnxpb.ValueInfoProto {
		sh := &onnxpb.TensorShapeProto{}
		for _, d := range []int64{2, 3} {
			sh.Dim = append(sh.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
		}
		return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
			TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)), Shape: sh}}}}
	}
	w := &onnxpb.TensorProto{Name: proto.String("w"), Dims: []int64{2, 3}, DataType: proto.Int32(int32(onnxpb.TensorProto_FLOAT))}
	if !graphOnly {
		w.RawData = f32s(0.5, 0.5, 0.5, 0.5, 0.5, 0.5)
	}
	m := &onnxpb.ModelProto{
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Version: proto.Int64(13)}},
		Graph: &onnxpb.GraphProto{Name: proto.String("addrelu"), Input: []*onnxpb.ValueInfoProto{info("x")}, Output: []*onnxpb.ValueInfoProto{info("y")},
			Initializer: []*onnxpb.TensorProto{w},
			Node: []*onnxpb.NodeProto{
				{OpType: proto.String("Add"), Input: []string{"x", "w"}, Output: []string{"s"}},
				{OpType: proto.String("Relu"), Input: []string{"s"}, Output: []string{"y"}},
			}},
	}
	b, err := proto.Marshal(m)
	require.NoErrorf(t, err, "%v", err)
	err = os.MkdirAll(filepath.Join(dir, "addrelu"), 0o755)
	require.NoErrorf(t, err, "%v", err)
	model = filepath.Join(dir, "addrelu", "model.onnx")
	err = os.WriteFile(model, b, 0o644)
	require.NoErrorf(t, err, "%v", err)
	if graphOnly {
		return model, ""
	}
	data = filepath.Join(dir, "data")
	err = os.MkdirAll(data, 0o755)
	require.NoErrorf(t, err, "%v", err)
	for name, v := range map[string][]byte{
		"input_0.pb":  f32s(1, -2, 3, -4, 5, -6),
		"output_0.pb": f32s(1.5, 0, 3.5, 0.001, 5, 0),
	} {
		tn := "x"
		if strings.HasPrefix(name, "output") {
			tn = "y"
		}
		if err := onnx.WriteTensorFile(filepath.Join(data, name), &onnx.Tensor{Name: tn, DType: ir.F32, Shape: ir.Shape{2, 3}, Data: v}); err != nil {
			t.Fatal(err)
		}
	}
	return model, data
}

// normRun masks what changes between runs of the same command: wall times,
// the worker count, and the temporary folder.
func normRun(s, dir string) string {
	s = strings.ReplaceAll(s, dir, "DIR")
	s = regexp.MustCompile(`workers=\d+`).ReplaceAllString(s, "workers=N")
	return regexp.MustCompile(`(?m)^((?:serial|inferred|reordered) +\d+ +\d+ +\d+) +[0-9.]+ +[0-9.]+$`).ReplaceAllString(s, "$1  T  T")
}

// TestGoldenRunInputDir: -run -input-dir takes the random-input path (mode
// table with one row per mode, output table) and adds, per output, the
// largest absolute and relative errors against output_N.pb with the
// elements where they occur; -output-dir writes the outputs.
func TestGoldenRunInputDir(t *testing.T) {
	dir := t.TempDir()
	model, data := writeAddModel(t, dir, false)
	outDir := filepath.Join(dir, "out")
	out, errs, code := runCLI(t, "-run", "-runs", "2", "-input-dir", data, "-output-dir", outDir, model)
	require.Equalf(t, 0, code, "exit %d: %s", code, errs)
	assert.Equalf(t, "", errs, "stderr %q, want nothing (the model carries its weights)", errs)
	golden(t, "run_input_dir.txt", normRun(out, dir))
	got, err := onnx.ReadTensorFile(filepath.Join(outDir, "output_0.pb"))
	require.NoErrorf(t, err, "%v", err)
	if string(got.Data) != string(f32s(1.5, 0, 3.5, 0, 5.5, 0)) {
		t.Errorf("output_0.pb holds %v", got.Data)
	}
}

// TestGoldenRunRandomWeights: a graph-only model runs on random weights:
// one notice on stderr with the count and the seed, and a note in the
// report that the outputs are not comparable to any reference.
func TestGoldenRunRandomWeights(t *testing.T) {
	dir := t.TempDir()
	model, _ := writeAddModel(t, dir, true)
	out, errs, code := runCLI(t, "-run", "-runs", "1", "-seed", "7", model)
	require.Equalf(t, 0, code, "exit %d: %s", code, errs)
	want := "planreport: -run: 1 weights or constants carry no data and hold random values (seed 7): the outputs are not comparable to any reference\n"
	assert.Equalf(t, want, errs, "stderr %q, want %q", errs, want)
	golden(t, "run_random_weights.txt", normRun(out, dir))
	// A model that carries its weights says nothing (random inputs only).
	full, _ := writeAddModel(t, t.TempDir(), false)
	out, errs, code = runCLI(t, "-run", "-runs", "1", "-mode", "serial", full)
	assert.Falsef(t, code != 0 || errs != "" || strings.Contains(out, "not comparable"), "exit %d, stderr %q, report:\n%s\nnotice for a model that carries its weights", code, errs, out)
}

// TestRunInputDirProfiles: -timings, -profile and -trace work with
// -input-dir as with random inputs: the tables cover every timed run of
// every mode and the files are written.
func TestRunInputDirProfiles(t *testing.T) {
	dir := t.TempDir()
	model, data := writeAddModel(t, dir, false)
	prof, trace := filepath.Join(dir, "p.pb.gz"), filepath.Join(dir, "t.json")
	out, errs, code := runCLI(t, "-run", "-runs", "3", "-input-dir", data, "-profile", prof, "-trace", trace, model)
	require.Equalf(t, 0, code, "exit %d: %s", code, errs)
	for _, want := range []string{"# profile: 9 timed runs", "## slowest dispatches", "## time per op kind", "max_abs_err"} {
		assert.Containsf(t, out, want, "report lacks %q:\n%s", want, out)
	}
	for _, f := range []string{prof, trace} {
		st, err := os.Stat(f)
		assert.Falsef(t, err != nil || st.Size() == 0, "%s not written: %v", f, err)
	}
}

// TestCompareOutput: the errors and where they occur, on the cases that
// need care: zero references, NaN, integers, and a dtype without numbers.
func TestCompareOutput(t *testing.T) {
	v := &ir.Value{DType: ir.F32, Shape: ir.Shape{2, 2}}
	ref := func(b []byte) *onnx.Tensor { return &onnx.Tensor{Data: b} }
	nan := float32(math.NaN())
	for _, c := range []struct {
		name      string
		got, want []byte
		cols      string
	}{
		{"equal", f32s(1, 2, 3, 4), f32s(1, 2, 3, 4), "0\t[0,0]\t0\t0\t0\t[0,0]"},
		{"abs and rel at different elements", f32s(1, 2, 3, 8), f32s(1, 0.5, 3, 4), "4\t[1,1]\t8\t4\t3\t[0,1]"},
		{"zero reference", f32s(0, 1, 0, 0), f32s(0, 0, 0, 0), "1\t[0,1]\t1\t0\t+Inf\t[0,1]"},
		{"NaN on one side", f32s(1, nan, 3, 4), f32s(1, 2, 3, 4), "+Inf\t[0,1]\tNaN\t2\t+Inf\t[0,1]"},
		{"NaN on both sides", f32s(1, nan, 3, 4), f32s(1, nan, 3, 4), "0\t[0,0]\t0\t0\t0\t[0,0]"},
		{"size mismatch", f32s(1, 2, 3, 4), f32s(1, 2, 3), "size 16 B vs reference 12 B\t-\t-\t-\t-\t-"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := compareOutput(v, c.got, ref(c.want)).columns()
			assert.Equalf(t, c.cols, got, "columns %q, want %q", got, c.cols)
		})
	}
	iv := &ir.Value{DType: ir.I32, Shape: ir.Shape{3}}
	i32 := func(v ...int32) []byte {
		b := make([]byte, 4*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
		}
		return b
	}
	got := compareOutput(iv, i32(1, -5, 3), ref(i32(1, 5, 3))).columns()
	assert.Equalf(t, "10\t[1]\t-5\t5\t2\t[1]", got, "i32: %q", got)
	hv := &ir.Value{DType: ir.F16, Shape: ir.Shape{2}}
	got = compareOutput(hv, []byte{1, 2, 3, 4}, ref([]byte{1, 2, 3, 5})).columns()
	assert.Truef(t, strings.HasPrefix(got, "bytes differ"), "f16: %q", got)
}
