package cpu

import (
	"fmt"
	"slices"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/ir"
)

// call is one dispatch's run: its bindings resolved against the memory.
type call struct {
	d       *exec.Dispatch
	mem     *memory
	threads int
}

func (c *call) in(i int) tensor { return newTensor(c.mem.bufs[c.d.Inputs[i].Buffer], &c.d.Inputs[i]) }
func (c *call) out(i int) tensor {
	return newTensor(c.mem.bufs[c.d.Outputs[i].Buffer], &c.d.Outputs[i])
}
func (c *call) nin() int        { return len(c.d.Inputs) }
func (c *call) attrs() ir.Attrs { return c.d.Attrs }

// kernelFunc runs one dispatch.
type kernelFunc func(c *call) error

// kernels maps every op of the core set to its kernel.
var kernels = map[string]kernelFunc{}

func register(fn kernelFunc, names ...string) {
	for _, n := range names {
		kernels[n] = fn
	}
}

// Ops returns the ops the CPU backend runs, sorted.
func Ops() []string {
	names := make([]string, 0, len(kernels))
	for n := range kernels {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// lookup finds d's kernel and checks arity, dtypes and that every binding
// is well formed, so a run cannot index outside a buffer's window.
func lookup(d *exec.Dispatch) (kernelFunc, error) {
	fn, ok := kernels[d.Op]
	if !ok {
		return nil, fmt.Errorf("cpu: dispatch %d %q: op %q: %w", d.Index, d.Name, d.Op, exec.ErrUnsupported)
	}
	if info, ok := ir.LookupOp(d.Op); ok {
		if len(d.Inputs) < info.MinInputs || len(d.Inputs) > info.MaxInputs {
			return nil, fmt.Errorf("cpu: dispatch %d %q (%s): %d inputs, want %d..%d: %w", d.Index, d.Name, d.Op, len(d.Inputs), info.MinInputs, info.MaxInputs, exec.ErrProgram)
		}
	}
	if len(d.Outputs) == 0 {
		return nil, fmt.Errorf("cpu: dispatch %d %q (%s): no outputs: %w", d.Index, d.Name, d.Op, exec.ErrProgram)
	}
	for _, bs := range [][]exec.Binding{d.Inputs, d.Outputs} {
		for i := range bs {
			b := &bs[i]
			if !supported(b.DType) {
				return nil, fmt.Errorf("cpu: dispatch %d %q (%s): value %d is %v: %w", d.Index, d.Name, d.Op, b.Value, b.DType, exec.ErrUnsupported)
			}
			if len(b.StridesBytes) != len(b.Shape) {
				return nil, fmt.Errorf("cpu: dispatch %d %q (%s): value %d has %d strides for rank %d: %w", d.Index, d.Name, d.Op, b.Value, len(b.StridesBytes), len(b.Shape), exec.ErrProgram)
			}
			for _, x := range b.Shape {
				if x < 0 {
					return nil, fmt.Errorf("cpu: dispatch %d %q (%s): value %d has shape %v: %w", d.Index, d.Name, d.Op, b.Value, b.Shape, exec.ErrProgram)
				}
			}
		}
	}
	return fn, nil
}

// kernelErr builds an error naming the op.
func kernelErr(c *call, format string, args ...any) error {
	return fmt.Errorf("cpu: %s: %s: %w", c.d.Op, fmt.Sprintf(format, args...), ErrKernel)
}

// overlapsUnsafely reports whether in shares bytes with out in a way that
// chunked processing could break: same buffer, intersecting windows, and
// not the identical layout (element k of both at the same byte).
func overlapsUnsafely(out, in tensor) bool {
	if len(out.buf) == 0 || len(in.buf) == 0 || &out.buf[0] != &in.buf[0] {
		return false
	}
	olo, ohi := span(out)
	ilo, ihi := span(in)
	if !(olo < ihi && ilo < ohi) {
		return false
	}
	if out.off != in.off || !slices.Equal(out.shape, in.shape) {
		return true
	}
	for i := range out.shape {
		if out.shape[i] > 1 && out.strides[i] != in.strides[i] {
			return true
		}
	}
	return false
}

// span is t's byte window [lo, hi).
func span(t tensor) (lo, hi int64) {
	lo, hi = t.off, t.off+t.dt.Size()
	for i, d := range t.shape {
		if d == 0 {
			return t.off, t.off
		}
		e := (d - 1) * t.strides[i]
		if e < 0 {
			lo += e
		} else {
			hi += e
		}
	}
	return lo, hi
}
