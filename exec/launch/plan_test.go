package launch

import (
	"errors"
	"testing"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/assert"
)

// TestIntegerBinaries: i64 Add/Sub/Mul/Max/Min plan onto binary_i64; i64
// Div and Pow (which can fail on integers) and mixed dtypes stay
// unsupported.
func TestIntegerBinaries(t *testing.T) {
	bind := func(v ir.ValueID, off int64, dt ir.DType) exec.Binding {
		return exec.Binding{Value: v, OffsetBytes: off, DType: dt, Shape: ir.Shape{2, 3}, StridesBytes: ir.ContiguousStrides(ir.Shape{2, 3}, dt.Size())}
	}
	for _, tc := range []struct {
		op     string
		dt     ir.DType
		kernel string
	}{
		{"Add", ir.I64, "binary_i64"},
		{"Mul", ir.I64, "binary_i64"},
		{"Min", ir.I64, "binary_i64"},
		{"Mul", ir.F32, "binary_f32"},
		{"Div", ir.I64, ""},
		{"Pow", ir.I64, ""},
		{"Add", ir.I32, ""},
	} {
		d := &exec.Dispatch{Op: tc.op, Inputs: []exec.Binding{bind(0, 0, tc.dt), bind(1, 64, tc.dt)}, Outputs: []exec.Binding{bind(2, 128, tc.dt)}}
		ls, err := Plan(d)
		if tc.kernel == "" {
			assert.Falsef(t, !errors.Is(err, ErrUnsupported) || !errors.Is(err, exec.ErrUnsupported), "%s %v: err = %v, want unsupported", tc.op, tc.dt, err)
			continue
		}
		assert.Falsef(t, err != nil || len(ls) != 1 || ls[0].Kernel != tc.kernel || ls[0].Threads != 6, "%s %v: %v, %+v; want one %s launch of 6 threads", tc.op, tc.dt, err, ls, tc.kernel)
	}
}
