package onnx

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/memplan/memplan/ir"
)

// largeModels are the GPU study's torchvision CNNs at 224x224 (inception_v3
// at 299x299) with a symbolic batch, in testdata/models/large
// (scripts/export_models.py large).
var largeModels = []struct {
	name string
	side int64
}{
	{"densenet121", 224}, {"googlenet", 224}, {"inception_v3", 299},
	{"mobilenet_v2", 224}, {"resnet18", 224}, {"squeezenet1_1", 224},
}

// TestLargeModelsBindBatch imports every large model at batch 1 and 8: the
// bound batch reaches the input and the logits, the graph validates and has
// no opaque op, and without the binding the import fails naming the dim.
func TestLargeModelsBindBatch(t *testing.T) {
	for _, m := range largeModels {
		name, side := m.name, m.side
		path := filepath.Join(zooDir, "large", name+".onnx")
		t.Run(name, func(t *testing.T) {
			for _, batch := range []int64{1, 8} {
				g, err := ImportFile(path, Options{DimParams: map[string]int64{"batch": batch}})
				must(t, err)
				must(t, g.Validate())
				must(t, CheckRunnable(g))
				in, out := InputValues(g), OutputValues(g)
				check(t, len(in) == 1 && len(out) == 1, "inputs", in, "outputs", out)
				want := ir.Shape{batch, 3, side, side}
				check(t, g.Values[in[0]].Shape.Equal(want), "input", g.Values[in[0]].Shape, "want", want)
				check(t, g.Values[out[0]].Shape.Equal(ir.Shape{batch, 1000}), "output", g.Values[out[0]].Shape)
			}
			_, err := ImportFile(path, Options{})
			check(t, errors.Is(err, ErrNoShape), "import without a batch binding:", err)
		})
	}
}
