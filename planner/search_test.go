package planner

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/memplan/memplan/internal/dsagen"
)

// srchInput12 is minimalloc's 5-buffer example; its optimum is 12.
func srchInput12() []Buffer {
	return []Buffer{
		{ID: 1, Start: 0, End: 3, Size: 4},
		{ID: 2, Start: 3, End: 9, Size: 4},
		{ID: 3, Start: 0, End: 9, Size: 4},
		{ID: 4, Start: 9, End: 21, Size: 4},
		{ID: 5, Start: 0, End: 21, Size: 4},
	}
}

func ExampleSearch() {
	res, err := Search(context.Background(), srchInput12(), SearchConfig{Budget: time.Second})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("arena", res.Arena, "LB", res.LB, "optimal", res.Optimal)
	// Output: arena 12 LB 12 optimal true
}

// TestSearchCancelled: a cancelled context returns at once with a verified
// placement, whatever the budget.
func TestSearchCancelled(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bufs, _ := srchGenPacked(t, 60)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		done := make(chan *SearchResult, 1)
		go func() {
			res, err := Search(ctx, bufs, SearchConfig{Budget: time.Hour})
			require.NoErrorf(t, err, "%v", err)
			done <- res
		}()
		select {
		case res := <-done:
			if res == nil {
				return
			}
			err := VerifyPlacement(bufs, res.Offsets)
			require.NoErrorf(t, err, "cancelled search returned an invalid placement: %v", err)
		case <-time.After(time.Minute):
			// A budget of an hour was not cut short by the cancel.
			t.Fatal("cancelled search did not return")
		}
	})
}

// TestSearchBudgetEndsDSA (a DSA instance, so .ci/run runs it uncached):
// a search that cannot prove its result ends by its
// budget, not by exhausting the tree: with a one-hour tree and a tiny
// budget it returns, verified and no worse than the portfolio.
func TestSearchBudgetEndsDSA(t *testing.T) {
	bufs := srchLoadDSA(t, "challenging/D.1048576.csv")
	done := make(chan struct{})
	var res *SearchResult
	var err error
	go func() {
		defer close(done)
		res, err = Search(context.Background(), bufs, SearchConfig{Budget: 200 * time.Millisecond})
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("search ignored its budget")
	}
	require.NoErrorf(t, err, "%v", err)
	port, perr := Portfolio().Place(context.Background(), bufs)
	require.NoErrorf(t, perr, "%v", perr)
	if res.Arena > ArenaSize(bufs, port) {
		t.Fatalf("search %d worse than portfolio %d", res.Arena, ArenaSize(bufs, port))
	}
	require.Falsef(t, res.Optimal, "D cannot be proven optimal in 200ms")
}

// TestSearchProperties: on random instances (with fixed buffers and
// alignment) the search verifies, never loses to the portfolio, respects
// LB <= arena, and is deterministic when it proves optimality.
func TestSearchProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bufs := srchGenSmall(t, 12)
		// Fix a prefix of the buffers at a stacked, valid placement.
		nfix := rapid.IntRange(0, 2).Draw(t, "fixed")
		var top int64
		for i := 0; i < nfix && i < len(bufs); i++ {
			a := alignOf(&bufs[i])
			bufs[i].Fixed, bufs[i].Offset = true, alignUp(top, a)
			top = bufs[i].Offset + bufs[i].Size
		}
		res, err := Search(context.Background(), bufs, SearchConfig{Budget: time.Second})
		require.NoErrorf(t, err, "%v", err)
		if err := VerifyPlacement(bufs, res.Offsets); err != nil {
			t.Fatalf("invalid: %v", err)
		}
		port, err := Portfolio().Place(context.Background(), bufs)
		require.NoErrorf(t, err, "%v", err)
		if res.Arena > ArenaSize(bufs, port) || res.Arena < res.LB || res.Arena != ArenaSize(bufs, res.Offsets) {
			t.Fatalf("arena %d, portfolio %d, LB %d", res.Arena, ArenaSize(bufs, port), res.LB)
		}
		if res.Optimal {
			again, err := Search(context.Background(), bufs, SearchConfig{Budget: time.Second})
			if err != nil || !slices.Equal(again.Offsets, res.Offsets) {
				t.Fatalf("not deterministic: %v vs %v (%v)", res.Offsets, again.Offsets, err)
			}
		}
	})
}

// TestSearchFixedObstacles: free buffers fill the gaps between fixed ones.
//
//	8 | F2 ....
//	4 |    gap: free buffer of 4 fits here under F2? no: F1 [0,4) is below
//	0 | F1 ....
func TestSearchFixedObstacles(t *testing.T) {
	bufs := []Buffer{
		{ID: 0, Start: 0, End: 10, Size: 4, Fixed: true, Offset: 0},
		{ID: 1, Start: 0, End: 10, Size: 4, Fixed: true, Offset: 8},
		{ID: 2, Start: 2, End: 5, Size: 4},
		{ID: 3, Start: 5, End: 8, Size: 4},
	}
	res, err := Search(context.Background(), bufs, SearchConfig{Budget: time.Second})
	require.NoErrorf(t, err, "%v", err)
	if res.Arena != 12 || res.Offsets[2] != 4 || res.Offsets[3] != 4 || !res.Optimal {
		t.Fatalf("got arena %d offsets %v optimal %v", res.Arena, res.Offsets, res.Optimal)
	}
}

