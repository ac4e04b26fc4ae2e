package metal

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/memplan/memplan/internal/longtest"
	"github.com/memplan/memplan/onnx"
)

// zooGraphs imports the model zoo under testdata/models (graph-only
// models and the model.onnx of the *_full directories).
func zooGraphs(t *testing.T) []corpusGraph {
	t.Helper()
	dir := filepath.Join(moduleRoot(t), "testdata", "models")
	paths, _ := filepath.Glob(filepath.Join(dir, "*.onnx"))
	full, _ := filepath.Glob(filepath.Join(dir, "*_full", "model.onnx"))
	paths = append(paths, full...)
	sort.Strings(paths)
	var out []corpusGraph
	for _, p := range paths {
		g, err := onnx.ImportFile(p, onnx.Options{})
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		name, _ := filepath.Rel(dir, p)
		out = append(out, corpusGraph{strings.TrimSuffix(name, ".onnx"), g})
	}
	return out
}

// allGraphs is the Linux test corpus: the op-coverage graphs, every
// testdata/*.json graph, and the model zoo when long cases are on
// (internal/longtest: CI sets MEMPLAN_LONG_TESTS=1; emulating the zoo takes
// most of a minute on two cores) and neither -short nor -race is.
func allGraphs(t *testing.T) []corpusGraph {
	t.Helper()
	gs := append(opGraphs(t), testdataGraphs(t)...)
	if !testing.Short() && !raceEnabled && longtest.Enabled() {
		gs = append(gs, zooGraphs(t)...)
	}
	return gs
}
