package planner

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/memplan/memplan/internal/dsagen"
)

// Renewal merges: a lead for p5000 (docs/BENCHMARKS.md, issue 18, the
// eleventh session), kept as a diagnostic; the search does not run it.
//
// Where a band of a perfect instance is cut in time, its height is a
// subset sum of the sizes that end there and of those that start there
// (it renews); for a tall band that is rare anywhere else
// (TestPackableP5000Crux). So the heights that renew at noticeably more
// steps than the heights around them are taken for tall bands, their
// renewal steps for the band's cuts, and between two of them the band
// search looks for a rectangle: buffers of the segment whose live total
// is that height at every step. A rectangle that the cuts then tile at
// that height becomes one block, and the search places the smaller
// instance; the blocks' buffers go where their block goes.

// renewMinScore, renewMaxSteps and renewMaxHeights select the heights: at
// least renewMinScore more renewal steps than the median of the 64
// heights around (32 units either side), at most renewMaxSteps steps, and
// the renewMaxHeights largest of those. renewRectNodes bounds the band
// search of one segment.
const (
	renewMinScore   = 3
	renewMaxSteps   = 24
	renewMaxHeights = 12
	renewRectNodes  = 200_000
	renewMaxUnits   = 1 << 16
)

// renewalHeights returns the heights of a perfect instance (live total c)
// taken for tall bands, largest first, with the steps where each renews.
func renewalHeights(bufs []Buffer, c int64) ([]int64, [][]int64) {
	var unit int64
	for _, b := range bufs {
		unit = gcd64(unit, b.Size)
	}
	if unit == 0 || c/unit > renewMaxUnits {
		return nil, nil
	}
	ends := map[int64][]int64{}
	starts := map[int64][]int64{}
	for _, b := range bufs {
		ends[b.End] = append(ends[b.End], b.Size/unit)
		starts[b.Start] = append(starts[b.Start], b.Size/unit)
	}
	sums := func(sizes []int64) *big.Int {
		r := big.NewInt(1)
		for _, s := range sizes {
			r.Or(r, new(big.Int).Lsh(r, uint(s)))
		}
		return r
	}
	var times []int64
	for t := range ends {
		if _, ok := starts[t]; ok {
			times = append(times, t)
		}
	}
	slices.Sort(times)
	both := make([]*big.Int, len(times))
	top := int(c / unit)
	count := make([]int, top+1)
	for k, t := range times {
		both[k] = new(big.Int).And(sums(ends[t]), sums(starts[t]))
		for h := 1; h < top; h++ {
			if both[k].Bit(h) == 1 {
				count[h]++
			}
		}
	}
	var heights []int64
	var steps [][]int64
	for h := top - 1; h >= 1 && len(heights) < renewMaxHeights; h-- {
		if count[h] < 2 || count[h] > renewMaxSteps {
			continue
		}
		var around []int
		for x := max(h-32, 1); x <= min(h+32, top-1); x++ {
			if x != h {
				around = append(around, count[x])
			}
		}
		slices.Sort(around)
		if count[h]-around[len(around)/2] < renewMinScore {
			continue
		}
		var at []int64
		for k, t := range times {
			if both[k].Bit(h) == 1 {
				at = append(at, t)
			}
		}
		heights = append(heights, int64(h)*unit)
		steps = append(steps, at)
	}
	return heights, steps
}

// rectangleOf looks for buffers among bufs[w] whose live total is h at
// every step of [from, to), by the band search (two sentinel buffers of h
// just before and after the segment make its ends count), the buffers
// too large for the rest of the instance (live total c) decided in. It
// returns their positions in bufs, or nil.
func rectangleOf(bufs []Buffer, w []int, from, to, h, c int64) []int {
	sub := make([]Buffer, 0, len(w)+2)
	for k, i := range w {
		b := bufs[i]
		b.ID = int64(k)
		sub = append(sub, b)
	}
	n := len(w)
	sub = append(sub, Buffer{ID: int64(n), Start: from - 1, End: from, Size: h}, Buffer{ID: int64(n + 1), Start: to, End: to + 1, Size: h})
	g := &guilSearch{ctx: context.Background(), bufs: sub, memo: map[uint64]guilMemo{}}
	b := newGuilBand(g, identity(len(sub)), 1<<62, renewRectNodes)
	for k := range sub {
		if (k >= n || sub[k].Size > c-h) && b.dec[k] == 0 && slices.Contains(b.at[b.sb[k]], k) {
			b.decideClass(k, 1)
		}
	}
	if ok, _ := b.dfs(); !ok {
		return nil
	}
	var out []int
	for _, k := range b.found {
		if k < n {
			out = append(out, w[k])
		}
	}
	return out
}

