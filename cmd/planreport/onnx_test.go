package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/onnx"
	"github.com/memplan/memplan/onnx/onnxpb"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const zooDir = "../../testdata/models"

// zooGolden reads testdata/models/plans.golden: model -> buffers, arena, lower bound.
func zooGolden(t *testing.T) map[string][3]int64 {
	f, err := os.Open(filepath.Join(zooDir, "plans.golden"))
	require.NoErrorf(t, err, "%v", err)
	defer f.Close()
	out := map[string][3]int64{}
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		var v [3]int64
		for i, col := range []int{3, 4, 5} {
			v[i], _ = strconv.ParseInt(fs[col], 10, 64)
		}
		out[fs[0]] = v
	}
	require.GreaterOrEqualf(t, len(out), 8, "plans.golden lists %d models", len(out))
	return out
}

// TestONNXJSONSummary: planreport -format json on every graph-only zoo model
// prints the summary keys, with the figures of the golden table.
func TestONNXJSONSummary(t *testing.T) {
	for model, want := range zooGolden(t) {
		t.Run(model, func(t *testing.T) {
			file := filepath.Join(zooDir, model+".onnx")
			if strings.HasPrefix(model, "opaque_") {
				file = filepath.Join(zooDir, "opaque", model+".onnx")
			}
			args := []string{"-format", "json", file}
			if base, ok := strings.CutSuffix(model, "+fuse"); ok {
				args = []string{"-format", "json", "-onnx-fuse", filepath.Join(zooDir, base+".onnx")}
			}
			var out, errb bytes.Buffer
			if code := run(args, &out, &errb); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			var got map[string]any
			err := json.Unmarshal(out.Bytes(), &got)
			require.NoErrorf(t, err, "%v", err)
			for _, k := range []string{"input", "buffers", "arena_bytes", "lower_bound_bytes", "unshared_bytes", "fragmentation_percent", "strategy", "steps", "placements"} {
				_, ok := got[k]
				assert.Truef(t, ok, "summary key %q missing", k)
			}
			have := [3]int64{int64(got["buffers"].(float64)), int64(got["arena_bytes"].(float64)), int64(got["lower_bound_bytes"].(float64))}
			assert.Equalf(t, want, have, "buffers, arena, lower bound = %v, golden table says %v", have, want)
		})
	}
}

// TestONNXRunTestData runs every full model with -run -input-dir
// -output-dir, once per mode, and compares the written outputs with
// PyTorch's (largest error at most 1e-4 of the largest reference element)
// and across modes (bit for bit).
func TestONNXRunTestData(t *testing.T) {
	if testing.Short() {
		t.Skip("runs whole models")
	}
	models, _ := filepath.Glob(filepath.Join(zooDir, "*_full"))
	require.GreaterOrEqualf(t, len(models), 3, "%d full models", len(models))
	for _, dir := range models {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			data := filepath.Join(dir, "test_data_set_0")
			want, err := onnx.ReadTensorFile(filepath.Join(data, "output_0.pb"))
			require.NoErrorf(t, err, "%v", err)
			var first []byte
			for _, mode := range []string{"serial", "inferred", "reordered"} {
				outDir := t.TempDir()
				var out, errb bytes.Buffer
				args := []string{"-run", "-runs", "1", "-mode", mode, "-input-dir", data, "-output-dir", outDir, filepath.Join(dir, "model.onnx")}
				if code := run(args, &out, &errb); code != 0 {
					t.Fatalf("%s: exit %d: %s", mode, code, errb.String())
				}
				if !strings.Contains(out.String(), "max_abs_err") {
					t.Errorf("report does not compare with the reference:\n%s", out.String())
				}
				got, err := onnx.ReadTensorFile(filepath.Join(outDir, "output_0.pb"))
				require.NoErrorf(t, err, "%v", err)
				e := compareOutput(&ir.Value{DType: got.DType, Shape: got.Shape}, got.Data, want)
				var scale float64
				for i := range int64(len(want.Data)) / got.DType.Size() {
					x, _ := element(want.DType, want.Data, i)
					scale = max(scale, math.Abs(x))
				}
				assert.Falsef(t, !e.ok || e.maxAbs > 1e-4*scale, "%s: max absolute error %.3g against PyTorch, largest reference element %.3g (%s)", mode, e.maxAbs, scale, e.why)
				if first == nil {
					first = got.Data
				} else if !bytes.Equal(first, got.Data) {
					t.Errorf("%s: output differs from the serial run", mode)
				}
			}
		})
	}
}

