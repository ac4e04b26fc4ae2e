package exec

// Assembling a program from plain data.
//
// A program needs three facts per run: where each value lives (a buffer and
// the byte offset of its first element), the order of the dispatches, and
// where the barriers go. Assemble takes them as plain data, so the driver
// does not care whether they came from the planner and memranges ([Compile]),
// from the every-value-its-own-buffer reference ([Reference]), or from a
// test. Example: a graph x -> Relu -> y -> Reshape -> z with y at arena
// offset 64 gives one dispatch (Relu) binding x at buf1+0 and y at buf0+64;
// z is a view of y and makes no dispatch, but its Binding (buf0+64, its own
// shape) is what a reader of the output z uses.

import (
	"errors"
	"fmt"

	"github.com/memplan/memplan/ir"
)

// Location is where a value's first element lives: a buffer of
// Program.Buffers and a byte offset inside it.
type Location struct {
	Buffer      int
	OffsetBytes int64
}

// Layout is the storage of every value of a graph: the buffers and, indexed
// by ValueID, each value's location.
type Layout struct {
	Buffers []BufferSpec
	Values  []Location
}

// Assemble builds a program: one dispatch per node of order that is not a
// pure view, bound through lay, with a barrier before every dispatch index in
// barriers. It checks that every binding lies inside its buffer, that order
// is a valid schedule, that no node is opaque, and that barriers are sorted
// positions inside the program; it reports every problem it finds.
func Assemble(g *ir.Graph, order []ir.NodeID, lay Layout, mode Mode, barriers []int) (*Program, error) {
	if g == nil {
		return nil, fmt.Errorf("exec: nil graph: %w", ErrProgram)
	}
	if len(lay.Values) != len(g.Values) {
		return nil, fmt.Errorf("exec: layout has %d values for %d graph values: %w", len(lay.Values), len(g.Values), ErrProgram)
	}
	if len(lay.Buffers) == 0 {
		return nil, fmt.Errorf("exec: layout has no arena buffer: %w", ErrProgram)
	}
	// The order must run every node exactly once after its producers: a
	// node left out would leave its outputs unwritten, and nothing later
	// could notice.
	if err := g.CheckSchedule(order); err != nil {
		return nil, fmt.Errorf("exec: graph %q: %w (%w)", g.Name, err, ErrProgram)
	}
	p := &Program{Graph: g, Mode: mode, Buffers: lay.Buffers, Values: make([]Binding, len(g.Values))}
	var errs []error
	for _, v := range g.Values {
		b, err := bindValue(g, lay, v)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		p.Values[v.ID] = b
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	for _, id := range order {
		n := g.Node(id)
		if n == nil {
			errs = append(errs, fmt.Errorf("exec: schedule names node %d, not in the graph: %w", id, ErrProgram))
			continue
		}
		if g.IsViewNode(n) {
			continue
		}
		if n.Opaque {
			errs = append(errs, fmt.Errorf("exec: node %d %q (%s) is opaque and cannot run: %w", n.ID, n.Name, n.Op, ErrUnsupported))
		}
		d := Dispatch{Index: len(p.Dispatches), Node: n.ID, Name: n.Name, Op: n.Op, Attrs: n.Attrs}
		for _, v := range n.Inputs {
			d.Inputs = append(d.Inputs, p.Values[v])
		}
		for _, v := range n.Outputs {
			d.Outputs = append(d.Outputs, p.Values[v])
		}
		p.Dispatches = append(p.Dispatches, d)
	}
	last := 0
	for _, b := range barriers {
		if b <= last || b >= len(p.Dispatches) {
			errs = append(errs, fmt.Errorf("exec: barrier before dispatch %d is out of order or outside (0, %d): %w", b, len(p.Dispatches), ErrProgram))
			continue
		}
		last = b
		p.Barriers = append(p.Barriers, b)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return p, nil
}

// bindValue resolves v's location into a Binding and checks its window.
func bindValue(g *ir.Graph, lay Layout, v *ir.Value) (Binding, error) {
	loc := lay.Values[v.ID]
	if loc.Buffer < 0 || loc.Buffer >= len(lay.Buffers) {
		return Binding{}, fmt.Errorf("exec: value %d %q: buffer %d out of range [0, %d): %w", v.ID, v.Name, loc.Buffer, len(lay.Buffers), ErrProgram)
	}
	elem := v.DType.Size()
	strides := ir.ContiguousStrides(v.Shape, elem)
	if v.View != nil && v.View.StridesBytes != nil {
		if len(v.View.StridesBytes) != len(v.Shape) {
			return Binding{}, fmt.Errorf("exec: value %d %q: %d strides for rank %d: %w", v.ID, v.Name, len(v.View.StridesBytes), len(v.Shape), ErrProgram)
		}
		strides = append([]int64{}, v.View.StridesBytes...)
	}
	b := Binding{Value: v.ID, Buffer: loc.Buffer, OffsetBytes: loc.OffsetBytes, DType: v.DType, Shape: v.Shape.Clone(), StridesBytes: strides}
	b.LoBytes, b.HiBytes = window(b.OffsetBytes, elem, b.Shape, b.StridesBytes)
	if b.LoBytes < 0 || b.HiBytes > lay.Buffers[loc.Buffer].Bytes {
		return Binding{}, fmt.Errorf("exec: value %d %q: window [%d, %d) outside buffer %d of %d bytes: %w", v.ID, v.Name, b.LoBytes, b.HiBytes, loc.Buffer, lay.Buffers[loc.Buffer].Bytes, ErrProgram)
	}
	return b, nil
}

// window returns the half-open byte window [lo, hi) a strided tensor
// addresses; an empty tensor addresses nothing (lo == hi == off).
func window(off, elem int64, shape ir.Shape, strides []int64) (lo, hi int64) {
	lo, hi = off, off+elem
	for i, d := range shape {
		if d == 0 {
			return off, off
		}
		ext := (d - 1) * strides[i]
		if ext < 0 {
			lo += ext
		} else {
			hi += ext
		}
	}
	return lo, hi
}