// TestSearchProgressDSA (a DSA instance, so .ci/run runs it uncached): a
// search that runs past a second prints progress.
func TestSearchProgressDSA(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for over a second")
	}
	bufs := srchLoadDSA(t, "challenging/J.1048576.csv")
	var buf bytes.Buffer
	_, err := Search(context.Background(), bufs, SearchConfig{Budget: 1500 * time.Millisecond, Progress: &buf})
	require.NoErrorf(t, err, "%v", err)
	if !strings.Contains(buf.String(), "search: best") || !strings.Contains(buf.String(), "LB 989184") {
		t.Fatalf("progress %q", buf.String())
	}
}

// TestSearchRejectsInvalid: malformed buffers are an error, not a panic.
func TestSearchRejectsInvalid(t *testing.T) {
	_, err := Search(context.Background(), []Buffer{{Start: 3, End: 1, Size: 4}}, SearchConfig{})
	require.Falsef(t, err == nil || !strings.Contains(err.Error(), "planner"), "err %v", err)
	p, err := PlacerByName("search", Options{TimeBudget: time.Second})
	require.NoErrorf(t, err, "%v", err)
	off, err := p.Place(context.Background(), srchInput12())
	require.Falsef(t, err != nil || ArenaSize(srchInput12(), off) != 12, "search placer: %v %v", off, err)
}

// TestSearchSeedHonoursBudget: a budget far shorter than one greedy pass
// cancels the seeding portfolio too (it checks every 1,024 buffers), so the
// run falls back to the stacked placement: valid, and never a hang.
func TestSearchSeedHonoursBudget(t *testing.T) {
	bufs := synthetic(20_000)
	res, err := Search(context.Background(), bufs, SearchConfig{Budget: time.Nanosecond})
	require.NoErrorf(t, err, "%v", err)
	if res.Method != "stack" {
		t.Fatalf("method %q: the seed ran past a 1 ns budget", res.Method)
	}
	err = VerifyPlacement(bufs, res.Offsets)
	require.NoErrorf(t, err, "%v", err)
	var total int64
	for _, b := range bufs {
		total += b.Size
	}
	if res.Arena != total {
		t.Fatalf("stacked arena %d, want the unshared total %d", res.Arena, total)
	}
}

// TestPerfectEnd: the tiling search may run to the whole Search's end,
// except in a piece the cuts left without a band, where it gets a
// quarter of the piece's own time.
func TestPerfectEnd(t *testing.T) {
	now := time.Unix(1000, 0)
	deadline, end := now.Add(8*time.Second), now.Add(20*time.Second)
	assert.Equal(t, end, perfectEnd(now, deadline, end, false))
	assert.Equal(t, now.Add(2*time.Second), perfectEnd(now, deadline, end, true))
	assert.Equal(t, now, perfectEnd(now, now, end, true)) // no time left: none
}

// TestSrchWorkWeight: a branch counts once on small instances and three
// times on 2,000 random rows (dsagen.Rows), and the exact stage charges
// the weight: under a work cap that affords one unweighted try, the rows
// get no try at all (no node visited).
func TestSrchWorkWeight(t *testing.T) {
	inst := func(bufs []Buffer) *srchInst {
		free := make([]int, len(bufs))
		for i := range free {
			free[i] = i
		}
		return newSrchInst(bufs, free, nil, nil)
	}
	small := []Buffer{{ID: 0, Start: 0, End: 2, Size: 4}, {ID: 1, Start: 1, End: 3, Size: 4}}
	assert.Equal(t, int64(1), srchWorkWeight(inst(small)))
	bufs := blockBuffers(dsagen.Rows(2000, 2))
	in := inst(bufs)
	require.Equal(t, int64(3), srchWorkWeight(in))
	// exact's first try: node limit max(2n, 1000), every static order twice.
	oneTry := srchBranchesPerNode * int64(max(2*in.n, 1000)) * int64(2*len(srchOrders(in)))
	start, err := placeInOrder(context.Background(), bufs, peakOrder(bufs), bestFit, nil)
	require.NoError(t, err)
	free := make([]int, len(bufs))
	for i := range free {
		free[i] = i
	}
	m := &srchMin{ctx: context.Background(), bufs: bufs, begin: time.Now(),
		deadline: time.Now().Add(time.Minute), lb: LowerBound(bufs), workCap: oneTry}
	m.best, m.arena, m.proven = start, ArenaSize(bufs, start), m.lb
	m.exact(free, nil, nil)
	assert.Zero(t, m.nodes, "a try three times the work cap was run")
}

// TestSrchStepLimit: an attempt on 2,000 random rows at capacity LB (not
// reached: the search's best there is 2% above it) ends once its steps
// pass stepLimit, within one node's and one branch's steps of it, long
// before its node limit; without the step limit it runs on to the nodes.
func TestSrchStepLimit(t *testing.T) {
	bufs := blockBuffers(dsagen.Rows(2000, 2))
	free := make([]int, len(bufs))
	for i := range free {
		free[i] = i
	}
	in := newSrchInst(bufs, free, nil, nil)
	lb := LowerBound(bufs)
	r := newSrchRun(in)
	r.stepLimit = 200_000
	require.Equal(t, srchAborted, r.solve(lb, srchOrders(in)[0], 5_000))
	assert.Less(t, r.nodes, int64(5_000), "the node limit ended it")
	// One node scans its part (n), one branch its overlaps, sections and
	// the sections of the buffers it lifts (at most n of each).
	assert.LessOrEqual(t, r.steps, r.stepLimit+int64(2*in.n+in.n*in.nsec), "steps %d, limit %d", r.steps, r.stepLimit)
	assert.Greater(t, r.steps, r.stepLimit, "aborted before its step limit")
}
