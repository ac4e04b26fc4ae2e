package cuda

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"slices"
	"testing"
	"unsafe"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/exec/launch"
	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testGraph: two inputs, a branch that can run concurrently (Relu, Neg),
// their join (Add), a Concat (one copy launch per piece) and a MatMul.
//
//	x ─ Relu ─┐
//	          Add ─ Concat(axis 1) ─ MatMul(·, w) ─ out
//	y ─ Neg ──┘
func testGraph(t *testing.T) *ir.Graph {
	t.Helper()
	b := ir.NewBuilder("cuda_unit")
	x := b.Input("x", ir.F32, 4, 4)
	y := b.Input("y", ir.F32, 4, 4)
	w := b.Input("w", ir.F32, 8, 4)
	s := b.Op("Add", nil, b.Op("Relu", nil, x), b.Op("Neg", nil, y))
	c := b.Op("Concat", ir.Attrs{"axis": ir.Int(1)}, s, x)
	b.Output(b.Op("MatMul", nil, c, w))
	g, err := b.Build()
	require.NoErrorf(t, err, "%v", err)
	return g
}

func compile(t *testing.T, g *ir.Graph, mode exec.Mode) *exec.Program {
	t.Helper()
	p, err := exec.Compile(context.Background(), g, exec.CompileOptions{Mode: mode})
	require.NoErrorf(t, err, "%v", err)
	return p
}

func inputs(t *testing.T, g *ir.Graph) map[ir.ValueID][]byte {
	t.Helper()
	in, err := exec.RandomInputs(g, 1)
	require.NoErrorf(t, err, "%v", err)
	return in
}

// TestAllocOneBufferPerSpec: one zeroed allocation per non-empty buffer,
// reads and writes at offsets, range checks, and Release frees them all.
func TestAllocOneBufferPerSpec(t *testing.T) {
	f := newFake(t)
	be := newBackend(f, Options{})
	mem, err := be.Alloc([]exec.BufferSpec{{Bytes: 96, Root: -1}, {Bytes: 0, Root: 1}, {Bytes: 40, Root: 2}})
	require.NoErrorf(t, err, "%v", err)
	if got := f.liveAllocs(); !slices.Equal(got, []int{40, 96}) {
		t.Errorf("allocations %v, want [40 96]", got)
	}
	n, total, err := AllocatedBytes(mem)
	assert.Falsef(t, err != nil || n != 2 || total != 136, "AllocatedBytes = %d, %d, %v; want 2, 136", n, total, err)
	got := make([]byte, 96)
	if err := mem.Read(0, 0, got); err != nil || !bytes.Equal(got, make([]byte, 96)) {
		t.Errorf("arena not zeroed: %v %v", got[:8], err)
	}
	err = mem.Write(0, 90, []byte{1, 2, 3, 4, 5, 6})
	require.NoErrorf(t, err, "%v", err)
	if err := mem.Read(0, 92, got[:4]); err != nil || !bytes.Equal(got[:4], []byte{3, 4, 5, 6}) {
		t.Errorf("read back %v, %v", got[:4], err)
	}
	for _, bad := range []struct {
		buf int
		off int64
		n   int
	}{{0, 91, 6}, {0, -1, 1}, {1, 0, 1}, {3, 0, 1}} {
		if err := mem.Write(bad.buf, bad.off, make([]byte, bad.n)); !errors.Is(err, ErrRange) {
			t.Errorf("write %d bytes at buf %d + %d: %v, want ErrRange", bad.n, bad.buf, bad.off, err)
		}
	}
	err = mem.Release()
	require.NoErrorf(t, err, "%v", err)
	if len(f.allocs) != 0 || f.freed != 2 {
		t.Errorf("%d allocations live, %d freed after Release", len(f.allocs), f.freed)
	}
}

