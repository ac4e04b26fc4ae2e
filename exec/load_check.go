package exec

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// checkBindings makes sure every byte a backend could touch through the
// program's bindings lies inside its buffer, with overflow-checked
// arithmetic, so that a corrupted or hand-made program is refused by Load
// instead of crashing a kernel: every dispatch operand and every value
// location with a shape.
func checkBindings(p *Program) error {
	var errs []error
	check := func(where string, b *Binding) {
		if b.Buffer < 0 || b.Buffer >= len(p.Buffers) {
			errs = append(errs, fmt.Errorf("exec: %s: %v: buffer %d of %d: %w", where, b, b.Buffer, len(p.Buffers), ErrProgram))
			return
		}
		lo, hi, ok := checkedWindow(b)
		if !ok || lo < 0 || hi > p.Buffers[b.Buffer].Bytes {
			errs = append(errs, fmt.Errorf("exec: %s: %v addresses bytes outside its %d-byte buffer: %w", where, b, p.Buffers[b.Buffer].Bytes, ErrProgram))
		}
	}
	for i := range p.Dispatches {
		d := &p.Dispatches[i]
		for k := range d.Inputs {
			check(fmt.Sprintf("dispatch %d %q input %d", i, d.Name, k), &d.Inputs[k])
		}
		for k := range d.Outputs {
			check(fmt.Sprintf("dispatch %d %q output %d", i, d.Name, k), &d.Outputs[k])
		}
	}
	for i := range p.Values {
		if p.Values[i].Shape != nil || p.Values[i].Buffer >= 0 {
			check(fmt.Sprintf("value %d", i), &p.Values[i])
		}
	}
	if len(errs) > 20 {
		errs = append(errs[:20], fmt.Errorf("exec: %d more bindings outside their buffers: %w", len(errs)-20, ErrProgram))
	}
	return errors.Join(errs...)
}

// checkedWindow returns the byte window b addresses, or ok=false when the
// strides do not match the shape or the arithmetic leaves int64.
func checkedWindow(b *Binding) (lo, hi int64, ok bool) {
	if len(b.StridesBytes) != len(b.Shape) {
		return 0, 0, false
	}
	lo, hi = b.OffsetBytes, b.OffsetBytes
	if hi > math.MaxInt64-b.DType.Size() {
		return 0, 0, false
	}
	hi += b.DType.Size()
	for k, d := range b.Shape {
		if d == 0 {
			return b.OffsetBytes, b.OffsetBytes, true
		}
		if d < 0 {
			return 0, 0, false
		}
		s := b.StridesBytes[k]
		neg := s < 0
		if neg {
			if s == math.MinInt64 {
				return 0, 0, false
			}
			s = -s
		}
		h, l := bits.Mul64(uint64(d-1), uint64(s))
		if h != 0 || l > math.MaxInt64 {
			return 0, 0, false
		}
		ext := int64(l)
		if neg {
			if lo < math.MinInt64+ext {
				return 0, 0, false
			}
			lo -= ext
		} else {
			if hi > math.MaxInt64-ext {
				return 0, 0, false
			}
			hi += ext
		}
	}
	return lo, hi, true
}
