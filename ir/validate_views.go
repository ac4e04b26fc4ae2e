package ir

// View checks: chains of views must end at a root, and every byte a view
// can address must lie inside that root.
//
// View bounds, worked: a root f32[4,8] has 128 bytes. The view
// {base: root, offset: 4, strides: [32, 8]} of shape f32[4,4] addresses bytes
// from 4 (index [0,0]) to 4 + 3*32 + 3*8 + 4 = 128 (exclusive, index [3,3]
// plus one element): inside. With offset 8 it would end at 132: out of bounds.
// The check computes the lowest and highest addressed byte over the whole
// index box (negative strides count toward the low end), so it covers every
// element without visiting any.

import (
	"fmt"
	"math/bits"
	"slices"
)

// bound is far beyond any valid offset (MaxBytes is 2^48); arithmetic on
// offsets saturates there so that it cannot overflow int64.
const bound = int64(1) << 56

// satAdd returns a+b saturated to [-bound, bound].
func satAdd(a, b int64) int64 {
	s := a + b
	switch {
	case s > bound || (a > 0 && b > 0 && s < 0):
		return bound
	case s < -bound || (a < 0 && b < 0 && s > 0):
		return -bound
	}
	return s
}

// satMul returns n*s saturated to [-bound, bound], for n >= 0.
func satMul(n, s int64) int64 {
	neg := s < 0
	if neg {
		s = -s // s >= -2^63+1 after the caller's clamp
	}
	hi, lo := bits.Mul64(uint64(n), uint64(s))
	p := bound
	if hi == 0 && lo < uint64(bound) {
		p = int64(lo)
	}
	if neg {
		return -p
	}
	return p
}

// clamp limits x to [-bound, bound].
func clamp(x int64) int64 { return max(-bound, min(bound, x)) }

func (c *checker) views() {
	g := c.g
	c.root, c.off, c.chainErr = viewChains(g, func(id ValueID, err error) { c.valueErr(id, "%w", err) })
	for i, v := range g.Values {
		if v != nil && v.View != nil && c.chainErr[i] == nil && c.okVal[i] && c.okVal[c.root[i]] {
			c.viewBounds(ValueID(i), v)
		}
	}
}

// viewBounds checks that every byte view v addresses lies inside its root.
func (c *checker) viewBounds(id ValueID, v *Value) {
	elem := v.DType.Size()
	strides := v.View.StridesBytes
	if strides == nil {
		strides = ContiguousStrides(v.Shape, elem)
	}
	if len(strides) != len(v.Shape) {
		c.valueErr(id, "%d strides for rank %d: %w", len(strides), len(v.Shape), ErrShape)
		return
	}
	rootSize := c.size[c.root[id]]
	start := c.off[id]
	where := fmt.Sprintf("view of root %s", c.valueName(c.root[id]))
	if start%elem != 0 {
		c.valueErr(id, "%s starts at byte %d, not a multiple of the %v element size %d: %w", where, start, v.DType, elem, ErrViewBounds)
		return
	}
	for k, s := range strides {
		if s%elem != 0 && v.Shape[k] > 1 {
			c.valueErr(id, "stride %d of %d bytes is not a multiple of the %v element size %d: %w", k, s, v.DType, elem, ErrViewBounds)
			return
		}
	}
	if slices.Contains(v.Shape, 0) { // addresses nothing; its start must still be inside
		if start < 0 || start > rootSize {
			c.valueErr(id, "empty %s starts at byte %d, outside [0, %d): %w", where, start, rootSize, ErrViewBounds)
		}
		return
	}
	lo, hi := start, satAdd(start, elem)
	for k, d := range v.Shape {
		span := satMul(d-1, clamp(strides[k]))
		if span < 0 {
			lo = satAdd(lo, span)
		} else {
			hi = satAdd(hi, span)
		}
	}
	if lo < 0 || hi > rootSize {
		c.valueErr(id, "%s addresses bytes [%d, %d), outside [0, %d): %w", where, lo, hi, rootSize, ErrViewBounds)
	}
}
