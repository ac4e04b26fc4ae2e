package launch_test

import (
	"fmt"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/launch"
	"github.com/memplan/memplan/ir"
)

// ExamplePlan shows what a GPU backend encodes for one dispatch: Add of x f32[2 3]
// in the arena at byte 128 and a broadcast bias f32[3] in buffer 1, into y
// at arena byte 0.
func ExamplePlan() {
	bind := func(v ir.ValueID, buf int, off int64, shape ...int64) exec.Binding {
		strides := ir.ContiguousStrides(shape, 4)
		return exec.Binding{Value: v, Buffer: buf, OffsetBytes: off, DType: ir.F32, Shape: shape, StridesBytes: strides}
	}
	d := &exec.Dispatch{Op: "Add", Name: "add",
		Inputs:  []exec.Binding{bind(0, exec.ArenaBuffer, 128, 2, 3), bind(1, 1, 0, 3)},
		Outputs: []exec.Binding{bind(2, exec.ArenaBuffer, 0, 2, 3)},
	}
	launches, err := launch.Plan(d)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, l := range launches {
		fmt.Printf("%s threads=%d args=%dB\n", l.Kernel, l.Threads, len(l.Params))
		for _, b := range l.Buffers {
			fmt.Printf("  [%d] buf%d+%d v%d write=%v\n", b.Index, b.Buffer, b.OffsetBytes, b.Value, b.Write)
		}
	}
	// Output:
	// binary_f32 threads=6 args=212B
	//   [1] buf0+128 v0 write=false
	//   [2] buf1+0 v1 write=false
	//   [3] buf0+0 v2 write=true
}
