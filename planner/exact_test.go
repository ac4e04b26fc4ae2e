package planner

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// srchOracleFeasible decides by plain enumeration whether bufs fit under
// capacity c: every buffer tries every offset in [0, c-size], in index
// order, against the buffers already assigned.
func srchOracleFeasible(bufs []Buffer, c int64) bool {
	off := make([]int64, len(bufs))
	var rec func(i int) bool
	rec = func(i int) bool {
		if i == len(bufs) {
			return true
		}
		b := bufs[i]
		for o := int64(0); o+b.Size <= c; o++ {
			if a := alignOf(&bufs[i]); o%a != 0 {
				continue
			}
			ok := true
			for j := 0; j < i && ok; j++ {
				d := bufs[j]
				if b.Start < d.End && d.Start < b.End && o < off[j]+d.Size && off[j] < o+b.Size {
					ok = false
				}
			}
			if ok {
				off[i] = o
				if rec(i + 1) {
					return true
				}
			}
		}
		return false
	}
	return rec(0)
}

// srchOracleOptimum is the smallest feasible capacity by enumeration.
func srchOracleOptimum(bufs []Buffer) int64 {
	c := LowerBound(bufs)
	for !srchOracleFeasible(bufs, c) {
		c++
	}
	return c
}

func srchGenSmall(t *rapid.T, maxN int) []Buffer {
	n := rapid.IntRange(1, maxN).Draw(t, "n")
	bufs := make([]Buffer, n)
	for i := range bufs {
		s := rapid.Int64Range(0, 6).Draw(t, "start")
		l := rapid.Int64Range(1, 4).Draw(t, "len")
		bufs[i] = Buffer{ID: int64(i), Start: s, End: s + l,
			Size:  rapid.Int64Range(1, 4).Draw(t, "size"),
			Align: rapid.SampledFrom([]int64{0, 1, 2}).Draw(t, "align")}
	}
	return bufs
}

// TestExactOptimalSmall checks the exact search against the enumeration
// oracle on random instances of at most 9 buffers.
func TestExactOptimalSmall(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bufs := srchGenSmall(t, 9)
		want := srchOracleOptimum(bufs)
		res, err := Search(context.Background(), bufs, SearchConfig{Budget: 5 * time.Second})
		require.NoErrorf(t, err, "%v", err)
		if err := VerifyPlacement(bufs, res.Offsets); err != nil {
			t.Fatalf("invalid placement: %v", err)
		}
		if res.Arena != want {
			t.Fatalf("arena %d, optimum %d (LB %d, method %s)", res.Arena, want, res.LB, res.Method)
		}
		require.Truef(t, res.Optimal, "optimum %d reached but not proven", want)
	})
}

// TestExactInfeasibleProof checks that one exact attempt below the optimum
// reports infeasible, not found.
func TestExactInfeasibleProof(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bufs := srchGenSmall(t, 7)
		opt := srchOracleOptimum(bufs)
		idx := make([]int, len(bufs))
		for i := range idx {
			idx[i] = i
		}
		in := newSrchInst(bufs, idx, nil, nil)
		r := newSrchRun(in)
		for _, rank := range srchOrders(in) {
			st := r.solve(opt-1, rank, 1<<40)
			require.Equalf(t, srchInfeasible, st, "capacity %d below optimum %d: status %d", opt-1, opt, st)
			st = r.solve(opt, rank, 1<<40)
			require.Equalf(t, srchFound, st, "capacity %d = optimum: status %d", opt, st)
		}
	})
}

// srchGenPacked cuts a cap x steps rectangle into rectangles by random
// guillotine cuts and returns them as buffers in shuffled order: a perfectly
// packable instance whose optimum is cap.
func srchGenPacked(t *rapid.T, maxN int) ([]Buffer, int64) {
	capacity := int64(rapid.IntRange(8, 64).Draw(t, "cap"))
	steps := int64(rapid.IntRange(4, 40).Draw(t, "steps"))
	type rect struct{ t0, t1, o0, o1 int64 }
	rs := []rect{{0, steps, 0, capacity}}
	target := rapid.IntRange(1, maxN).Draw(t, "n")
	for try := 0; len(rs) < target && try < 4*target; try++ {
		k := rapid.IntRange(0, len(rs)-1).Draw(t, "pick")
		r := rs[k]
		if rapid.Bool().Draw(t, "time") {
			if r.t1-r.t0 < 2 {
				continue
			}
			c := rapid.Int64Range(r.t0+1, r.t1-1).Draw(t, "cut")
			rs[k] = rect{r.t0, c, r.o0, r.o1}
			rs = append(rs, rect{c, r.t1, r.o0, r.o1})
		} else {
			if r.o1-r.o0 < 2 {
				continue
			}
			c := rapid.Int64Range(r.o0+1, r.o1-1).Draw(t, "cut")
			rs[k] = rect{r.t0, r.t1, r.o0, c}
			rs = append(rs, rect{r.t0, r.t1, c, r.o1})
		}
	}
	perm := rapid.Permutation(rs).Draw(t, "perm")
	bufs := make([]Buffer, len(perm))
	for i, r := range perm {
		bufs[i] = Buffer{ID: int64(i), Start: r.t0, End: r.t1, Size: r.o1 - r.o0}
	}
	return bufs, capacity
}

