package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBarriersText: -barriers appends the barrier section, with causes, to
// the plan's text report.
func TestBarriersText(t *testing.T) {
	var out, errs bytes.Buffer
	path := filepath.Join("..", "..", "testdata", "transformer_block.json")
	if code := run([]string{"-barriers", path}, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	text := out.String()
	for _, want := range []string{"# arena_bytes=", "barriers (schedule order): 22 dispatches", "ggml-compatible mode:", "group sizes (size:groups):", "barrier before #1 q (MatMul): RAW on arena"} {
		assert.Containsf(t, text, want, "report lacks %q:\n%s", want, text)
	}
}

// TestBarriersJSONReorder: on every testdata graph, -reorder -format json
// carries the summary keys beside the plan's, barriers == critical_path-1,
// and exact needs no more barriers than the ggml-compatible mode.
func TestBarriersJSONReorder(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "*.json"))
	if len(files) == 0 {
		t.Skip("no testdata graphs")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			var out, errs bytes.Buffer
			if code := run([]string{"-reorder", "-format", "json", f}, &out, &errs); code != 0 {
				t.Fatalf("exit %d: %s", code, errs.String())
			}
			var m map[string]any
			if err := json.Unmarshal(out.Bytes(), &m); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out.String())
			}
			for _, k := range []string{"dispatches", "barriers", "groups", "critical_path", "barriers_ggml", "arena_bytes", "barrier_causes"} {
				_, ok := m[k]
				require.Truef(t, ok, "JSON lacks %q", k)
			}
			b, cp, gg := m["barriers"].(float64), m["critical_path"].(float64), m["barriers_ggml"].(float64)
			assert.Falsef(t, b != max(cp-1, 0) || b > gg || m["groups"].(float64) != b+1, "barriers %v, critical path %v, ggml %v, groups %v", b, cp, gg, m["groups"])
			n := len(m["barrier_causes"].([]any))
			assert.Equalf(t, b, float64(n), "%d causes for %v barriers", n, b)
		})
	}
}

func TestBarriersErrors(t *testing.T) {
	csv := filepath.Join(t.TempDir(), "tiny.csv")
	err := os.WriteFile(csv, []byte("id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\n"), 0o644)
	require.NoErrorf(t, err, "%v", err)
	graph := filepath.Join("..", "..", "testdata", "mlp.json")
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"DSA input", []string{"-barriers", csv}},
		{"csv format", []string{"-barriers", "-format", "csv", graph}},
		{"reorder on a map", []string{"-reorder", "-format", "svg", graph}},
		{"edges on a map", []string{"-edges", "-format", "html", graph}},
		{"edges of a DSA input", []string{"-edges", csv}},
		{"negative window", []string{"-reorder", "-reorder-window", "-1", graph}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var errs bytes.Buffer
			if code := run(tc.args, io.Discard, &errs); code != 1 {
				t.Fatalf("exit %d, want 1: %s", code, errs.String())
			}
			assert.NotEqualf(t, 0, errs.Len(), "no message on stderr")
		})
	}
}
