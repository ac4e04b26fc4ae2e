package memranges

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
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
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := a.WriteText(&buf); err != nil {
				t.Fatal(err)
			}
			js, err := json.MarshalIndent(a.Summary, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
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
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("report differs from %s:\n--- got\n%s--- want\n%s", path, buf.Bytes(), want)
			}
		})
	}
}

func TestSummaryKeys(t *testing.T) {
	g, p := tinyGraph(t)
	a, err := Analyze(g, nil, p, AnalyzeOptions{Reorder: true})
	if err != nil {
		t.Fatal(err)
	}
	js, _ := json.Marshal(a.Summary)
	var m map[string]any
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"dispatches", "barriers", "groups", "critical_path", "barriers_ggml"} {
		if _, ok := m[k]; !ok {
			t.Errorf("summary JSON lacks %q: %s", k, js)
		}
	}
	cs := a.Causes()
	if len(cs) != len(a.Barriers) || len(cs) == 0 || cs[0].Hazard != "RAW" || cs[0].Buffer != "arena" || cs[0].Second != a.Barriers[0].Before {
		t.Errorf("causes %+v", cs)
	}
	s := a.Summary
	if s.Dispatches != 4 || s.Barriers != s.CriticalPath-1 || s.Groups != s.Barriers+1 || s.BarriersGGML < s.Barriers {
		t.Errorf("summary %+v", s)
	}
	if _, err := Analyze(g, nil, p, AnalyzeOptions{Reorder: true, Window: -2}); err == nil {
		t.Error("negative window accepted")
	}
}
