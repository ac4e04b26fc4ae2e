package main

import (
	_ "embed"
	"os"

	"github.com/memplan/memplan/ir"
)

// exampleGraph is a copy of testdata/transformer_block.json: the graph
// planned when no FILE is given.
//
//go:embed example_graph.json
var exampleGraph []byte

func init() {
	loaders[".json"] = loadGraph
	defaultInput = func() (*input, error) {
		g, err := ir.Parse(exampleGraph)
		if err != nil {
			return nil, err
		}
		return &input{Graph: g}, nil
	}
}

// loadGraph reads a memplan graph file (docs/FORMAT.md). The schedule is the
// graph's own order, or the deterministic topological one.
func loadGraph(path string) (*input, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	g, err := ir.Parse(data)
	if err != nil {
		return nil, err
	}
	return &input{Graph: g}, nil
}
