package metal

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/launch"
	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func f32Binding(v ir.ValueID, buf int, off int64, shape ...int64) exec.Binding {
	return exec.Binding{Value: v, Buffer: buf, OffsetBytes: off, DType: ir.F32, Shape: shape, StridesBytes: ir.ContiguousStrides(shape, 4)}
}

func TestGrid(t *testing.T) {
	tests := []struct {
		name          string
		threads       int64
		want, maxT    int
		groups, width int
	}{
		{"exact", 512, 256, 1024, 2, 256},
		{"partial", 513, 256, 1024, 3, 256},
		{"one", 1, 256, 1024, 1, 256},
		{"pipeline narrower", 1000, 256, 96, 11, 96},
		{"no pipeline limit", 10, 256, 0, 1, 256},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := threadsPerGroup(tc.want, tc.maxT)
			g := grid(tc.threads, w)
			assert.Falsef(t, g != tc.groups || w != tc.width, "grid = %d x %d, want %d x %d", g, w, tc.groups, tc.width)
		})
	}
}

func TestPlanErrors(t *testing.T) {
	half := f32Binding(2, 0, 0, 2, 3)
	half.DType, half.StridesBytes = ir.F16, ir.ContiguousStrides(half.Shape, 2)
	misaligned := f32Binding(0, 0, 2, 2, 3)
	tests := []struct {
		name string
		d    exec.Dispatch
		want []error
	}{
		{"unknown op", exec.Dispatch{Op: "Frobnicate", Inputs: []exec.Binding{f32Binding(0, 0, 0, 1)}, Outputs: []exec.Binding{f32Binding(1, 0, 4, 1)}},
			[]error{ErrUnsupported, exec.ErrUnsupported}},
		{"f16 add", exec.Dispatch{Op: "Add", Inputs: []exec.Binding{half, half}, Outputs: []exec.Binding{half}},
			[]error{ErrUnsupported, exec.ErrUnsupported}},
		{"misaligned offset", exec.Dispatch{Op: "Relu", Inputs: []exec.Binding{misaligned}, Outputs: []exec.Binding{f32Binding(1, 0, 64, 2, 3)}},
			[]error{ErrLayout}},
		{"rank 9", exec.Dispatch{Op: "Relu", Inputs: []exec.Binding{f32Binding(0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2)}, Outputs: []exec.Binding{f32Binding(1, 0, 64, 1, 1, 1, 1, 1, 1, 1, 1, 2)}},
			[]error{ErrUnsupported}},
		{"too large for 32-bit indexing", exec.Dispatch{Op: "Relu", Inputs: []exec.Binding{f32Binding(0, 0, 0, 1<<16, 1<<16)}, Outputs: []exec.Binding{f32Binding(1, 0, 0, 1<<16, 1<<16)}},
			[]error{ErrTooLarge}},
		{"bad broadcast", exec.Dispatch{Op: "Add", Inputs: []exec.Binding{f32Binding(0, 0, 0, 2, 3), f32Binding(1, 0, 64, 4)}, Outputs: []exec.Binding{f32Binding(2, 0, 128, 2, 3)}},
			[]error{ErrUnsupported}},
		{"too many inputs", exec.Dispatch{Op: "Relu", Inputs: []exec.Binding{f32Binding(0, 0, 0, 2), f32Binding(1, 0, 8, 2)}, Outputs: []exec.Binding{f32Binding(2, 0, 16, 2)}},
			[]error{ErrUnsupported, exec.ErrUnsupported}},
		{"shape rule rejects the attributes", exec.Dispatch{Op: "Reshape", Inputs: []exec.Binding{f32Binding(0, 0, 0, 2, 3)}, Outputs: []exec.Binding{f32Binding(1, 0, 64, 6)}},
			[]error{ErrUnsupported, exec.ErrUnsupported, ir.ErrAttr}},
	}
	// Outputs that disagree with the op's shape rule: each kernel would
	// index outside a binding, so every op must refuse them.
	b, cond, idx := f32Binding, exec.Binding{Value: 8, DType: ir.Bool, Shape: ir.Shape{2, 3}, StridesBytes: []int64{3, 1}, OffsetBytes: 400},
		exec.Binding{Value: 9, DType: ir.I64, Shape: ir.Shape{2}, StridesBytes: []int64{8}, OffsetBytes: 512}
	wrongOutput := map[string]exec.Dispatch{
		"Concat":            {Attrs: ir.Attrs{"axis": ir.Int(0)}, Inputs: []exec.Binding{b(0, 0, 0, 2, 3), b(2, 0, 64, 2, 3)}, Outputs: []exec.Binding{b(1, 0, 128, 4, 2)}},
		"Split":             {Attrs: ir.Attrs{"axis": ir.Int(0)}, Inputs: []exec.Binding{b(0, 0, 0, 4, 2)}, Outputs: []exec.Binding{b(1, 0, 64, 2, 3), b(2, 0, 128, 2, 3)}},
		"Softmax":           {Inputs: []exec.Binding{b(0, 0, 0, 2, 3)}, Outputs: []exec.Binding{b(1, 0, 64, 4, 4)}},
		"LogSoftmax":        {Inputs: []exec.Binding{b(0, 0, 0, 2, 3)}, Outputs: []exec.Binding{b(1, 0, 64, 4, 4)}},
		"LayerNorm":         {Attrs: ir.Attrs{"axis": ir.Int(-1)}, Inputs: []exec.Binding{b(0, 0, 0, 2, 3), b(2, 0, 256, 3)}, Outputs: []exec.Binding{b(1, 0, 64, 4, 4)}},
		"BatchNorm":         {Inputs: []exec.Binding{b(0, 0, 0, 1, 2, 2, 2), b(2, 0, 200, 2), b(3, 0, 220, 2), b(4, 0, 240, 2), b(5, 0, 260, 2)}, Outputs: []exec.Binding{b(1, 0, 64, 1, 4, 2, 2)}},
		"Pad":               {Attrs: ir.Attrs{"pads": ir.Ints(0, 0, 0, 0)}, Inputs: []exec.Binding{b(0, 0, 0, 2, 3)}, Outputs: []exec.Binding{b(1, 0, 64, 4, 4)}},
		"Slice":             {Attrs: ir.Attrs{"starts": ir.Ints(0), "ends": ir.Ints(1), "axes": ir.Ints(0)}, Inputs: []exec.Binding{b(0, 0, 0, 2, 3)}, Outputs: []exec.Binding{b(1, 0, 64, 4, 4)}},
		"MaxPool":           {Attrs: ir.Attrs{"kernel_shape": ir.Ints(1, 1)}, Inputs: []exec.Binding{b(0, 0, 0, 1, 1, 2, 2)}, Outputs: []exec.Binding{b(1, 0, 64, 1, 1, 4, 4)}},
		"GlobalAveragePool": {Inputs: []exec.Binding{b(0, 0, 0, 1, 1, 2, 2)}, Outputs: []exec.Binding{b(1, 0, 64, 1, 4, 4, 4)}},
		"Conv":              {Inputs: []exec.Binding{b(0, 0, 0, 1, 1, 2, 2), b(2, 0, 100, 1, 1, 1, 1)}, Outputs: []exec.Binding{b(1, 0, 64, 1, 1, 4, 4)}},
		"Gather":            {Inputs: []exec.Binding{b(0, 0, 0, 2, 3), idx}, Outputs: []exec.Binding{b(2, 0, 128, 5, 3)}},
		"Where":             {Inputs: []exec.Binding{cond, b(0, 0, 0, 2, 3), b(2, 0, 100, 2, 3)}, Outputs: []exec.Binding{b(1, 0, 64, 4, 4)}},
	}
	for _, op := range slices.Sorted(maps.Keys(wrongOutput)) {
		d := wrongOutput[op]
		d.Op = op
		tests = append(tests, struct {
			name string
			d    exec.Dispatch
			want []error
		}{op + " with a wrong output shape", d, []error{ErrUnsupported, exec.ErrUnsupported}})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := launch.Plan(&tc.d)
			for _, w := range tc.want {
				assert.ErrorIsf(t, err, w, "err = %v, want %v", err, w)
			}
			assert.Falsef(t, err != nil && !strings.Contains(err.Error(), "launch: "), "message %q does not name the planning package", err)
		})
	}
}

