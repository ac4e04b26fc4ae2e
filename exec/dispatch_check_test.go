package exec_test

import (
	"testing"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/require"
)

func bind(dt ir.DType, dims ...int64) exec.Binding {
	return exec.Binding{DType: dt, Shape: ir.Shape(dims)}
}

func TestDispatchCheckTypes(t *testing.T) {
	f := ir.F32
	cases := []struct {
		name    string
		d       exec.Dispatch
		wantErr error
	}{
		{"relu ok", exec.Dispatch{Op: "Relu", Inputs: []exec.Binding{bind(f, 2)}, Outputs: []exec.Binding{bind(f, 2)}}, nil},
		{"concat ok", exec.Dispatch{Op: "Concat", Attrs: ir.Attrs{"axis": ir.Int(0)}, Inputs: []exec.Binding{bind(f, 2, 3), bind(f, 2, 3)}, Outputs: []exec.Binding{bind(f, 4, 3)}}, nil},
		{"relu larger output", exec.Dispatch{Op: "Relu", Inputs: []exec.Binding{bind(f, 2)}, Outputs: []exec.Binding{bind(f, 4)}}, exec.ErrProgram},
		{"concat narrow output", exec.Dispatch{Op: "Concat", Attrs: ir.Attrs{"axis": ir.Int(0)}, Inputs: []exec.Binding{bind(f, 2, 3), bind(f, 2, 3)}, Outputs: []exec.Binding{bind(f, 4, 2)}}, exec.ErrProgram},
		{"softmax larger output", exec.Dispatch{Op: "Softmax", Inputs: []exec.Binding{bind(f, 2, 3)}, Outputs: []exec.Binding{bind(f, 4, 4)}}, exec.ErrProgram},
		{"wrong dtype", exec.Dispatch{Op: "Relu", Inputs: []exec.Binding{bind(f, 2)}, Outputs: []exec.Binding{bind(ir.F64, 2)}}, exec.ErrProgram},
		{"too many inputs", exec.Dispatch{Op: "Relu", Inputs: []exec.Binding{bind(f, 2), bind(f, 2)}, Outputs: []exec.Binding{bind(f, 2)}}, exec.ErrProgram},
		{"no outputs", exec.Dispatch{Op: "Relu", Inputs: []exec.Binding{bind(f, 2)}}, exec.ErrProgram},
		{"split count", exec.Dispatch{Op: "Split", Attrs: ir.Attrs{"split": ir.Ints(1, 1)}, Inputs: []exec.Binding{bind(f, 2)}, Outputs: []exec.Binding{bind(f, 1)}}, exec.ErrProgram},
		{"unknown op", exec.Dispatch{Op: "LeakyRelu", Inputs: []exec.Binding{bind(f, 2)}, Outputs: []exec.Binding{bind(f, 2)}}, exec.ErrUnsupported},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.d.CheckTypes()
			if c.wantErr == nil {
				require.NoErrorf(t, err, "CheckTypes: %v", err)
				return
			}
			require.ErrorIsf(t, err, c.wantErr, "CheckTypes = %v, want %v", err, c.wantErr)
		})
	}
	var nilD *exec.Dispatch
	err := nilD.CheckTypes()
	require.ErrorIsf(t, err, exec.ErrProgram, "nil dispatch: %v", err)
}
