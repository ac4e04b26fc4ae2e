package memranges

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// TestAnalyzeGolden renders the tiny graph's barrier report in both orders
// and compares it with testdata/*.golden (go test -run Golden -update).
func TestAnalyzeGolden(t *testing.T) {
	g, p := tinyGraph(t)
	for _, tc := range []struct {
		name string
		opts AnalyzeOptions
	}{
		{"tiny_schedule", AnalyzeOptions{}},
		{"tiny_reorder", AnalyzeOptions{Reorder: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Analyze(g, nil, p, tc.opts)
			require.NoErrorf(t, err, "%v", err)
			var buf bytes.Buffer
			if err := a.WriteText(&buf); err != nil {
				t.Fatal(err)
			}
			js, err := json.MarshalIndent(a.Summary, "", "  ")
			require.NoErrorf(t, err, "%v", err)
			buf.Write(js)
			buf.WriteString("\n")
			path := filepath.Join("testdata", tc.name+".golden")
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			require.NoErrorf(t, err, "%v (run with -update to create it)", err)
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("report differs from %s:\n--- got\n%s--- want\n%s", path, buf.Bytes(), want)
			}
		})
	}
}

func TestSummaryKeys(t *testing.T) {
	g, p := tinyGraph(t)
	a, err := Analyze(g, nil, p, AnalyzeOptions{Reorder: true})
	require.NoErrorf(t, err, "%v", err)
	js, _ := json.Marshal(a.Summary)
	var m map[string]any
	err = json.Unmarshal(js, &m)
	require.NoErrorf(t, err, "%v", err)
	for _, k := range []string{"dispatches", "barriers", "groups", "critical_path", "barriers_ggml"} {
		_, ok := m[k]
		assert.Truef(t, ok, "summary JSON lacks %q: %s", k, js)
	}
	cs := a.Causes()
	assert.Falsef(t, len(cs) != len(a.Barriers) || len(cs) == 0 || cs[0].Hazard != "RAW" || cs[0].Buffer != "arena" || cs[0].Second != a.Barriers[0].Before, "causes %+v", cs)
	s := a.Summary
	assert.Falsef(t, s.Dispatches != 4 || s.Barriers != s.CriticalPath-1 || s.Groups != s.Barriers+1 || s.BarriersGGML < s.Barriers, "summary %+v", s)
	_, err = Analyze(g, nil, p, AnalyzeOptions{Reorder: true, Window: -2})
	assert.Errorf(t, err, "negative window accepted")
}
