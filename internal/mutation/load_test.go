package mutation_test

import (
	"os"

	"github.com/memplan/memplan/ir"
)

func irParseFile(path string) (*ir.Graph, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ir.Parse(data)
}