// runOne runs a one-dispatch Relu program on a fake device.
func runOne(t *testing.T, dev *fakeDevice, opts Options, fail string) (*exec.Timings, error) {
	t.Helper()
	be := newBackend(dev, opts)
	mem, err := be.Alloc([]exec.BufferSpec{{Bytes: 64, Root: -1}})
	require.NoErrorf(t, err, "%v", err)
	d := &exec.Dispatch{Op: "Relu", Name: "r", Inputs: []exec.Binding{f32Binding(0, 0, 0, 4)}, Outputs: []exec.Binding{f32Binding(1, 0, 16, 4)}}
	k, err := be.Prepare(d)
	require.NoErrorf(t, err, "%v", err)
	enc, err := be.NewEncoder(mem)
	require.NoErrorf(t, err, "%v", err)
	dev.runs[len(dev.runs)-1].failOn = fail
	err = enc.Dispatch(k, d)
	require.NoErrorf(t, err, "%v", err)
	err = enc.Commit()
	require.NoErrorf(t, err, "%v", err)
	return enc.Wait(context.Background())
}

func TestWaitErrorNamesCommandBuffer(t *testing.T) {
	kernels, _ := KernelNames()
	dev := newFakeDevice(kernels)
	_, err := runOne(t, dev, Options{Label: "graphX"}, "GPU hang")
	assert.Falsef(t, !errors.Is(err, ErrCommandBuffer) || !strings.Contains(err.Error(), `"graphX#1"`), "err = %v, want ErrCommandBuffer naming graphX#1", err)
}

