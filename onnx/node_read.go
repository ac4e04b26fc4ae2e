package onnx

// Reading one node: its inputs and outputs by position (an empty name is an
// absent optional one), their types, the inputs known at import time as
// constants, and its attributes with their expected ONNX types. A missing
// attribute gives the default; an attribute of the wrong type is an error
// wrapping ErrAttr that names the attribute.

import (
	"fmt"

	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/onnx/onnxpb"
)

// output returns the name of output i, or "" when absent.
func (c *nodeCtx) output(i int) string {
	if i < len(c.n.GetOutput()) {
		return c.n.GetOutput()[i]
	}
	return ""
}

// input returns the name of input i, or "" when absent or empty (optional).
func (c *nodeCtx) input(i int) string {
	if i < len(c.n.GetInput()) {
		return c.n.GetInput()[i]
	}
	return ""
}

// extraUsed reports whether any output from index i on is read or output.
func (c *nodeCtx) extraUsed(i int) bool {
	for _, o := range c.n.GetOutput()[min(i, len(c.n.GetOutput())):] {
		if o != "" && c.imp.uses[o] > 0 {
			return true
		}
	}
	return false
}

// typeOf returns the known type of input i.
func (c *nodeCtx) typeOf(i int) (ir.TensorType, error) {
	e := c.imp.ents[c.input(i)]
	if e == nil || !e.typed {
		return ir.TensorType{}, fmt.Errorf("input %d %q has no known type: %w", i, c.input(i), ErrNoShape)
	}
	return e.typ, nil
}

// konstInput returns input i's values, nil when the input is absent, and
// ErrNotConstant when it is not known at import time.
func (c *nodeCtx) konstInput(i int, what string) (*konst, error) {
	name := c.input(i)
	if name == "" {
		return nil, nil
	}
	e := c.imp.ents[name]
	if e.k == nil {
		return nil, fmt.Errorf("%s (input %d %q): %w", what, i, name, ErrNotConstant)
	}
	return e.k, nil
}

// intsInput returns input i as an integer list (nil, false when absent).
func (c *nodeCtx) intsInput(i int, what string) ([]int64, bool, error) {
	k, err := c.konstInput(i, what)
	if err != nil || k == nil {
		return nil, false, err
	}
	v, err := k.intList(what)
	return v, err == nil, err
}

func (c *nodeCtx) has(name string) bool { return c.attrs[name] != nil }

func (c *nodeCtx) attrInt(name string, def int64) (int64, error) {
	a := c.attrs[name]
	if a == nil {
		return def, nil
	}
	if a.GetType() != onnxpb.AttributeProto_INT {
		return 0, fmt.Errorf("attribute %q is %v, want INT: %w", name, a.GetType(), ErrAttr)
	}
	return a.GetI(), nil
}

func (c *nodeCtx) attrInts(name string) ([]int64, bool, error) {
	a := c.attrs[name]
	if a == nil {
		return nil, false, nil
	}
	if a.GetType() != onnxpb.AttributeProto_INTS {
		return nil, false, fmt.Errorf("attribute %q is %v, want INTS: %w", name, a.GetType(), ErrAttr)
	}
	return append([]int64{}, a.GetInts()...), true, nil
}

func (c *nodeCtx) attrFloat(name string, def float64) (float64, error) {
	a := c.attrs[name]
	if a == nil {
		return def, nil
	}
	if a.GetType() != onnxpb.AttributeProto_FLOAT {
		return 0, fmt.Errorf("attribute %q is %v, want FLOAT: %w", name, a.GetType(), ErrAttr)
	}
	return float64(a.GetF()), nil
}

func (c *nodeCtx) attrStr(name, def string) (string, error) {
	a := c.attrs[name]
	if a == nil {
		return def, nil
	}
	if a.GetType() != onnxpb.AttributeProto_STRING {
		return "", fmt.Errorf("attribute %q is %v, want STRING: %w", name, a.GetType(), ErrAttr)
	}
	return string(a.GetS()), nil
}

// attrIntsOr is attrInts with def when the attribute is absent.
func (c *nodeCtx) attrIntsOr(name string, def ...int64) ([]int64, error) {
	v, ok, err := c.attrInts(name)
	if !ok || err != nil {
		return def, err
	}
	return v, nil
}
