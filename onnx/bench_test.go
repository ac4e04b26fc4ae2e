package onnx

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkImport imports the largest graph of the zoo (densenet121, 378
// ONNX nodes, 0.76 MB graph-only file) from bytes.
func BenchmarkImport(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(zooDir, "densenet121.onnx"))
	if err != nil {
		b.Skip(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Import(data, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
