package planner

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memplan/memplan/internal/dsagen"
)

// bandOracle runs guilband.go's search on set (live total c) for the band
// of strip s, with every buffer that starts before step from decided as
// the generator's tiling has it (in the band if labels says s; those held
// in a fluid stay to the search). It returns whether a band was found
// within limit nodes, the nodes used, and the band's height (bytes) and
// buffers by strip.
func bandOracle(bufs []Buffer, labels, set []int, c int64, s int, from, limit int64) (bool, int64, int64, map[int]int) {
	g := &guilSearch{ctx: context.Background(), bufs: bufs} // dfs reads only these
	b := newGuilBand(g, set, c, limit)
	b.depth = 1
	for k, i := range set {
		fluid := b.eb[k] == b.sb[k]+1 && b.fluid[b.sb[k]] != nil
		if b.dec[k] != 0 || fluid || bufs[i].Start >= from {
			continue
		}
		d := int8(2)
		if labels[i] == s {
			d = 1
		}
		b.decideClass(k, d)
	}
	ok, _ := b.dfs()
	by := map[int]int{}
	for _, i := range b.found {
		by[labels[i]]++
	}
	return ok, g.nodes, b.foundH, by
}

// TestPackableP5000BandOracle: where the band search fails on p5000's
// piece without a band (every strip but the one of 84 buffers the cuts
// take off), even told the answer on all but the last steps. The
// generator's tiling decides every buffer that starts before a step,
// and the search looks for the rest of one strip's band; the piece's
// last 219 steps are the dense ones (docs/BENCHMARKS.md).
//
//   - Told all but the last step, it finds a band of the strip's height
//     for every strip (a mixture at most in a few small buffers).
//   - Told all but the last 61 steps, it finds none within 2 million
//     nodes, for any strip.
//   - For the top strip, told all but the last 6 steps, it runs out of
//     bands well within the limit: a band that takes amounts of two
//     neighbouring fluids is not tried (guilfluid.go), and the
//     generator's is such a band.
//
// The figures: go test ./planner -run TestPackableP5000BandOracle -v
func TestPackableP5000BandOracle(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("a few seconds of band search, one goroutine: skipped under -short and -race")
	}
	blocks, labels, cuts, counts := p5000Strips()
	require.Equal(t, []int64{0, 4548, 5074, 7574, 16042, 16384}, cuts)
	require.Equal(t, 84, counts[2], "the strip the cuts take off first")
	bufs := blockBuffers(blocks)
	var set []int
	for i := range blocks {
		if labels[i] != 2 {
			set = append(set, i)
		}
	}
	g := int64(dsagen.PackableGranule)
	c := (cuts[len(cuts)-1] - (cuts[3] - cuts[2])) * g
	const limit = 2_000_000
	for _, s := range []int{1, 4, 0, 3} {
		h := (cuts[s+1] - cuts[s]) * g
		for _, from := range []int64{2500, 2490, 2480, 2460, 2440} {
			ok, nodes, bh, by := bandOracle(bufs, labels, set, c, s, from, limit)
			t.Logf("strip %d (%d units): told steps before %d: found %v in %d nodes, height %d units, by strip %v", s, h/g, from, ok, nodes, bh/g, by)
			switch from {
			case 2500:
				assert.Truef(t, ok, "strip %d, told all but the last step", s)
				assert.Equal(t, h, bh)
			case 2440:
				assert.Falsef(t, ok, "strip %d, told all but the last 61 steps", s)
			}
		}
	}
	ok, nodes, _, _ := bandOracle(bufs, labels, set, c, 4, 2495, limit)
	assert.False(t, ok)
	assert.Less(t, nodes, int64(limit), "the top strip's band is ruled out, not out of reach")
	t.Logf("top strip, told steps before 2495: no band, the search over in %d nodes", nodes)
}
