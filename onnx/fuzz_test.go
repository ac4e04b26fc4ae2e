package onnx

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/onnx/onnxpb"
)

// FuzzImport feeds arbitrary bytes to the importer: any error is fine, a
// panic is not, and a graph it returns must validate and print.
func FuzzImport(f *testing.F) {
	// The zoo files (tens of KB) run as seeds in every plain `go test`. While
	// fuzzing they are left out: with seeds that large Go's coverage-guided
	// mutator stalls at 0 execs/s (measured with go1.26), and the small
	// hand-made seeds below reach the same code.
	fuzzing := flag.Lookup("test.fuzz") != nil && flag.Lookup("test.fuzz").Value.String() != ""
	for _, m := range []string{"unet_small", "gpt2_tiny", "llama_tiny", "resnet18"} {
		if fuzzing {
			break
		}
		if data, err := os.ReadFile(filepath.Join(zooDir, m+".onnx")); err == nil {
			f.Add(data)
		}
	}
	seeds := []gdef{
		{inputs: []*onnxpb_VI{vi("x", tF32, 1, 16, 64)}, outputs: []*onnxpb_VI{vi("y", tF32, 16, 64)}, nodes: []*onnxpb_Node{
			node("Shape", []string{"x"}, []string{"s"}), constNode("i", i64s("i", []int64{1}, -1)),
			node("Gather", []string{"s", "i"}, []string{"d"}), constNode("m", i64s("m", []int64{1}, -1)),
			node("Concat", []string{"m", "d"}, []string{"sh"}, aInt("axis", 0)),
			node("Reshape", []string{"x", "sh"}, []string{"y"})}},
		{inputs: []*onnxpb_VI{vi("x", tF32, 1, 1, 5, 5)}, outputs: []*onnxpb_VI{vi("y", tF32, 1, 2, 3, 3)},
			inits: []*onnxpb.TensorProto{shapeOnly("w", 2, 1, 4, 4)}, infos: []*onnxpb_VI{vi("z", tF32, 1, 2, 3, 3)},
			nodes: []*onnxpb_Node{node("Conv", []string{"x", "w"}, []string{"z"}, aStr("auto_pad", "SAME_UPPER"), aInts("strides", 2, 2)),
				node("LeakyRelu", []string{"z"}, []string{"y"})}},
	}
	seeds = append(seeds, layerNormChain([]int64{8}), geluChain(0.5), rmsChain(true))
	for _, d := range seeds {
		f.Add(d.bytes(f))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, fuse := range []bool{false, true} {
			g, err := Import(data, Options{FoldLimit: 1 << 12, Fuse: fuse})
			if err != nil {
				continue
			}
			if err := g.Validate(); err != nil {
				t.Fatalf("imported graph (fuse %v) does not validate: %v", fuse, err)
			}
			if err := ir.Print(io.Discard, g); err != nil {
				t.Fatalf("imported graph (fuse %v) does not print: %v", fuse, err)
			}
		}
	})
}