// renewalMerge returns bufs (perfect, live total c) with the rectangles
// found under renewalHeights' heights as blocks, a function that turns a
// placement of those into one of bufs, and how many rectangles and
// buffers it merged.
func renewalMerge(bufs []Buffer, c int64) ([]Buffer, func([]int64) []int64, int, int) {
	type block struct {
		members  []int
		off      []int64
		from, to int64
		h        int64
	}
	var blocks []block
	used := make([]bool, len(bufs))
	first, last := bufs[0].Start, bufs[0].End
	for _, b := range bufs {
		first, last = min(first, b.Start), max(last, b.End)
	}
	heights, steps := renewalHeights(bufs, c)
	for k, h := range heights {
		pts := slices.Compact(slices.Concat([]int64{first}, steps[k], []int64{last}))
		for j := 0; j+1 < len(pts); j++ {
			var w []int
			for i, b := range bufs {
				if !used[i] && b.Start >= pts[j] && b.End <= pts[j+1] {
					w = append(w, i)
				}
			}
			r := rectangleOf(bufs, w, pts[j], pts[j+1], h, c)
			if len(r) < 2 {
				continue
			}
			sub := make([]Buffer, len(r))
			for q, i := range r {
				sub[q] = bufs[i]
				sub[q].ID = int64(q)
			}
			tiled := isPerfect(sub, h) && LowerBound(sub) == h
			var off []int64
			if tiled {
				off, _, _ = guillotinePlace(context.Background(), sub, h, func(x []Buffer) []int64 { tiled = false; return stackOffsets(x) })
			}
			if !tiled {
				continue
			}
			for _, i := range r {
				used[i] = true
			}
			blocks = append(blocks, block{r, off, pts[j], pts[j+1], h})
		}
	}
	var red []Buffer
	var from []int // per buffer of red: its buffer in bufs, or -1-k for block k
	merged := 0
	for i, b := range bufs {
		if !used[i] {
			b.ID = int64(len(red))
			red = append(red, b)
			from = append(from, i)
		}
	}
	for k, bl := range blocks {
		red = append(red, Buffer{ID: int64(len(red)), Start: bl.from, End: bl.to, Size: bl.h})
		from = append(from, -1-k)
		merged += len(bl.members)
	}
	expand := func(ro []int64) []int64 {
		off := make([]int64, len(bufs))
		for r, i := range from {
			if i >= 0 {
				off[i] = ro[r]
				continue
			}
			bl := blocks[-1-i]
			for q, m := range bl.members {
				off[m] = ro[r] + bl.off[q]
			}
		}
		return off
	}
	return red, expand, len(blocks), merged
}

// TestRenewalMergeExpands: on packable instances, whatever renewalMerge
// merges, the smaller instance has the same LB (it is perfect) and any
// placement of it expands to a valid placement of the buffers with the
// same arena.
func TestRenewalMergeExpands(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(2, 400).Draw(t, "n")
		bufs := blockBuffers(dsagen.Packable(n, packableCapacity, rapid.Uint64().Draw(t, "seed")))
		lb := LowerBound(bufs)
		red, expand, rects, merged := renewalMerge(bufs, lb)
		require.Equal(t, lb, LowerBound(red))
		require.True(t, isPerfect(red, lb))
		require.Len(t, red, len(bufs)-merged+rects)
		ro := portfolioOffsets(red)
		off := expand(ro)
		require.NoError(t, VerifyPlacement(bufs, off))
		require.Equal(t, ArenaSize(red, ro), ArenaSize(bufs, off))
	})
}

// TestRenewalMergeP5000: on p5000 the renewal heights find rectangles of
// strip 3 and the bottom strip (the generator's strips, p5000Strips)
// outside the dense steps.
func TestRenewalMergeP5000(t *testing.T) {
	blocks, labels, _, _ := p5000Strips()
	bufs := blockBuffers(blocks)
	red, expand, rects, merged := renewalMerge(bufs, LowerBound(bufs))
	t.Logf("%d rectangles, %d buffers merged: %d buffers left", rects, merged, len(red))
	assert.Equal(t, len(bufs)-merged+rects, len(red))
	// Which strips the merged buffers come from: a buffer's block is the
	// one whose offset in red its own offset sits at.
	ro := stackOffsets(red)
	off := expand(ro)
	strips := map[int]int{}
	for r, b := range red {
		if int(b.ID) < len(red)-rects {
			continue
		}
		for i := range bufs {
			if off[i] >= ro[r] && off[i] < ro[r]+b.Size && bufs[i].Start >= b.Start && bufs[i].End <= b.End {
				strips[labels[i]]++
			}
		}
	}
	t.Logf("merged buffers by strip: %v", strips)
	assert.Equal(t, merged, strips[0]+strips[1]+strips[2]+strips[3]+strips[4])
}

// BenchmarkPackableRenewalMerges runs the search for 10 s on packable
// instances (seeds 1-5 of 1,000, 2,000 and 5,000 buffers) as they are
// ("plain", arena/LB) and after renewalMerge, with its time taken from the
// 10 s ("merged"), and reports the rectangles and buffers merged:
//
//	go test ./planner -run '^$' -bench BenchmarkPackableRenewalMerges -benchtime 1x
func BenchmarkPackableRenewalMerges(b *testing.B) {
	for _, n := range []int{1000, 2000, 5000} {
		for seed := uint64(1); seed <= 5; seed++ {
			bufs := blockBuffers(dsagen.Packable(n, packableCapacity, seed))
			lb := LowerBound(bufs)
			b.Run(fmt.Sprintf("n%d-seed%d", n, seed), func(b *testing.B) {
				for b.Loop() {
					res, err := Search(context.Background(), bufs, SearchConfig{Budget: 10 * time.Second})
					require.NoError(b, err)
					start := time.Now()
					red, expand, rects, merged := renewalMerge(bufs, lb)
					mres, err := Search(context.Background(), red, SearchConfig{Budget: 10*time.Second - time.Since(start)})
					require.NoError(b, err)
					off := expand(mres.Offsets)
					require.NoError(b, VerifyPlacement(bufs, off))
					b.ReportMetric(float64(res.Arena)/float64(lb), "plain")
					b.ReportMetric(float64(ArenaSize(bufs, off))/float64(lb), "merged")
					b.ReportMetric(float64(rects), "rects")
					b.ReportMetric(float64(merged), "bufs")
				}
			})
		}
	}
}
