package main

import (
	"encoding/json"
	"testing"
)

// TestGoldenEdges: -edges lists every dependency edge of the embedded
// example with its hazard, buffer and byte ranges, in text and in JSON.
func TestGoldenEdges(t *testing.T) {
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"edges.txt", []string{"-edges"}},
		{"edges.json", []string{"-edges", "-format", "json"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			out, errs, code := runCLI(t, tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			golden(t, tc.golden, out)
		})
	}
}

// TestEdgesJSON: the JSON edge list has as many entries as the summary's
// edge count, each a hazard between a lower and a higher position; without
// -edges the key is absent.
func TestEdgesJSON(t *testing.T) {
	var rep struct {
		Edges     int `json:"edges"`
		EdgeCause []struct {
			From, To  int
			Hazard    string
			Buffer    string
			FromRange [2]int64 `json:"from_range"`
			ToRange   [2]int64 `json:"to_range"`
		} `json:"dependency_edges"`
	}
	out, errs, code := runCLI(t, "-edges", "-reorder", "-format", "json", "../../testdata/wide_diamond.json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Edges == 0 || len(rep.EdgeCause) != rep.Edges {
		t.Fatalf("%d edges listed, summary says %d", len(rep.EdgeCause), rep.Edges)
	}
	kinds := map[string]int{}
	for _, e := range rep.EdgeCause {
		kinds[e.Hazard]++
		overlap := e.FromRange[0] < e.ToRange[1] && e.ToRange[0] < e.FromRange[1]
		if e.From >= e.To || e.Buffer == "" || !overlap {
			t.Errorf("edge %+v: not a hazard between overlapping ranges of one buffer", e)
		}
	}
	if kinds["RAW"] == 0 || kinds["RAW"]+kinds["WAR"]+kinds["WAW"] != len(rep.EdgeCause) {
		t.Errorf("hazard kinds %v", kinds)
	}
	out, _, _ = runCLI(t, "-barriers", "-format", "json")
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m["dependency_edges"]; ok {
		t.Error("dependency_edges present without -edges")
	}
}
