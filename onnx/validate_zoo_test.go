package onnx

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEveryModelValidates: every zoo model (large ones with batch 1) and
// every testdata graph imports and passes ir's Validate, attribute schemas
// included (ir/op_attrs.go): the schemas reject nothing real.
func TestEveryModelValidates(t *testing.T) {
	var files []string
	for _, pat := range []string{"../testdata/models/*.onnx", "../testdata/models/*/*.onnx"} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	for _, f := range files {
		opts := Options{}
		if filepath.Base(filepath.Dir(f)) == "large" {
			opts.DimParams = map[string]int64{"batch": 1}
		}
		g, err := ImportFile(f, opts)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		err = g.Validate()
		assert.NoErrorf(t, err, "%s: %v", f, err)
	}
	js, _ := filepath.Glob("../testdata/*.json")
	for _, f := range js {
		data, _ := os.ReadFile(f)
		_, err := ir.Parse(data)
		assert.NoErrorf(t, err, "%s: %v", f, err)
	}
	require.Falsef(t, len(files) == 0 || len(js) == 0, "found %d models and %d graphs", len(files), len(js))
}