// TestAllocFailureFreesEverything: a failed allocation releases the ones
// made before it.
func TestAllocFailureFreesEverything(t *testing.T) {
	f := newFake(t)
	be := newBackend(f, Options{})
	_, err := be.Alloc([]exec.BufferSpec{{Bytes: 8}, {Bytes: -1}})
	assert.ErrorIsf(t, err, exec.ErrProgram, "negative size: %v", err)
	f.failOn = "cuMemAlloc_v2"
	_, err = be.Alloc([]exec.BufferSpec{{Bytes: 8}})
	assert.ErrorIsf(t, err, ErrDriver, "failing driver: %v, want ErrDriver", err)
	if len(f.allocs) != 0 {
		t.Errorf("%d allocations left", len(f.allocs))
	}
}

// TestPackArgs: parameter 0 points at the argument struct's bytes, then one
// pointer per operand at an 8-byte slot holding the device address.
func TestPackArgs(t *testing.T) {
	l := &kernelLaunch{params: []byte{1, 2, 3, 4, 5}, ptrs: []devPtr{0x1000, 0x2008}}
	block, ptrs := packArgs(l)
	require.Lenf(t, ptrs, 3, "%d parameter pointers, want 3", len(ptrs))
	base := uintptr(unsafe.Pointer(&block[0]))
	if ptrs[0] != base || !bytes.Equal(block[:5], l.params) {
		t.Errorf("parameter 0 at %#x (block %#x): %v", ptrs[0], base, block[:5])
	}
	for i, p := range l.ptrs {
		off := ptrs[i+1] - base
		if off%8 != 0 || binary.LittleEndian.Uint64(block[off:]) != uint64(p) {
			t.Errorf("parameter %d: offset %d holds %#x, want %#x", i+1, off, binary.LittleEndian.Uint64(block[off:]), p)
		}
	}
}

// TestGraphBindsBasePlusOffset: every kernel node gets launch.Plan's
// argument bytes and, per operand, its buffer's base address plus the
// binding's plan offset.
func TestGraphBindsBasePlusOffset(t *testing.T) {
	g := testGraph(t)
	p := compile(t, g, exec.Inferred)
	f := newFake(t)
	be := newBackend(f, Options{})
	x, err := exec.Load(be, p)
	require.NoErrorf(t, err, "%v", err)
	defer x.Close()
	_, err = x.Run(context.Background(), inputs(t, g), exec.RunOptions{})
	require.NoErrorf(t, err, "%v", err)
	fg, err := f.only()
	require.NoErrorf(t, err, "%v", err)
	var want []launch.Launch
	for i := range p.Dispatches {
		ls, err := launch.Plan(&p.Dispatches[i])
		require.NoErrorf(t, err, "%v", err)
		want = append(want, ls...)
	}
	nodes := fg.kernelNodes()
	require.Lenf(t, nodes, len(want), "%d kernel nodes, %d launches planned", len(nodes), len(want))
	base := bases(f, p)
	for i, l := range want {
		n := nodes[i]
		kernel, _, err := shapeOf(&l)
		require.NoErrorf(t, err, "%v", err)
		if n.fn != f.kernels[kernel] || !bytes.Equal(n.params, l.Params) {
			t.Errorf("node %d: function %d params %d B, want %s (%d) %d B", i, n.fn, len(n.params), kernel, f.kernels[kernel], len(l.Params))
		}
		for j, bd := range l.Buffers {
			if w := base[bd.Buffer] + devPtr(bd.OffsetBytes); n.ptrs[j] != w {
				t.Errorf("node %d operand %d: %#x, want buffer %d base + %d = %#x", i, j, n.ptrs[j], bd.Buffer, bd.OffsetBytes, w)
			}
		}
	}
}

// bases maps each program buffer to the address the fake allocated for it
// (allocations are made in buffer order, skipping empty buffers).
func bases(f *fakeDriver, p *exec.Program) []devPtr {
	out := make([]devPtr, len(p.Buffers))
	k := 0
	for i, b := range p.Buffers {
		if b.Bytes > 0 && k < len(f.allocLog) {
			out[i] = f.allocLog[k]
			k++
		}
	}
	return out
}
