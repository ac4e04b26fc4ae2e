package memranges_test

import (
	"fmt"

	"github.com/memplan/memplan/memranges"
)

// Two independent MatMul+Relu chains over one arena. The planner put mm2's
// output at [0,64), right below relu1's input at [64,128): exact ranges see
// no conflict there, ggml's off-by-one test does.
func Example() {
	const arena, x = memranges.BufferID(0), memranges.BufferID(1)
	r := func(b memranges.BufferID, off, n int64) memranges.Use {
		return memranges.Use{Range: memranges.Range{Buf: b, Off: off, Len: n}, Access: memranges.Read, Value: -1}
	}
	w := func(off, n int64) memranges.Use {
		return memranges.Use{Range: memranges.Range{Buf: arena, Off: off, Len: n}, Access: memranges.Write, Value: -1}
	}
	st := &memranges.Stream{
		Buffers: []memranges.BufferInfo{{Name: "arena", Root: -1}, {Name: "x", Root: 0}},
		Dispatches: []memranges.Dispatch{
			{Node: 0, Name: "mm1", Uses: []memranges.Use{r(x, 0, 64), w(64, 64)}},
			{Node: 1, Name: "relu1", Uses: []memranges.Use{r(arena, 64, 64), w(128, 64)}},
			{Node: 2, Name: "mm2", Uses: []memranges.Use{r(x, 0, 64), w(0, 64)}},
			{Node: 3, Name: "relu2", Uses: []memranges.Use{r(arena, 0, 64), w(192, 64)}},
		},
	}
	bs := memranges.PlaceBarriers(memranges.Exact, st.Dispatches)
	fmt.Println("schedule order:", len(bs), "barriers, verify:", memranges.Verify(st.Dispatches, bs))
	for _, b := range bs {
		fmt.Println(" ", st.Describe(b))
	}
	fmt.Println("ggml-compatible:", len(memranges.PlaceBarriers(memranges.GGML, st.Dispatches)), "barriers")

	perm, _, _ := memranges.Reorder(st.Dispatches, memranges.ReorderOptions{})
	re, _ := memranges.Permute(st.Dispatches, perm)
	rbs := memranges.PlaceBarriers(memranges.Exact, re)
	fmt.Println("reordered", perm, len(rbs), "barrier, critical path", memranges.CriticalPath(st.Dispatches))
	rst := &memranges.Stream{Dispatches: re, Buffers: st.Buffers}
	for _, b := range rbs {
		fmt.Println(" ", rst.Describe(b))
	}
	fmt.Println("edges:", memranges.Edges(st.Dispatches))
	// Output:
	// schedule order: 2 barriers, verify: <nil>
	//   barrier before #1 relu1: RAW on arena: #0 mm1 write [64,128) -> read [64,128)
	//   barrier before #3 relu2: RAW on arena: #2 mm2 write [0,64) -> read [0,64)
	// ggml-compatible: 3 barriers
	// reordered [0 2 1 3] 1 barrier, critical path 2
	//   barrier before #2 relu1: RAW on arena: #0 mm1 write [64,128) -> read [64,128)
	// edges: [{0 1} {2 3}]
}
