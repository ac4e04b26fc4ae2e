package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/onnx"
)

// runSource is where a -run's inputs came from.
type runSource struct {
	inputs        map[ir.ValueID][]byte       // every value of exec.NeedsData
	describe      string                      // "inputs=random seed=1" or "inputs=DIR"
	randomWeights int                         // weights and constants without data filled at random
	dir           string                      // -input-dir, or ""
	ref           map[ir.ValueID]*onnx.Tensor // DIR/output_N.pb, or nil
}

// runInputs builds the inputs of -run: random ones from -seed (weights and
// constants a graph-only model lacks included, counted in randomWeights),
// or ONNX test data from -input-dir (input_N.pb; the model must carry its
// weights), with the reference outputs output_N.pb when the folder has them.
func runInputs(g *ir.Graph, c runConfig) (*runSource, error) {
	if c.inDir == "" {
		in, err := exec.RandomInputs(g, c.seed)
		if err != nil {
			return nil, err
		}
		src := &runSource{inputs: in, describe: fmt.Sprintf("inputs=random seed=%d", c.seed)}
		for _, id := range exec.NeedsData(g) {
			if g.Values[id].Flags&ir.FlagInput == 0 {
				src.randomWeights++
			}
		}
		return src, nil
	}
	in, err := onnx.ReadInputs(g, c.inDir)
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, id := range exec.NeedsData(g) {
		if _, ok := in[id]; !ok {
			missing = append(missing, g.Values[id].Name)
		}
	}
	if n := len(missing); n > 0 {
		if n > 3 {
			missing = append(missing[:3], fmt.Sprintf("... %d more", n-3))
		}
		return nil, fmt.Errorf("%d weights or constants carry no data (a graph-only file?): %s", n, strings.Join(missing, ", "))
	}
	src := &runSource{inputs: in, describe: "inputs=" + c.inDir, dir: c.inDir}
	if _, err := os.Stat(filepath.Join(c.inDir, "output_0.pb")); err == nil {
		if src.ref, err = onnx.ReadOutputs(g, c.inDir); err != nil {
			return nil, err
		}
	}
	return src, nil
}
