package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var llamaTiny = filepath.Join("..", "..", "testdata", "models", "llama_tiny.onnx")

// TestFrontierJSON: the schema of issue 14, points ordered by barriers
// with the arena never growing, the first at the data chain.
func TestFrontierJSON(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"frontier", "-format", "json", llamaTiny}, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	var f struct {
		Points []struct {
			Barriers     int   `json:"barriers"`
			CriticalPath int   `json:"critical_path"`
			Arena        int64 `json:"arena_bytes"`
			LowerBound   int64 `json:"lower_bound_bytes"`
		} `json:"points"`
		DataChain int `json:"data_chain"`
	}
	if err := json.Unmarshal(out.Bytes(), &f); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	require.Falsef(t, len(f.Points) < 2 || f.DataChain == 0 || f.Points[0].CriticalPath != f.DataChain, "points %+v, data chain %d", f.Points, f.DataChain)
	for i := 1; i < len(f.Points); i++ {
		p, q := f.Points[i], f.Points[i-1]
		assert.Falsef(t, p.Barriers < q.Barriers || p.Arena > q.Arena || p.Arena < p.LowerBound, "point %d %+v after %+v", i, p, q)
	}
}

// TestObjectiveFlag: -objective reaches the plan (the concurrency plan's
// critical path is the data chain), and an unknown one is refused.
func TestObjectiveFlag(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"-objective", "concurrency", "-reorder", "-format", "json", llamaTiny}, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	var s struct {
		CriticalPath int `json:"critical_path"`
		DataChain    int `json:"data_chain"`
		Sharing      int `json:"sharing_barriers"`
		GGMLWindow   int `json:"barriers_ggml_window"`
	}
	err := json.Unmarshal(out.Bytes(), &s)
	require.NoErrorf(t, err, "%v", err)
	assert.Falsef(t, s.CriticalPath != s.DataChain || s.Sharing != 0 || s.GGMLWindow < s.CriticalPath-1, "concurrency plan: %+v", s)
	out.Reset()
	errs.Reset()
	if code := run([]string{"-objective", "speed", llamaTiny}, &out, &errs); code == 0 || !strings.Contains(errs.String(), "objective") {
		t.Errorf("unknown objective: exit %d, %q", code, errs.String())
	}
}

// TestObjectivesTable: one Markdown row per model with four "a / b"
// cells: arena / critical path for each objective, and ggml's barriers on
// the memory and the concurrency plans.
func TestObjectivesTable(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"objectives", "-format", "markdown", llamaTiny}, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[2], "| llama_tiny | ") || strings.Count(lines[2], " / ") != 4 {
		t.Errorf("table:\n%s", out.String())
	}
	code := run([]string{"frontier"}, &out, &errs)
	assert.Equalf(t, 2, code, "frontier without FILE: exit %d, want 2", code)
}

// TestFrontierFlag: -frontier adds the plot to the HTML map.
func TestFrontierFlag(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"-format", "html", "-frontier", "-objective", "balanced", llamaTiny}, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	html := out.String()
	assert.Falsef(t, !strings.Contains(html, `id="frontier"`) || strings.Count(html, `fill="#36c"`) != 1, "no frontier plot with the current plan marked")
}

// TestObjectiveNeedsGraph: a DSA instance has nothing to group.
func TestObjectiveNeedsGraph(t *testing.T) {
	var out, errs bytes.Buffer
	csv := filepath.Join("testdata", "tiny.csv")
	if code := run([]string{"-objective", "concurrency", csv}, &out, &errs); code != 2 || !strings.Contains(errs.String(), "needs a graph") {
		t.Errorf("exit %d, %q", code, errs.String())
	}
	code := run([]string{"frontier", csv}, &out, &errs)
	assert.NotEqualf(t, 0, code, "frontier of a DSA instance succeeded")
}