func TestProfilingPerCommandBufferAndWarning(t *testing.T) {
	kernels, _ := KernelNames()
	var warnings []string
	warnf := func(format string, args ...any) { warnings = append(warnings, fmt.Sprintf(format, args...)) }
	prof := profile.New()
	dev := newFakeDevice(kernels)
	for run := 0; run < 2; run++ {
		tim, err := runOne(t, dev, Options{Profiler: prof, Warnf: warnf}, "")
		require.NoErrorf(t, err, "%v", err)
		assert.Nilf(t, tim, "timings %+v from a device without dispatch sampling", tim)
	}
	// Each runOne makes a new backend, so each warns once.
	assert.Falsef(t, len(warnings) != 2 || !strings.Contains(warnings[0], "dispatch boundaries"), "warnings %q", warnings)
	gs := prof.Groups()
	assert.Falsef(t, len(gs) != 2 || gs[0].EndNs-gs[0].StartNs != 8000, "profiled groups %+v, want two command buffers of 8000ns", gs)

	// One backend, two runs: one warning.
	warnings = nil
	be := newBackend(dev, Options{Profiler: prof, Warnf: warnf})
	mem, _ := be.Alloc([]exec.BufferSpec{{Bytes: 64, Root: -1}})
	for run := 0; run < 2; run++ {
		_, err := be.NewEncoder(mem)
		require.NoErrorf(t, err, "%v", err)
	}
	assert.Lenf(t, warnings, 1, "%d warnings from one backend, want 1", len(warnings))

	dev.timing = true
	tim, err := runOne(t, dev, Options{Profiler: prof, Warnf: warnf}, "")
	require.NoErrorf(t, err, "%v", err)
	assert.Falsef(t, tim == nil || len(tim.Dispatches) != 1 || tim.Dispatches[0] != (exec.Span{StartNs: 0, EndNs: 5}), "timings %+v, want dispatch 0 at [0, 5)", tim)
}