// TestSearchPerfectPacking asserts that the search reaches LB on at least
// 95% of random perfectly packable instances of up to 60 buffers.
func TestSearchPerfectPacking(t *testing.T) {
	hits, total := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		bufs, capacity := srchGenPacked(t, 60)
		res, err := Search(context.Background(), bufs, SearchConfig{Budget: 500 * time.Millisecond})
		require.NoErrorf(t, err, "%v", err)
		if err := VerifyPlacement(bufs, res.Offsets); err != nil {
			t.Fatalf("invalid placement: %v", err)
		}
		if LowerBound(bufs) != capacity {
			t.Fatalf("generator: LB %d != capacity %d", LowerBound(bufs), capacity)
		}
		total++
		if res.Arena == capacity {
			hits++
		}
	})
	t.Logf("reached LB on %d of %d", hits, total)
	require.Falsef(t, total == 0 || hits*100 < 95*total, "reached LB on %d of %d packable instances, want >= 95%%", hits, total)
}

// scanLift is lift as a scan of every obstacle from the bottom: the
// oracle for the union-based lift, with the work it counts.
func scanLift(ov []srchFixed, a, sz, o int64) (int64, int64) {
	up := func(o int64) int64 {
		if a > 1 && o%a != 0 {
			o += a - o%a
		}
		return o
	}
	o = up(o)
	var steps int64
	for _, f := range ov {
		if f.off >= o+sz {
			break
		}
		steps++
		if f.top > o {
			o = up(f.top)
		}
	}
	return o, steps
}

// TestLiftMatchesScan: lift over the obstacles' union returns the offset,
// and under a step limit counts the work, that a scan of every obstacle
// does, whatever the obstacles (overlapping, touching, nested), alignment
// and start.
func TestLiftMatchesScan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 12).Draw(t, "n")
		ov := make([]srchFixed, n)
		for i := range ov {
			off := rapid.Int64Range(0, 60).Draw(t, "off")
			ov[i] = srchFixed{off, off + rapid.Int64Range(1, 20).Draw(t, "size")}
		}
		slices.SortFunc(ov, func(a, b srchFixed) int { return cmpI64(a.off, b.off) })
		a := rapid.SampledFrom([]int64{1, 2, 4, 8}).Draw(t, "align")
		sz := rapid.Int64Range(0, 16).Draw(t, "sz")
		o := rapid.Int64Range(0, 90).Draw(t, "o")
		r := &srchRun{in: &srchInst{align: []int64{a}, size: []int64{sz},
			fixedOv: [][]srchFixed{ov}, fixedU: [][]srchFixed{fixedUnion(ov)}}, stepLimit: 1 << 40}
		want, steps := scanLift(ov, a, sz, o)
		if got := r.lift(0, o); got != want || r.steps != steps {
			t.Fatalf("lift(%d) = %d after %d steps, the scan %d after %d", o, got, r.steps, want, steps)
		}
	})
}

// TestLiftCatchesCollision: the oracle's check fails on a lift that
// ignores an obstacle (it would place the buffer across it).
func TestLiftCatchesCollision(t *testing.T) {
	ov := []srchFixed{{0, 10}, {12, 20}}
	want, _ := scanLift(ov, 1, 4, 0)
	require.Equal(t, int64(20), want, "[0,10) then [12,20): a 4-byte buffer fits from 20")
	bad := &srchRun{in: &srchInst{align: []int64{1}, size: []int64{4},
		fixedOv: [][]srchFixed{ov}, fixedU: [][]srchFixed{ov[:1]}}} // union missing [12,20)
	require.NotEqual(t, want, bad.lift(0, 0))
}

// TestCoverSpanMatchesSet: coverSpan keeps the union of the ranges added
// as sorted, disjoint ranges that do not touch, as a set of sections
// would hold it.
func TestCoverSpanMatchesSet(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var cov []secSpan
		set := make([]bool, 40)
		for range rapid.IntRange(0, 10).Draw(t, "n") {
			lo := rapid.Int32Range(0, 35).Draw(t, "lo")
			hi := lo + rapid.Int32Range(1, 39-lo).Draw(t, "len")
			cov = coverSpan(cov, secSpan{lo, hi})
			for s := lo; s < hi; s++ {
				set[s] = true
			}
		}
		var want []secSpan
		for s := int32(0); s < int32(len(set)); s++ {
			if set[s] && (s == 0 || !set[s-1]) {
				want = append(want, secSpan{s, s + 1})
			} else if set[s] {
				want[len(want)-1].hi = s + 1
			}
		}
		if !slices.Equal(cov, want) {
			t.Fatalf("cover %v, the set's ranges %v", cov, want)
		}
	})
}