func TestONNXRunErrors(t *testing.T) {
	leaky := writeLeakyModel(t)
	data := filepath.Join(zooDir, "unet_small_full", "test_data_set_0")
	cases := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"output-dir without -run", []string{"-output-dir", t.TempDir(), filepath.Join(zooDir, "unet_small.onnx")}, 1, "need -run"},
		{"graph-only model has no weights to run", []string{"-run", "-input-dir", data, filepath.Join(zooDir, "unet_small.onnx")}, 1, "carry no data"},
		{"missing input file", []string{"-run", "-input-dir", t.TempDir(), filepath.Join(zooDir, "unet_small_full", "model.onnx")}, 1, "input_0.pb"},
		{"opaque ops are listed", []string{"-run", "-input-dir", data, leaky}, 1, "LeakyRelu x1"},
		{"random-input run lists opaque ops with counts", []string{"-run", filepath.Join(zooDir, "opaque", "opaque_convnet.onnx")}, 1, "LeakyRelu x2, Resize x1"},
		{"bad -onnx-dims", []string{"-onnx-dims", "batch", leaky}, 2, "NAME=SIZE"},
		{"-onnx-dims name the model lacks", []string{"-onnx-dims", "batch=1,bacth=2", filepath.Join(zooDir, "large", "resnet18.onnx")}, 1, `binds "bacth", which the model does not have (its symbolic dimensions: batch)`},
		{"-onnx-dims on a model without symbolic dimensions", []string{"-onnx-dims", "batch=1", leaky}, 1, "(its symbolic dimensions: none)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(tc.args, &out, &errb)
			if code != tc.code || !strings.Contains(errb.String(), tc.msg) {
				t.Errorf("exit %d (want %d), stderr %q (want %q)", code, tc.code, errb.String(), tc.msg)
			}
		})
	}
	t.Run("a model with opaque ops still plans", func(t *testing.T) {
		var out, errb bytes.Buffer
		if code := run([]string{leaky}, &out, &errb); code != 0 {
			t.Errorf("exit %d: %s", code, errb.String())
		}
	})
}

// writeLeakyModel writes x[1 3 32 32] -> LeakyRelu -> y, an op outside the core set.
func writeLeakyModel(t *testing.T) string {
	info := func(name string) *onnxpb.ValueInfoProto {
		sh := &onnxpb.TensorShapeProto{}
		for _, d := range []int64{1, 3, 32, 32} {
			sh.Dim = append(sh.Dim, &onnxpb.TensorShapeProto_Dimension{Value: &onnxpb.TensorShapeProto_Dimension_DimValue{DimValue: d}})
		}
		return &onnxpb.ValueInfoProto{Name: proto.String(name), Type: &onnxpb.TypeProto{Value: &onnxpb.TypeProto_TensorType{
			TensorType: &onnxpb.TypeProto_Tensor{ElemType: proto.Int32(int32(onnxpb.TensorProto_FLOAT)), Shape: sh}}}}
	}
	m := &onnxpb.ModelProto{
		OpsetImport: []*onnxpb.OperatorSetIdProto{{Version: proto.Int64(13)}},
		Graph: &onnxpb.GraphProto{Name: proto.String("leaky"), Input: []*onnxpb.ValueInfoProto{info("input")}, Output: []*onnxpb.ValueInfoProto{info("y")},
			Node: []*onnxpb.NodeProto{{OpType: proto.String("LeakyRelu"), Input: []string{"input"}, Output: []string{"y"}}}},
	}
	data, err := proto.Marshal(m)
	require.NoErrorf(t, err, "%v", err)
	path := filepath.Join(t.TempDir(), "leaky.onnx")
	err = os.WriteFile(path, data, 0o644)
	require.NoErrorf(t, err, "%v", err)
	return path
}
