package planner

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestPMTableAgainstMap: any sequence of adds, lookups and sweeps leaves
// pmTable holding what a Go map holds, and marks dead exactly the groups
// a sweep drops.
func TestPMTableAgainstMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tab := newPMTable(rapid.IntRange(0, 8).Draw(t, "hint"))
		ref := map[pmKey]*pmGroup{}
		key := func(label string) pmKey {
			return pmKey{rapid.Bool().Draw(t, label+"span"), rapid.Int64Range(-3, 40).Draw(t, label+"x"), rapid.Int64Range(0, 40).Draw(t, label+"y")}
		}
		for range rapid.IntRange(0, 300).Draw(t, "ops") {
			switch rapid.IntRange(0, 9).Draw(t, "op") {
			case 0: // sweep the groups whose x is even
				tab.keep(func(g *pmGroup) bool { return g.key.x%2 != 0 })
				for k, g := range ref {
					if k.x%2 == 0 {
						require.True(t, g.dead, "swept group %v not marked dead", k)
						delete(ref, k)
					}
				}
			default:
				k := key("k")
				g := tab.get(k)
				require.Equal(t, ref[k], g, "get(%v)", k)
				if g == nil {
					g = &pmGroup{key: k}
					tab.put(g)
					ref[k] = g
				}
			}
		}
		require.Equal(t, len(ref), tab.n)
		for k, g := range ref {
			require.Same(t, g, tab.get(k))
			require.False(t, g.dead)
		}
	})
}

// TestPMTableGrows: a table started small holds a thousand groups, at
// most half full, and finds each.
func TestPMTableGrows(t *testing.T) {
	tab := newPMTable(0)
	for x := range int64(1000) {
		tab.put(&pmGroup{key: pmKey{x%2 == 0, x, 7 * x}})
	}
	assert.Equal(t, 1000, tab.n)
	assert.LessOrEqual(t, 2*tab.n, len(tab.slots))
	for x := range int64(1000) {
		g := tab.get(pmKey{x%2 == 0, x, 7 * x})
		require.NotNil(t, g)
		assert.Equal(t, 7*x, g.key.y)
	}
	assert.Nil(t, tab.get(pmKey{true, 1, 7}))
}
