package ir_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/require"
)

// BenchmarkTopoOrder: the deterministic topological order (Kahn's
// algorithm over a priority queue) of each testdata graph.
//
//	go test ./ir -run '^$' -bench BenchmarkTopoOrder
func BenchmarkTopoOrder(b *testing.B) {
	for _, path := range testdataFiles(b) {
		data, err := os.ReadFile(path)
		require.NoErrorf(b, err, "%v", err)
		g, err := ir.Parse(data)
		require.NoErrorf(b, err, "%v", err)
		b.Run(filepath.Base(path), func(b *testing.B) {
			for b.Loop() {
				if _, err := g.TopoOrder(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
