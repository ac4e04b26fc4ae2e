package cpu_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/cpu"
	"github.com/memplan/memplan/ir"
)

// A MatMul whose right operand is a transposed (strided) view of a weight:
// the kernel reads through the view's strides.
func Example() {
	w := make([]byte, 4*4)
	for i, v := range []float32{1, 2, 3, 4} { // w = [[1 2] [3 4]]
		binary.LittleEndian.PutUint32(w[4*i:], math.Float32bits(v))
	}
	b := ir.NewBuilder("mm")
	x := b.Input("x", ir.F32, 1, 2)
	wt := b.View("wT", b.WeightData("w", ir.F32, w, 2, 2), 0, ir.F32, ir.Shape{2, 2}, []int64{4, 8})
	b.Output(b.Op("MatMul", nil, x, wt))
	g, _ := b.Build()
	prog, _ := exec.Reference(g)

	in := make([]byte, 8)
	binary.LittleEndian.PutUint32(in[0:], math.Float32bits(1))
	binary.LittleEndian.PutUint32(in[4:], math.Float32bits(10))
	res, err := exec.RunOnce(context.Background(), cpu.New(cpu.Options{}), prog, map[ir.ValueID][]byte{x: in}, exec.RunOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	out := res.Outputs[g.ValuesWith(ir.FlagOutput)[0]]
	fmt.Println(math.Float32frombits(binary.LittleEndian.Uint32(out[0:])), math.Float32frombits(binary.LittleEndian.Uint32(out[4:])))
	fmt.Println(len(cpu.Ops()) == len(ir.OpNames()))
	// Output:
	// 21 43
	// true
}
