package planner

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memplan/memplan/internal/dsagen"
)

// TestPackableP5000FlowOracle: the flow band search (flowband.go) told
// the generator's band before a step, as TestPackableP5000BandOracle
// tells guilband.go's search. Told everything that starts before step
// 2282 (the dense last 219 steps left to it), it finds a band of the
// strip's height for the two thin strips (mixtures), within its default
// node limit; guilband.go's search finds none for any strip with 61
// steps left. Told nothing, flowBand looks for a band of the 4,916
// buffers left after the cuts' first band (the test prints what it
// finds), where guilband.go's search finds none.
//
// The figures: go test ./planner -run TestPackableP5000FlowOracle -v
func TestPackableP5000FlowOracle(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("a few seconds of flow band search: skipped under -short and -race")
	}
	blocks, labels, cuts, _ := p5000Strips()
	g := int64(dsagen.PackableGranule)
	var bufs []Buffer
	var lab []int
	for i, b := range blocks {
		if labels[i] != 2 {
			bufs = append(bufs, Buffer{ID: int64(len(bufs)), Start: b.Start, End: b.End, Size: b.Size})
			lab = append(lab, labels[i])
		}
	}
	us, unit := unitSizes(bufs, LowerBound(bufs))
	require.Equal(t, g, unit)
	found := map[int]bool{}
	for _, s := range []int{1, 4, 0, 3} {
		h := (cuts[s+1] - cuts[s])
		told := make([]int8, len(us))
		for i, b := range us {
			if b.Start < 2282 {
				told[i] = 2
				if lab[i] == s {
					told[i] = 1
				}
			}
		}
		fs := newFlowSearch(context.Background(), us, told, false, h, h, 0)
		require.NotNil(t, fs)
		found[s] = fs.run()
		by := map[int]int{}
		var band []int
		for i := range us {
			if found[s] && fs.in(i) {
				by[lab[i]]++
				band = append(band, i)
			}
		}
		if found[s] {
			require.NoError(t, checkBand(us, band, h))
		}
		t.Logf("strip %d (%d units), told steps before 2282: found %v in %d nodes (%d buffers to decide), by strip %v", s, h, found[s], fs.nodes, len(fs.order), by)
	}
	assert.True(t, found[1] && found[4], "the two thin strips' heights")

	band, h, nodes := flowBand(context.Background(), bufs, LowerBound(bufs))
	by := map[int]int{}
	for _, i := range band {
		by[lab[i]]++
	}
	if band != nil {
		require.NoError(t, checkBand(bufs, band, h))
	}
	t.Logf("told nothing: a band of %d units, %d buffers, by strip %v, in %d nodes", h/g, len(band), by, nodes)
}