func TestEncoderMisuse(t *testing.T) {
	kernels, _ := KernelNames()
	dev := newFakeDevice(kernels)
	be := newBackend(dev, Options{})
	mem, _ := be.Alloc([]exec.BufferSpec{{Bytes: 64, Root: -1}})
	enc, _ := be.NewEncoder(mem)
	d := &exec.Dispatch{Op: "Relu"}
	if err := enc.Dispatch("not a kernel", d); !errors.Is(err, ErrBadHandle) {
		t.Errorf("foreign kernel: %v", err)
	}
	if _, err := enc.Wait(context.Background()); !errors.Is(err, ErrEncoderState) {
		t.Errorf("wait before commit: %v, want ErrEncoderState", err)
	}
	if err := enc.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := enc.Commit(); !errors.Is(err, ErrEncoderState) {
		t.Errorf("second commit: %v, want ErrEncoderState", err)
	}
	if err := enc.Dispatch(nil, d); !errors.Is(err, ErrBadHandle) {
		t.Errorf("nil kernel: %v, want ErrBadHandle", err)
	}
	relu := &exec.Dispatch{Op: "Relu", Inputs: []exec.Binding{f32Binding(0, 0, 0, 4)}, Outputs: []exec.Binding{f32Binding(1, 0, 16, 4)}}
	k, err := be.Prepare(relu)
	require.NoErrorf(t, err, "%v", err)
	err = enc.Dispatch(k, relu)
	assert.ErrorIsf(t, err, ErrEncoderState, "dispatch after commit: %v, want ErrEncoderState", err)
	_, err = newBackend(newFakeDevice(nil), Options{}).Prepare(&exec.Dispatch{Op: "Relu",
		Inputs: []exec.Binding{f32Binding(0, 0, 0, 4)}, Outputs: []exec.Binding{f32Binding(1, 0, 16, 4)}})
	assert.ErrorIsf(t, err, ErrKernel, "missing pipeline: %v", err)
}

func TestMemoryRange(t *testing.T) {
	tests := []struct {
		name     string
		buf      int
		off, n   int64
		wantFail bool
	}{
		{"inside", 0, 8, 8, false},
		{"to the end", 0, 0, 16, false},
		{"past the end", 0, 9, 8, true},
		{"negative offset", 0, -1, 1, true},
		{"no such buffer", 2, 0, 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := checkRange([]int64{16, 4}, tc.buf, tc.off, tc.n)
			assert.Falsef(t, (err != nil) != tc.wantFail || tc.wantFail && !errors.Is(err, ErrRange), "checkRange = %v, want failure %v", err, tc.wantFail)
		})
	}
}

func TestNewOffDarwin(t *testing.T) {
	be, err := New(Options{})
	if err == nil {
		t.Skip("a Metal device is present")
	}
	assert.Falsef(t, !errors.Is(err, ErrNoDevice) || be != nil, "New = %v, %v; want ErrNoDevice", be, err)
}

// A Reshape that is not a pure view (its input is strided) is a copy in
// logical order: the input described by its own strides, the output dense.
func TestPlanReshapeCopies(t *testing.T) {
	in := f32Binding(0, 0, 0, 3, 2)
	in.StridesBytes = []int64{4, 12} // a transposed [2 3]
	d := &exec.Dispatch{Op: "Reshape", Attrs: ir.Attrs{"shape": ir.Ints(6)}, Inputs: []exec.Binding{in}, Outputs: []exec.Binding{f32Binding(1, 0, 64, 6)}}
	ls, err := launch.Plan(d)
	require.NoErrorf(t, err, "%v", err)
	require.Falsef(t, len(ls) != 1 || ls[0].Kernel != "copy_b4" || ls[0].Threads != 6, "launches %+v", ls)
	a := ls[0].Args.(launch.CopyParams)
	var got []int32
	for i := int32(0); i < 6; i++ {
		got = append(got, off32(&a.In, i))
	}
	assert.Equalf(t, "[0 3 1 4 2 5]", fmt.Sprint(got), "input element order %v, want [0 3 1 4 2 5]", got)
}
