package onnx

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/memplan/memplan/planner"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// planGolden is the committed table of every zoo model's plan.
var planGolden = filepath.Join(zooDir, "plans.golden")

// TestZooPlansGolden plans every graph-only model with the default options,
// verifies each plan, checks LowerBound <= Arena <= Unshared, and compares
// the table (model, buffers, arena, lower bound) with the golden file.
func TestZooPlansGolden(t *testing.T) {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "%-16s %5s %6s %8s %12s %12s %12s\n", "model", "nodes", "values", "buffers", "arena", "lower_bound", "unshared")
	for _, r := range zooRows("+fuse") {
		m := r.name
		g, err := ImportFile(zooPath(r.model), Options{Fuse: r.fuse})
		must(t, err)
		order, err := g.Schedule()
		must(t, err)
		p, err := planner.PlanGraph(context.Background(), g, order, planner.Options{})
		require.NoErrorf(t, err, "%s: %v", m, err)
		err = p.Verify(g)
		assert.NoErrorf(t, err, "%s: plan does not verify: %v", m, err)
		check(t, p.LowerBoundBytes <= p.ArenaBytes && p.ArenaBytes <= p.UnsharedBytes,
			m, ": want lower bound <= arena <= unshared, have", p.LowerBoundBytes, p.ArenaBytes, p.UnsharedBytes)
		fmt.Fprintf(&buf, "%-16s %5d %6d %8d %12d %12d %12d\n", m, len(g.Nodes), len(g.Values), len(p.Buffers), p.ArenaBytes, p.LowerBoundBytes, p.UnsharedBytes)
	}
	if *update {
		must(t, os.WriteFile(planGolden, buf.Bytes(), 0o644))
	}
	want, err := os.ReadFile(planGolden)
	must(t, err)
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("zoo plans differ from %s (run with -update after checking):\n got:\n%s\nwant:\n%s", planGolden, buf.Bytes(), want)
	}
}

// zooRow is one line of a zoo table: a model, imported plain or fused.
type zooRow struct {
	name, model string
	fuse        bool
}

// zooRows lists every zoo model, then again fused where fusion changes the
// graph, named model+suffix.
func zooRows(fusedSuffix string) []zooRow {
	var rows []zooRow
	for _, m := range zooModels {
		rows = append(rows, zooRow{m, m, false})
	}
	for _, m := range fusedModels {
		rows = append(rows, zooRow{m + fusedSuffix, m, true})
	}
	return rows
}
