package cpu_test

import (
	"testing"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/cpu"
	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/assert"
)

// TestPrepareRejectsShapeMismatch: kernels index by binding shapes, so a
// dispatch whose outputs disagree with its op's rule must be refused before
// a kernel can read or write outside its bindings.
func TestPrepareRejectsShapeMismatch(t *testing.T) {
	b := func(dims ...int64) exec.Binding {
		return exec.Binding{DType: ir.F32, Shape: ir.Shape(dims), StridesBytes: ir.ContiguousStrides(ir.Shape(dims), 4)}
	}
	be := cpu.New(cpu.Options{})
	bad := map[string]*exec.Dispatch{
		"concat":  {Op: "Concat", Attrs: ir.Attrs{"axis": ir.Int(0)}, Inputs: []exec.Binding{b(2, 3), b(2, 3)}, Outputs: []exec.Binding{b(4, 2)}},
		"softmax": {Op: "Softmax", Inputs: []exec.Binding{b(2, 3)}, Outputs: []exec.Binding{b(4, 4)}},
		"relu":    {Op: "Relu", Inputs: []exec.Binding{b(2)}, Outputs: []exec.Binding{b(4)}},
	}
	for name, d := range bad {
		_, err := be.Prepare(d)
		assert.ErrorIsf(t, err, exec.ErrProgram, "%s: Prepare = %v, want ErrProgram", name, err)
	}
	_, err := be.Prepare(&exec.Dispatch{Op: "Relu", Inputs: []exec.Binding{b(2)}, Outputs: []exec.Binding{b(2)}})
	assert.NoErrorf(t, err, "well-typed Relu: %v", err)
}
