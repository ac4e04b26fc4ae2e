package ir_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/require"
)

// BenchmarkParse: decode and validate each testdata graph.
func BenchmarkParse(b *testing.B) {
	for _, path := range testdataFiles(b) {
		data, err := os.ReadFile(path)
		require.NoErrorf(b, err, "%v", err)
		b.Run(filepath.Base(path), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := ir.Parse(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPrint: print each testdata graph.
func BenchmarkPrint(b *testing.B) {
	for _, path := range testdataFiles(b) {
		data, err := os.ReadFile(path)
		require.NoErrorf(b, err, "%v", err)
		g, err := ir.Parse(data)
		require.NoErrorf(b, err, "%v", err)
		b.Run(filepath.Base(path), func(b *testing.B) {
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				if err := ir.Print(&buf, g); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
