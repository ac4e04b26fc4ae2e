package exec_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/cpu"
	"github.com/memplan/memplan/ir"
)

func f32bytes(v ...float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// Two independent branches joined by an Add: in Inferred mode the branches
// share a group, so one barrier separates them from the Add.
func Example() {
	b := ir.NewBuilder("diamond")
	x := b.Input("x", ir.F32, 2, 2)
	l := b.Op("Relu", nil, x)
	r := b.Op("Neg", nil, x)
	b.Output(b.Op("Add", nil, l, r))
	g, _ := b.Build()

	prog, err := exec.Reference(g) // every value its own buffer
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, mode := range exec.Modes() {
		if err := prog.Synchronize(mode); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-9s dispatches=%d barriers=%v\n", mode, len(prog.Dispatches), prog.Barriers)
	}
	res, err := exec.RunOnce(context.Background(), cpu.New(cpu.Options{}), prog,
		map[ir.ValueID][]byte{x: f32bytes(1, -2, 3, -4)}, exec.RunOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	out := res.Outputs[g.ValuesWith(ir.FlagOutput)[0]]
	for i := 0; i < 4; i++ {
		fmt.Print(math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:])), " ")
	}
	fmt.Println()
	// Output:
	// serial    dispatches=3 barriers=[1 2]
	// inferred  dispatches=3 barriers=[2]
	// reordered dispatches=3 barriers=[2]
	// 0 2 0 4
}
