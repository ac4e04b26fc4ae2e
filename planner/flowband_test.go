package planner

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestCirculationWorkedExample is circulation.go's example: without a,
// b and c carry 1 at most, so fixing a at 0 fails, and the cut holds
// boundary 0 alone.
func TestCirculationWorkedExample(t *testing.T) {
	c := newCirc(3)
	a := c.add(0, 2, 0, 2)
	b := c.add(0, 1, 0, 1)
	cc := c.add(1, 2, 0, 1)
	ret := c.add(2, 0, 2, 2)
	require.True(t, c.feasible())
	require.NoError(t, circBalanced(c))
	before := slices.Clone(c.f)

	mark := len(c.trail)
	assert.False(t, c.set(a, 0))
	assert.True(t, c.reached(0))
	assert.False(t, c.reached(1), "b is full")
	assert.False(t, c.reached(2))
	c.undo(mark)
	assert.Equal(t, before, c.f, "undo restores the flows")
	assert.Equal(t, int64(2), c.hi[a])

	require.True(t, c.set(b, 1))
	require.NoError(t, circBalanced(c))
	assert.Equal(t, []int64{1, 1, 1, 2}, []int64{c.f[a], c.f[b], c.f[cc], c.f[ret]})
}

// circBalanced checks a circulation: every flow within its bounds and
// every node balanced.
func circBalanced(c *circ) error {
	net := make([]int64, len(c.adj))
	for e := range c.from {
		if c.f[e] < c.lo[e] || c.f[e] > c.hi[e] {
			return fmt.Errorf("arc %d carries %d outside [%d, %d]", e, c.f[e], c.lo[e], c.hi[e])
		}
		net[c.from[e]] -= c.f[e]
		net[c.to[e]] += c.f[e]
	}
	for v, x := range net {
		if x != 0 {
			return fmt.Errorf("node %d is off by %d", v, x)
		}
	}
	return nil
}

// TestCircBalancedCatchesCorruption: the checker above fails on a flow
// out of its bounds and on an unbalanced node.
func TestCircBalancedCatchesCorruption(t *testing.T) {
	c := newCirc(2)
	e := c.add(0, 1, 0, 3)
	c.add(1, 0, 2, 2)
	require.True(t, c.feasible())
	require.NoError(t, circBalanced(c))
	c.f[e]++
	assert.Error(t, circBalanced(c))
	c.f[e] = 4
	c.hi[e] = 5
	assert.ErrorContains(t, circBalanced(c), "off by")
}

// checkBand checks that band (positions in bufs) has live total h at
// every step of bufs' span.
func checkBand(bufs []Buffer, band []int, h int64) error {
	first, last := bufs[0].Start, bufs[0].End
	for _, b := range bufs {
		first, last = min(first, b.Start), max(last, b.End)
	}
	live := make([]int64, last-first)
	for _, i := range band {
		for s := bufs[i].Start; s < bufs[i].End; s++ {
			live[s-first] += bufs[i].Size
		}
	}
	for s, x := range live {
		if x != h {
			return fmt.Errorf("step %d: live total %d, not %d", int64(s)+first, x, h)
		}
	}
	return nil
}

// TestFlowBandWorkedExample is flowband.go's example.
func TestFlowBandWorkedExample(t *testing.T) {
	bufs := []Buffer{
		{ID: 0, Start: 0, End: 2, Size: 2}, // a
		{ID: 1, Start: 0, End: 1, Size: 3}, // b
		{ID: 2, Start: 1, End: 2, Size: 3}, // c
		{ID: 3, Start: 0, End: 1, Size: 1}, // d
		{ID: 4, Start: 1, End: 2, Size: 1}, // e
	}
	require.True(t, isPerfect(bufs, 6))
	band, h, nodes := flowBand(context.Background(), bufs, 6)
	t.Logf("band %v, height %d, %d nodes", band, h, nodes)
	require.NoError(t, checkBand(bufs, band, h))
	assert.Equal(t, flowBandExample, band)
	assert.Equal(t, flowBandExampleH, h)
	assert.Error(t, checkBand(bufs, band[1:], h), "the checker fails on a band short of a buffer")
}

var (
	flowBandExample  = []int{1, 2}
	flowBandExampleH = int64(3)
)

// bruteBand reports whether bufs (sizes in units) have a band holding
// pivot of height in [lo, hi], by trying every subset.
func bruteBand(bufs []Buffer, pivot int, lo, hi int64) bool {
	n := len(bufs)
	for mask := 0; mask < 1<<n; mask++ {
		if mask&(1<<pivot) == 0 {
			continue
		}
		var band []int
		var h int64
		for i := range n {
			if mask&(1<<i) != 0 {
				band = append(band, i)
			}
		}
		// h is the live total at the pivot's start; a band has it at
		// every step.
		at := bufs[pivot].Start
		for _, i := range band {
			if bufs[i].Start <= at && at < bufs[i].End {
				h += bufs[i].Size
			}
		}
		if h >= lo && h <= hi && checkBand(bufs, band, h) == nil {
			return true
		}
	}
	return false
}

// TestFlowSearchMatchesBruteForce: on random tilings of up to 16
// buffers, the search for a band holding the largest buffer (run to its
// end) finds one exactly when trying every subset does, and what it
// finds is a band. This checks the circulation, the units that follow it
// and the backjumping together: jumping back past every decision, or
// leaving half the cut's arcs out of a dead end's explanation, makes it
// fail.
func TestFlowSearchMatchesBruteForce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bufs, c := srchGenPacked(t, 16)
		if len(bufs) < 2 {
			return
		}
		us, unit := unitSizes(bufs, c)
		told := make([]int8, len(us))
		p := 0
		for i := range us {
			if us[i].Size > us[p].Size {
				p = i
			}
		}
		told[p] = 1
		lo, hi := us[p].Size, c/unit-1
		want := lo <= hi && bruteBand(us, p, lo, hi)
		s := newFlowSearch(context.Background(), us, told, false, lo, hi, 1<<40)
		got := s != nil && s.run()
		if got != want {
			t.Fatalf("flow search found %v, brute force %v (pivot %d, heights [%d, %d])", got, want, p, lo, hi)
		}
		if got {
			var band []int
			for i := range us {
				if s.in(i) {
					band = append(band, i)
				}
			}
			if err := checkBand(us, band, s.height()); err != nil || !slices.Contains(band, p) {
				t.Fatalf("not a band holding the pivot: %v", err)
			}
		}
	})
}

// TestFlowBandAndRectAreBands: on random tilings of up to 60 buffers,
// whatever flowBand and flowRect return is a band holding the largest
// buffer (flowBand) or a rectangle over the span (flowRect), lower than
// the whole.
func TestFlowBandAndRectAreBands(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bufs, c := srchGenPacked(t, 60)
		band, h, _ := flowBand(context.Background(), bufs, c)
		if band != nil {
			if err := checkBand(bufs, band, h); err != nil {
				t.Fatalf("flowBand: %v", err)
			}
			if h <= 0 || h >= c {
				t.Fatalf("flowBand: height %d of %d", h, c)
			}
		}
		first, last := bufs[0].Start, bufs[0].End
		for _, b := range bufs {
			first, last = min(first, b.Start), max(last, b.End)
		}
		h = int64(rapid.Int64Range(1, c).Draw(t, "h"))
		r := flowRect(context.Background(), bufs, identity(len(bufs)), first, last, h, 0, 0)
		if r != nil {
			if err := checkBand(bufs, r, h); err != nil {
				t.Fatalf("flowRect: %v", err)
			}
		}
	})
}
