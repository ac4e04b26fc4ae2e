package exec

import (
	"fmt"

	"github.com/memplan/memplan/ir"
)

// CheckTypes holds a dispatch to its op's shape rule (ir.OpInfo), as
// ir.Validate holds a node: the input count must be in the op's range and
// the output bindings must have exactly the dtypes and shapes the rule gives
// for the input bindings. Kernels index their operands by the bindings'
// shapes, so a backend calls this before it prepares a kernel: a Concat
// output narrower than its inputs or a Softmax output larger than its input
// would otherwise make a kernel read or write outside its bindings. Errors
// wrap ErrUnsupported (an op outside the core set) or ErrProgram.
func (d *Dispatch) CheckTypes() error {
	if d == nil {
		return fmt.Errorf("exec: nil dispatch: %w", ErrProgram)
	}
	info, ok := ir.LookupOp(d.Op)
	if !ok {
		return fmt.Errorf("exec: dispatch %d (%s %q): op outside the core set: %w", d.Index, d.Op, d.Name, ErrUnsupported)
	}
	if len(d.Inputs) < info.MinInputs || len(d.Inputs) > info.MaxInputs || len(d.Outputs) == 0 {
		return fmt.Errorf("exec: dispatch %d (%s %q): %d inputs (want %d..%d), %d outputs: %w",
			d.Index, d.Op, d.Name, len(d.Inputs), info.MinInputs, info.MaxInputs, len(d.Outputs), ErrProgram)
	}
	in := make([]ir.TensorType, len(d.Inputs))
	for i, b := range d.Inputs {
		in[i] = ir.TensorType{DType: b.DType, Shape: b.Shape}
	}
	want, err := info.Infer(in, d.Attrs)
	if err != nil {
		return fmt.Errorf("exec: dispatch %d (%s %q): %w: %w", d.Index, d.Op, d.Name, ErrProgram, err)
	}
	if len(want) != len(d.Outputs) {
		return fmt.Errorf("exec: dispatch %d (%s %q): %d outputs, the op gives %d: %w", d.Index, d.Op, d.Name, len(d.Outputs), len(want), ErrProgram)
	}
	for j, o := range d.Outputs {
		if o.DType != want[j].DType || !o.Shape.Equal(want[j].Shape) {
			return fmt.Errorf("exec: dispatch %d (%s %q): output %d (value %d) is %v%v, the op gives %v: %w",
				d.Index, d.Op, d.Name, j, o.Value, o.DType, o.Shape, want[j], ErrProgram)
		}
	}
	return nil
}
