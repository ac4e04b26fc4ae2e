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
