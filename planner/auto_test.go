package planner

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// TestAutoIsDefault: the zero Options plan with "auto", and the plan names
// the stage that found it.
func TestAutoIsDefault(t *testing.T) {
	p, err := PlanBuffers(context.Background(), srchInput12(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.Strategy, "auto/") {
		t.Errorf("default strategy %q, want auto/...", p.Strategy)
	}
	if p.ArenaBytes != 12 {
		t.Errorf("input.12: arena %d, want 12", p.ArenaBytes)
	}
}

// TestAutoProperties: on random instances auto's placement verifies, is
// never worse than the portfolio's, is the same on a second run and on
// shuffled input's arena, and reaches the optimum the exhaustive oracle
// finds on instances of at most 7 buffers.
func TestAutoProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bufs := srchGenSmall(t, 7)
		off, err := autoPlacer{}.Place(context.Background(), bufs)
		if err != nil {
			t.Fatal(err)
		}
		if err := VerifyPlacement(bufs, off); err != nil {
			t.Fatalf("invalid placement: %v", err)
		}
		pf, err := Portfolio().Place(context.Background(), bufs)
		if err != nil {
			t.Fatal(err)
		}
		arena := ArenaSize(bufs, off)
		if pa := ArenaSize(bufs, pf); arena > pa {
			t.Fatalf("auto arena %d above the portfolio's %d", arena, pa)
		}
		if want := srchOracleOptimum(bufs); arena != want {
			t.Fatalf("auto arena %d, optimum %d", arena, want)
		}
		again, _ := autoPlacer{}.Place(context.Background(), bufs)
		if !slices.Equal(off, again) {
			t.Fatalf("two runs differ: %v and %v", off, again)
		}
	})
}

// TestAutoNoWorseOnMidSize: on generated instances of a few hundred
// buffers, where the search stage runs under its work cap, auto verifies,
// never loses to the portfolio, and gives the same offsets twice (the cap,
// not the clock, ends it).
func TestAutoNoWorseOnMidSize(t *testing.T) {
	for _, n := range []int{150, 300} {
		bufs := synthetic(n)
		off, method, err := autoPlacer{}.placeNamed(context.Background(), bufs, -1)
		if err != nil {
			t.Fatal(err)
		}
		if err := VerifyPlacement(bufs, off); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		pf, _ := Portfolio().Place(context.Background(), bufs)
		if a, pa := ArenaSize(bufs, off), ArenaSize(bufs, pf); a > pa {
			t.Errorf("n=%d: auto arena %d above the portfolio's %d", n, a, pa)
		}
		again, _, _ := autoPlacer{}.placeNamed(context.Background(), bufs, -1)
		if !slices.Equal(off, again) {
			t.Errorf("n=%d (%s): two runs differ", n, method)
		}
	}
}

// TestSearchWorkCapDeterministic: a search ended by its work cap returns
// the same placement every time, valid and no worse than its seed.
func TestSearchWorkCapDeterministic(t *testing.T) {
	bufs := synthetic(200)
	run := func(work int64) *SearchResult {
		res, err := Search(context.Background(), bufs, SearchConfig{Budget: time.Minute, Work: work})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := run(100_000), run(100_000)
	if !slices.Equal(a.Offsets, b.Offsets) {
		t.Errorf("two runs under the same cap differ (%s %d, %s %d)", a.Method, a.Arena, b.Method, b.Arena)
	}
	if err := VerifyPlacement(bufs, a.Offsets); err != nil {
		t.Error(err)
	}
	seed, _ := Portfolio().Place(context.Background(), bufs)
	if a.Arena > ArenaSize(bufs, seed) {
		t.Errorf("arena %d above the portfolio seed's %d", a.Arena, ArenaSize(bufs, seed))
	}
}
