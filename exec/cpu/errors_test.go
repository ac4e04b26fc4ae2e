package cpu

import (
	"context"
	"errors"
	"testing"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/require"
)

// TestPrepareRejects: ops and dtypes the backend lacks, and malformed
// bindings, are errors from Prepare, never panics at run time.
func TestPrepareRejects(t *testing.T) {
	be := New(Options{})
	f16 := bind(0, 0, ir.F16, []int64{2}, []int64{2}, 0)
	f32 := bind(0, 0, ir.F32, []int64{2}, []int64{4}, 0)
	badStrides := f32
	badStrides.StridesBytes = nil
	cases := []struct {
		name string
		d    exec.Dispatch
		want error
	}{
		{"unknown op", exec.Dispatch{Op: "Frobnicate", Inputs: []exec.Binding{f32}, Outputs: []exec.Binding{f32}}, exec.ErrUnsupported},
		{"f16", exec.Dispatch{Op: "Relu", Inputs: []exec.Binding{f16}, Outputs: []exec.Binding{f16}}, exec.ErrUnsupported},
		{"arity", exec.Dispatch{Op: "Add", Inputs: []exec.Binding{f32}, Outputs: []exec.Binding{f32}}, exec.ErrProgram},
		{"no outputs", exec.Dispatch{Op: "Relu", Inputs: []exec.Binding{f32}}, exec.ErrProgram},
		{"strides missing", exec.Dispatch{Op: "Relu", Inputs: []exec.Binding{badStrides}, Outputs: []exec.Binding{f32}}, exec.ErrProgram},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := be.Prepare(&c.d)
			require.ErrorIsf(t, err, c.want, "got %v, want %v", err, c.want)
		})
	}
}

// TestRunErrorsNotPanics: a hand-built dispatch whose binding lies outside
// its buffer, and a Gather index out of range, fail the run with an error.
func TestRunErrorsNotPanics(t *testing.T) {
	be := New(Options{})
	mem, err := be.Alloc([]exec.BufferSpec{{Bytes: 8, Root: -1}, {Bytes: 8, Root: -1}})
	require.NoErrorf(t, err, "%v", err)
	outside := bind(0, 0, ir.F32, []int64{4}, []int64{4}, 0) // 16 bytes of an 8-byte buffer
	idx := bind(1, 1, ir.I64, []int64{1}, []int64{8}, 0)
	err = mem.Write(1, 0, []byte{9, 0, 0, 0, 0, 0, 0, 0})
	require.NoErrorf(t, err, "%v", err)
	data := bind(2, 0, ir.F32, []int64{2}, []int64{4}, 0)
	out := bind(3, 0, ir.F32, []int64{1}, []int64{4}, 0)
	for _, d := range []*exec.Dispatch{
		{Op: "Relu", Name: "outside", Inputs: []exec.Binding{outside}, Outputs: []exec.Binding{outside}},
		{Op: "Gather", Name: "index 9 of 2", Index: 1, Inputs: []exec.Binding{data, idx}, Outputs: []exec.Binding{out}},
	} {
		k, err := be.Prepare(d)
		if err != nil {
			t.Fatalf("%s: prepare: %v", d.Name, err)
		}
		enc, err := be.NewEncoder(mem)
		require.NoErrorf(t, err, "%v", err)
		err = enc.Dispatch(k, d)
		require.NoErrorf(t, err, "%v", err)
		err = enc.Commit()
		require.NoErrorf(t, err, "%v", err)
		if _, err := enc.Wait(context.Background()); err == nil {
			t.Errorf("%s: run succeeded", d.Name)
		}
	}
}

// TestAllocCap: with MaxBytes set, buffers that add up past it are refused
// before any is allocated; within it they are allocated.
func TestAllocCap(t *testing.T) {
	be := New(Options{MaxBytes: 1 << 20})
	specs := []exec.BufferSpec{{Bytes: 1 << 19, Root: -1}, {Bytes: 1 << 19, Root: 0}, {Bytes: 1, Root: 1}}
	if _, err := be.Alloc(specs); !errors.Is(err, exec.ErrBackend) {
		t.Fatalf("over the cap: %v", err)
	}
	m, err := be.Alloc(specs[:2])
	require.NoErrorf(t, err, "at the cap: %v", err)
	_ = m.Release()
}
