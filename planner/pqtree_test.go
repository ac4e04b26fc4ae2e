package planner

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// pqOrders lists every frontier of the tree under i, each as a string.
func pqOrders(t *pqTree, i int32) []string {
	nd := t.n[i]
	if nd.kind == pqLeaf || nd.kind == pqToken {
		return []string{fmt.Sprint(nd.buf)}
	}
	var seqs [][]int32
	if nd.kind == pqQ {
		seqs = [][]int32{slices.Clone(nd.kids), slices.Clone(nd.kids)}
		slices.Reverse(seqs[1])
	} else {
		seqs = permutations(nd.kids)
	}
	set := map[string]bool{}
	for _, seq := range seqs {
		outs := []string{""}
		for _, k := range seq {
			var next []string
			for _, o := range outs {
				for _, f := range pqOrders(t, k) {
					next = append(next, strings.TrimPrefix(o+" "+f, " "))
				}
			}
			outs = next
		}
		for _, o := range outs {
			set[o] = true
		}
	}
	return sortedKeys(set)
}

func permutations(xs []int32) [][]int32 {
	if len(xs) <= 1 {
		return [][]int32{slices.Clone(xs)}
	}
	var out [][]int32
	for k := range xs {
		rest := append(slices.Clone(xs[:k]), xs[k+1:]...)
		for _, p := range permutations(rest) {
			out = append(out, append([]int32{xs[k]}, p...))
		}
	}
	return out
}

func sortedKeys(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// pqModel is the brute-force oracle: the set of orders itself.
type pqModel [][]int32

// reduce keeps the orders in which s stands adjacent.
func (m pqModel) reduce(s map[int32]bool) pqModel {
	var out pqModel
	for _, o := range m {
		first, last := -1, -1
		for k, x := range o {
			if s[x] {
				if first < 0 {
					first = k
				}
				last = k
			}
		}
		if last-first+1 == len(s) {
			out = append(out, o)
		}
	}
	return out
}

// replace puts every order of fresh where s stands (s adjacent in m).
func (m pqModel) replace(s map[int32]bool, fresh []int32) pqModel {
	var out pqModel
	for _, o := range m {
		first := slices.IndexFunc(o, func(x int32) bool { return s[x] })
		for _, p := range permutations(fresh) {
			n := slices.Clone(o[:first])
			n = append(n, p...)
			out = append(out, append(n, o[first+len(s):]...))
		}
	}
	return out
}

func (m pqModel) strings() []string {
	set := map[string]bool{}
	for _, o := range m {
		set[strings.Trim(fmt.Sprint(o), "[]")] = true
	}
	return sortedKeys(set)
}

// TestPQTreeMatchesBruteForce: after any run of reductions and
// replacements over up to six leaves, the tree's frontiers are exactly the
// orders the constraints allow, and a reduction fails exactly when none
// is left.
func TestPQTreeMatchesBruteForce(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 6).Draw(rt, "n")
		tr := newPQTree()
		var live, kids []int32
		for b := range int32(n) {
			live = append(live, b)
			kids = append(kids, tr.leaf(b))
		}
		next := int32(n)
		tr.root = tr.pnode(kids)
		model := pqModel(permutations(live))
		for range rapid.IntRange(1, 8).Draw(rt, "ops") {
			pick := rapid.SliceOfNDistinct(rapid.SampledFrom(live), 1, len(live), rapid.ID).Draw(rt, "set")
			s := map[int32]bool{}
			for _, b := range pick {
				s[b] = true
			}
			want := model.reduce(s)
			work := tr.clone()
			blk, ok := work.reduce(func(b int32) bool { return s[b] }, int32(len(s)))
			require.Equalf(rt, len(want) > 0, ok, "reduce %v: tree says %v", pick, ok)
			if !ok {
				continue
			}
			tr, model = work, want
			require.Equal(rt, model.strings(), pqOrders(tr, tr.root), "after reduce %v", pick)
			if !rapid.Bool().Draw(rt, "replace") || len(live)-len(s)+2 > 6 {
				continue
			}
			fresh := []int32{next}
			if rapid.Bool().Draw(rt, "two") {
				fresh = append(fresh, next+1)
			}
			next += int32(len(fresh))
			ks := make([]int32, len(fresh))
			for k, b := range fresh {
				ks[k] = tr.leaf(b)
			}
			tr.replace(blk, tr.pnode(ks))
			tr = tr.clone()
			model = model.replace(s, fresh)
			live = slices.DeleteFunc(live, func(b int32) bool { return s[b] })
			live = append(live, fresh...)
			require.Equal(rt, model.strings(), pqOrders(tr, tr.root), "after replacing %v by %v", pick, fresh)
		}
	})
}

// TestPQOrdersCatchCorruption: the oracle comparison above tells a
// corrupted tree apart: the Q-node of a b c turned into a P-node allows
// orders the constraints do not.
func TestPQOrdersCatchCorruption(t *testing.T) {
	tr := newPQTree()
	var kids []int32
	for b := range int32(4) {
		kids = append(kids, tr.leaf(b))
	}
	tr.root = tr.pnode(kids)
	model := pqModel(permutations([]int32{0, 1, 2, 3}))
	for _, s := range []map[int32]bool{{0: true, 1: true}, {1: true, 2: true}} {
		_, ok := tr.reduce(func(b int32) bool { return s[b] }, int32(len(s)))
		require.True(t, ok)
		model = model.reduce(s)
	}
	require.Equal(t, model.strings(), pqOrders(tr, tr.root))
	for i := range tr.n {
		if tr.n[i].kind == pqQ {
			tr.n[i].kind = pqP
		}
	}
	assert.NotEqual(t, model.strings(), pqOrders(tr, tr.root), "a Q-node turned P must show")
}

// TestPQBlocks: the header's example tree P(d Q(a b c)) keeps {a b}
// adjacent and d alone; {a c} are two blocks (b stands between them).
func TestPQBlocks(t *testing.T) {
	tr := newPQTree()
	a, b, c, d := tr.leaf(0), tr.leaf(1), tr.leaf(2), tr.leaf(3)
	tr.root = tr.pnode([]int32{a, b, c, d})
	for _, s := range []map[int32]bool{{0: true, 1: true}, {1: true, 2: true}} {
		_, ok := tr.reduce(func(x int32) bool { return s[x] }, int32(len(s)))
		require.True(t, ok)
	}
	got := tr.blocks(func(x int32) bool { return x == 0 || x == 1 || x == 3 })
	for _, g := range got {
		slices.Sort(g)
	}
	slices.SortFunc(got, func(x, y []int32) int { return len(x) - len(y) })
	assert.Equal(t, [][]int32{{3}, {0, 1}}, got)
	got = tr.blocks(func(x int32) bool { return x == 0 || x == 2 })
	assert.Len(t, got, 2)
}
