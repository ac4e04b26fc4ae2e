package planner_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/planner"
)

// A three-step chain: Relu runs in place over h (one buffer for both), and
// the Transpose, which cannot, gets a second buffer.
func ExamplePlanGraph() {
	b := ir.NewBuilder("chain")
	x := b.Input("x", ir.F32, 4, 8)
	h := b.Op("Exp", nil, x)
	a := b.Op("Relu", nil, h)
	y := b.Op("Transpose", ir.Attrs{"perm": ir.Ints(1, 0)}, a)
	b.Output(y)
	g, err := b.Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := planner.PlanGraph(context.Background(), g, nil, planner.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("verify:", p.Verify(g))
	fmt.Println("arena:", p.ArenaBytes, "lower bound:", p.LowerBoundBytes, "unshared:", p.UnsharedBytes)
	for _, v := range []ir.ValueID{x, h, a, y} {
		s := p.Slots[v]
		if s.External {
			fmt.Printf("%s: external\n", g.Values[v].Name)
			continue
		}
		buf := p.Buffers[s.Buffer]
		fmt.Printf("%s: buffer %d at %d, live [%d,%d)\n", g.Values[v].Name, s.Buffer, s.Offset, buf.Start, buf.End)
	}
	// Output:
	// verify: <nil>
	// arena: 256 lower bound: 256 unshared: 256
	// x: external
	// exp_0: buffer 0 at 0, live [0,3)
	// relu_1: buffer 0 at 0, live [0,3)
	// transpose_2: buffer 1 at 128, live [2,3)
}

// The worked example from bestfit.go: C reuses B's bytes.
func ExamplePlanBuffers() {
	csv := "id,lower,upper,size\nA,0,4,4\nB,0,2,2\nC,2,4,2\n"
	bufs, err := planner.ReadCSV(strings.NewReader(csv))
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := planner.PlanBuffers(context.Background(), bufs, planner.Options{Strategy: "size"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("arena", p.ArenaBytes, "lower bound", p.LowerBoundBytes)
	planner.WriteCSV(os.Stdout, p.Buffers, p.Offsets)
	// Output:
	// arena 6 lower bound 6
	// id,lower,upper,size,offset
	// A,0,4,4,0
	// B,0,2,2,4
	// C,2,4,2,4
}

// Two branches side by side: under the memory objective the four nodes
// run one per group (Groups nil), and the concurrency objective groups
// them by data dependencies: three groups, the data chain, with Neg in
// the middle group (ALAP: its result lives one group less) and the same
// arena.
func ExamplePlanGraph_concurrency() {
	b := ir.NewBuilder("diamond")
	x := b.Input("x", ir.F32, 4, 8)
	a := b.Op("Exp", nil, x)
	c := b.Op("Exp", nil, a)
	d := b.Op("Add", nil, c, b.Op("Neg", nil, x))
	b.Output(d)
	g, err := b.Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	chain, _ := planner.DataChain(g)
	fmt.Println("data chain:", chain)
	for _, obj := range []string{planner.ObjectiveMemory, planner.ObjectiveConcurrency} {
		p, err := planner.PlanGraph(context.Background(), g, nil, planner.Options{Objective: obj})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %d groups %v, arena %d, verify %v\n", obj, p.Steps, p.Groups, p.ArenaBytes, p.Verify(g))
	}
	// Output:
	// data chain: 3
	// memory: 4 groups [], arena 256, verify <nil>
	// concurrency: 3 groups [0 1 1 2], arena 256, verify <nil>
}
