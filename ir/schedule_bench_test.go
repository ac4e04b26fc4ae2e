package ir_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/memplan/memplan/ir"
)

// BenchmarkTopoOrder: the deterministic topological order (Kahn's
// algorithm over a priority queue) of each testdata graph.
//
//	go test ./ir -run '^$' -bench BenchmarkTopoOrder
func BenchmarkTopoOrder(b *testing.B) {
	for _, path := range testdataFiles(b) {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		g, err := ir.Parse(data)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(path), func(b *testing.B) {
			for b.Loop() {
				if _, err := g.TopoOrder(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
