package planner

// Which merges are right: a measure of pair merges and re-merging
// against the packable generator's own tiling, fairer than "neighbours
// in that tiling" (TestPairMergeP5000).
//
// A guillotine tiling is a tree. Cuts of one kind in a row make one node:
// a stack (capacity cuts: children bottom to top, all of the node's
// lifespan) or a sequence (time cuts: children in time, all of its
// height). A stack's children can be put in any order and the tiling
// stays one at LB; a sequence's cannot. A merged item is right when some
// tiling at LB has its members arranged as it has them. rightItem shows
// an item right when its members are a node's buffers, or those of
// several children of a stack, or of a run of adjacent children of a
// sequence. Stacking two buffers that the generator put apart can be
// right: a and c of a stack a, b, c (b cut again in time) are apart in
// the generator's tiling but next to each other in a, c, b.
//
// It shows items right; it does not prove the others wrong. Swapping
// twins (buffers of one start, end and size) makes more items right
// (shapeIndex, mergeshape_test.go, counts those too); so can reordering
// two stacks side by side so that children of each line up, or another
// tree of the same tiling (TestShapeIndexWorkedExample).

import (
	"cmp"
	"context"
	"slices"
	"testing"

	"github.com/memplan/memplan/internal/dsagen"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// genNode is a node of a guillotine tiling's tree (see above).
type genNode struct {
	stack    bool // capacity cuts (children bottom to top); else time cuts, or a leaf
	children []*genNode
	parent   *genNode
	at       int   // its index among its parent's children
	blocks   []int // the blocks under it
}

// genTree returns the tree of blocks (a guillotine tiling) and each
// block's leaf; ok is false if some node is not guillotine.
func genTree(blocks []dsagen.Block) (*genNode, []*genNode, bool) {
	leaf := make([]*genNode, len(blocks))
	var build func(ids []int) (*genNode, bool)
	build = func(ids []int) (*genNode, bool) {
		n := &genNode{blocks: ids}
		if len(ids) == 1 {
			leaf[ids[0]] = n
			return n, true
		}
		for _, stack := range []bool{true, false} {
			span := func(i int) (int64, int64) {
				if stack {
					return blocks[i].Offset, blocks[i].Offset + blocks[i].Size
				}
				return blocks[i].Start, blocks[i].End
			}
			parts := genParts(ids, span)
			if len(parts) < 2 {
				continue
			}
			n.stack = stack
			for k, part := range parts {
				c, ok := build(part)
				if !ok {
					return nil, false
				}
				c.parent, c.at = n, k
				n.children = append(n.children, c)
			}
			return n, true
		}
		return nil, false
	}
	ids := make([]int, len(blocks))
	for i := range ids {
		ids[i] = i
	}
	root, ok := build(ids)
	return root, leaf, ok
}

// genParts splits ids at every line that no block's span crosses, in
// order along the lines.
func genParts(ids []int, span func(int) (int64, int64)) [][]int {
	sorted := slices.Clone(ids)
	slices.SortFunc(sorted, func(x, y int) int {
		a, _ := span(x)
		b, _ := span(y)
		return cmp.Compare(a, b)
	})
	var parts [][]int
	var reach int64
	for k, i := range sorted {
		lo, hi := span(i)
		if k == 0 || lo >= reach {
			parts = append(parts, nil)
		}
		parts[len(parts)-1] = append(parts[len(parts)-1], i)
		reach = max(reach, hi)
	}
	return parts
}

// rightItem reports whether the tree shows members (blocks) to make a
// right item (see above); false means not shown, not wrong.
func rightItem(leaf []*genNode, members []int) bool {
	depth := func(n *genNode) int {
		d := 0
		for ; n.parent != nil; n = n.parent {
			d++
		}
		return d
	}
	top := leaf[members[0]]
	for _, i := range members[1:] {
		a, b := top, leaf[i]
		da, db := depth(a), depth(b)
		for ; da > db; da-- {
			a = a.parent
		}
		for ; db > da; db-- {
			b = b.parent
		}
		for a != b {
			a, b = a.parent, b.parent
		}
		top = a
	}
	if len(top.children) == 0 {
		return true
	}
	in := make(map[int]bool, len(members))
	for _, i := range members {
		in[i] = true
	}
	var used []int // the children the members cover, whole
	for _, c := range top.children {
		n := 0
		for _, i := range c.blocks {
			if in[i] {
				n++
			}
		}
		switch {
		case n == len(c.blocks):
			used = append(used, c.at)
		case n > 0:
			return false
		}
	}
	return top.stack || used[len(used)-1]-used[0] == len(used)-1
}

// itemMembers returns the original buffers of each buffer of a reduced
// instance, through its expansion: each item placed far apart from the
// others, its members land at its offset.
func itemMembers(red []Buffer, expand func([]int64) []int64) [][]int {
	const apart = int64(1) << 40
	ro := make([]int64, len(red))
	for k := range ro {
		ro[k] = int64(k) * apart
	}
	members := make([][]int, len(red))
	for i, o := range expand(ro) {
		members[o/apart] = append(members[o/apart], i)
	}
	return members
}

// TestRightItemWorkedExample is the example above: a, b, c stacked over
// [0,4), b cut at step 2 into b1 and b2, and d after them all. {a, c} is
// right, {b1, b2} and {a, b1, b2, c} are; {a, b1} is not (b2 would be
// left beside a hole), nor {c, d} (d is a whole sequence child, c part
// of one).
func TestRightItemWorkedExample(t *testing.T) {
	blocks := []dsagen.Block{
		{Start: 0, End: 4, Size: 1, Offset: 0}, // a
		{Start: 0, End: 2, Size: 1, Offset: 1}, // b1
		{Start: 2, End: 4, Size: 1, Offset: 1}, // b2
		{Start: 0, End: 4, Size: 1, Offset: 2}, // c
		{Start: 4, End: 6, Size: 3, Offset: 0}, // d
	}
	root, leaf, ok := genTree(blocks)
	require.True(t, ok)
	assert.False(t, root.stack, "a sequence: the stack, then d")
	require.Len(t, root.children, 2)
	assert.True(t, root.children[0].stack)
	assert.True(t, rightItem(leaf, []int{0, 3}))
	assert.True(t, rightItem(leaf, []int{1, 2}))
	assert.True(t, rightItem(leaf, []int{0, 1, 2, 3}))
	assert.True(t, rightItem(leaf, []int{0, 1, 2, 3, 4}))
	assert.False(t, rightItem(leaf, []int{0, 1}))
	assert.False(t, rightItem(leaf, []int{3, 4}))
	// Not guillotine: a pinwheel of four blocks around a centre.
	pin := []dsagen.Block{
		{Start: 0, End: 2, Size: 1, Offset: 0}, // bottom left
		{Start: 2, End: 3, Size: 2, Offset: 0}, // right, low
		{Start: 1, End: 3, Size: 1, Offset: 2}, // top right
		{Start: 0, End: 1, Size: 2, Offset: 1}, // left, high
		{Start: 1, End: 2, Size: 1, Offset: 1}, // centre
	}
	_, _, ok = genTree(pin)
	assert.False(t, ok)
}

// TestMergeRightnessP5000: on p5000, how much of the merged area the
// items not shown right hold, after the first pass and after re-merging,
// by rightItem and up to twins (shapeIndex). The first pass leaves many
// such items, but small ones; re-merging leaves fewer items, and those
// not shown right hold much more of the area: it joins small ones into
// large ones. Run with -v for the figures.
func TestMergeRightnessP5000(t *testing.T) {
	blocks := dsagen.Packable(5000, packableCapacity, 1)
	root, leaf, ok := genTree(blocks)
	require.True(t, ok)
	require.True(t, root.stack)
	assert.Len(t, root.children, 5, "p5000's five strips")
	twins := newShapeIndex(blocks, root)
	bufs := blockBuffers(blocks)
	measure := func(what string, red []Buffer, expand func([]int64) []int64) (float64, float64) {
		var all, byItem, byShape int64
		nItem, nShape := 0, 0
		for k, m := range itemMembers(red, expand) {
			a := red[k].Size * (red[k].End - red[k].Start)
			all += a
			if !rightItem(leaf, m) {
				nItem++
				byItem += a
			}
			if !twins.right(m) {
				nShape++
				byShape += a
			}
		}
		t.Logf("p5000, %s: %d items; not shown right: %d holding %.1f%% of the area, up to twins %d holding %.1f%%",
			what, len(red), nItem, 100*float64(byItem)/float64(all), nShape, 100*float64(byShape)/float64(all))
		assert.LessOrEqual(t, nShape, nItem, "twins only add right items")
		return float64(byItem) / float64(all), float64(byShape) / float64(all)
	}
	first, expand := pairMerge(bufs, 1)
	i1, s1 := measure("first pass", first, expand)
	assert.Less(t, i1, 0.1)
	red, expand, iters := remerge(context.Background(), bufs, 1, 1000)
	require.Equal(t, 1000, iters)
	i2, s2 := measure("after 1,000 re-merges", red, expand)
	assert.Greater(t, i2, 2*i1, "re-merging joins small items not shown right into large ones")
	assert.Greater(t, s2, 2*s1)
}
