package onnx

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memplan/memplan/ir"
)

// zooDir holds the exported model zoo (scripts/export_models.py).
const zooDir = "../testdata/models"

// zooModels lists the graph-only models of the zoo.
var zooModels = []string{"densenet121", "googlenet", "gpt2_tiny", "llama_tiny", "mobilenet_v2", "opaque_convnet", "resnet18", "squeezenet1_1", "unet_small"}

// fullModels lists the models committed with weights and a reference output.
var fullModels = []string{"gpt2_tiny", "llama_tiny", "squeezenet1_1", "unet_small"}

// fusedModels are the zoo models that Options.Fuse changes.
var fusedModels = []string{"gpt2_tiny", "llama_tiny"}

// zooPath is the graph-only file of a zoo model; models with ops outside the
// core set live in the opaque/ subfolder.
func zooPath(m string) string {
	if strings.HasPrefix(m, "opaque_") {
		return filepath.Join(zooDir, "opaque", m+".onnx")
	}
	return filepath.Join(zooDir, m+".onnx")
}

func zooFiles(t testing.TB) []string {
	var files []string
	for _, m := range zooModels {
		files = append(files, zooPath(m))
	}
	for _, m := range fullModels {
		files = append(files, filepath.Join(zooDir, m+"_full", "model.onnx"))
	}
	return files
}

// TestZooImportIsDeterministic imports every zoo file twice and compares the
// printed ir byte for byte; the graph also survives a Parse/Print round trip.
func TestZooImportIsDeterministic(t *testing.T) {
	for _, f := range zooFiles(t) {
		t.Run(f, func(t *testing.T) {
			data, err := os.ReadFile(f)
			must(t, err)
			var out [2]bytes.Buffer
			for i := range out {
				g, err := Import(data, Options{})
				must(t, err)
				must(t, g.Validate())
				must(t, ir.Print(&out[i], g))
			}
			check(t, bytes.Equal(out[0].Bytes(), out[1].Bytes()), "two imports print differently")
			g2, err := ir.Parse(out[0].Bytes())
			must(t, err)
			var again bytes.Buffer
			must(t, ir.Print(&again, g2))
			check(t, bytes.Equal(out[0].Bytes(), again.Bytes()), "Parse/Print round trip differs")
		})
	}
}

// TestZooGraphOnlyMatchesFull: stripping the weights' data keeps the graph:
// the same values, nodes and views, only Data differs.
func TestZooGraphOnlyMatchesFull(t *testing.T) {
	for _, m := range fullModels {
		t.Run(m, func(t *testing.T) {
			a, err := ImportFile(filepath.Join(zooDir, m+".onnx"), Options{})
			must(t, err)
			b, err := ImportFile(filepath.Join(zooDir, m+"_full", "model.onnx"), Options{})
			must(t, err)
			for _, g := range []*ir.Graph{a, b} {
				for _, v := range g.Values {
					v.Data = nil
				}
			}
			var pa, pb bytes.Buffer
			must(t, ir.Print(&pa, a))
			must(t, ir.Print(&pb, b))
			check(t, bytes.Equal(pa.Bytes(), pb.Bytes()), "graph-only and full variants import to different graphs")
			eq(t, len(Unsupported(a)), 0, "every zoo op is in the core set")
		})
	}
}

// TestZooOpaqueModel: a real export with ops outside the core set imports,
// types the opaque nodes from value_info, and says what cannot run.
func TestZooOpaqueModel(t *testing.T) {
	g, err := ImportFile(zooPath("opaque_convnet"), Options{})
	must(t, err)
	eq(t, Unsupported(g), map[string]int{"LeakyRelu": 2, "Resize": 1})
	up := byName(g, "/Resize_output_0")
	notNil(t, up)
	eq(t, up.Shape, ir.Shape{1, 16, 32, 32})
	errIs(t, CheckRunnable(g), ErrUnsupported, "LeakyRelu x2, Resize x1")
}
