package exec_test

import (
	"context"
	"testing"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/cpu"
	"github.com/memplan/memplan/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunRecordsProfile: a run with a profiler records one entry per
// dispatch, one span per group, each dispatch inside its group's span, and
// the run's span.
func TestRunRecordsProfile(t *testing.T) {
	g := rawChain(t)
	in, err := exec.RandomInputs(g, 1)
	require.NoErrorf(t, err, "%v", err)
	for _, mode := range exec.Modes() {
		p, err := compileNaive(g, mode)
		require.NoErrorf(t, err, "%v", err)
		prof := profile.New()
		_, err = exec.RunOnce(context.Background(), cpu.New(cpu.Options{}), p, in, exec.RunOptions{Profiler: prof})
		require.NoErrorf(t, err, "%v", err)
		ds, gs := prof.Dispatches(), prof.Groups()
		if len(ds) != len(p.Dispatches) || len(gs) != len(p.Groups()) || len(prof.Runs()) != 1 {
			t.Fatalf("%v: %d dispatches, %d groups, %d runs recorded; want %d, %d, 1", mode, len(ds), len(gs), len(prof.Runs()), len(p.Dispatches), len(p.Groups()))
		}
		for _, d := range ds {
			require.Falsef(t, d.Group < 0 || d.Group >= len(gs), "%v: dispatch %d in group %d of %d", mode, d.Index, d.Group, len(gs))
			gr := gs[d.Group]
			assert.Falsef(t, d.StartNs < gr.StartNs || d.EndNs > gr.EndNs || d.EndNs < d.StartNs, "%v: dispatch %d [%d,%d) outside its group [%d,%d)", mode, d.Index, d.StartNs, d.EndNs, gr.StartNs, gr.EndNs)
			assert.Falsef(t, d.Kind != "elementwise" || d.Bytes <= 0, "%v: dispatch %d kind %q bytes %d", mode, d.Index, d.Kind, d.Bytes)
		}
	}
}
