package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
			require.Equalf(t, 0, code, "exit %d: %s", code, errs)
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
	require.Equalf(t, 0, code, "exit %d: %s", code, errs)
	err := json.Unmarshal([]byte(out), &rep)
	require.NoErrorf(t, err, "%v", err)
	require.Falsef(t, rep.Edges == 0 || len(rep.EdgeCause) != rep.Edges, "%d edges listed, summary says %d", len(rep.EdgeCause), rep.Edges)
	kinds := map[string]int{}
	for _, e := range rep.EdgeCause {
		kinds[e.Hazard]++
		overlap := e.FromRange[0] < e.ToRange[1] && e.ToRange[0] < e.FromRange[1]
		assert.Falsef(t, e.From >= e.To || e.Buffer == "" || !overlap, "edge %+v: not a hazard between overlapping ranges of one buffer", e)
	}
	assert.Falsef(t, kinds["RAW"] == 0 || kinds["RAW"]+kinds["WAR"]+kinds["WAW"] != len(rep.EdgeCause), "hazard kinds %v", kinds)
	out, _, _ = runCLI(t, "-barriers", "-format", "json")
	var m map[string]any
	err = json.Unmarshal([]byte(out), &m)
	require.NoErrorf(t, err, "%v", err)
	_, ok := m["dependency_edges"]
	assert.Falsef(t, ok, "dependency_edges present without -edges")
}
