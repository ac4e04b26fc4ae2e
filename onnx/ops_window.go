package onnx

// Sliding windows: Conv, ConvTranspose, MaxPool and AveragePool share the
// stride/pad/dilation attributes; auto_pad resolves to explicit pads here,
// since memplan's ops take only explicit ones.

import (
	"fmt"

	"github.com/memplan/memplan/ir"
)

// window reads the 2-D sliding-window attributes shared by Conv and the
// pools, resolving auto_pad to explicit pads [top, left, bottom, right].
// kernel is the window's extent (from kernel_shape or the weight).
func (c *nodeCtx) window(a ir.Attrs, x ir.Shape, kernel []int64, withDilations bool) (string, error) {
	if len(x) != 4 || len(kernel) != 2 {
		return fmt.Sprintf("only 2-D windows are supported (input %v, kernel %v)", x, kernel), nil
	}
	strides, err1 := c.attrIntsOr("strides", 1, 1)
	dil, err2 := c.attrIntsOr("dilations", 1, 1)
	pads, err3 := c.attrIntsOr("pads", 0, 0, 0, 0)
	if err := firstErr(err1, err2, err3); err != nil {
		return "", err
	}
	if len(strides) != 2 || len(dil) != 2 || len(pads) != 4 {
		return "", fmt.Errorf("strides %v, dilations %v, pads %v: want 2, 2 and 4 entries: %w", strides, dil, pads, ErrAttr)
	}
	autoPad, err := c.attrStr("auto_pad", "NOTSET")
	if err != nil {
		return "", err
	}
	switch autoPad {
	case "NOTSET":
	case "VALID":
		pads = []int64{0, 0, 0, 0}
	case "SAME_UPPER", "SAME_LOWER":
		// Output extent ceil(in/stride); the padding that achieves it is
		// split evenly, the odd element going to the end (UPPER) or the
		// beginning (LOWER).
		for i := range 2 {
			if strides[i] < 1 {
				return "", fmt.Errorf("strides %v: %w", strides, ErrAttr)
			}
			out := (x[2+i] + strides[i] - 1) / strides[i]
			total := max(0, (out-1)*strides[i]+(kernel[i]-1)*dil[i]+1-x[2+i])
			lo := total / 2
			if autoPad == "SAME_LOWER" {
				lo = total - total/2
			}
			pads[i], pads[i+2] = lo, total-lo
		}
	default:
		return "", fmt.Errorf("auto_pad %q: %w", autoPad, ErrAttr)
	}
	a["strides"], a["pads"] = ir.Ints(strides...), ir.Ints(pads...)
	if withDilations {
		a["dilations"] = ir.Ints(dil...)
	} else if dil[0] != 1 || dil[1] != 1 {
		return fmt.Sprintf("dilations %v", dil), nil
	}
	return "", nil
}

// convOperands reads the operands of Conv and ConvTranspose: input x,
// weight w and an optional bias (input 2), with the types of x and w.
func (c *nodeCtx) convOperands() (ins []string, x, w ir.TensorType, err error) {
	if ins, err = c.tensorInputs(2); err != nil {
		return nil, x, w, err
	}
	ins = c.optionalInputs(ins, 2, 3)
	if x, err = c.typeOf(0); err != nil {
		return nil, x, w, err
	}
	w, err = c.typeOf(1)
	return ins, x, w, err
}

func mapConv(c *nodeCtx) (mapped, error) {
	ins, x, w, err := c.convOperands()
	if err != nil {
		return mapped{}, err
	}
	group, err := c.attrInt("group", 1)
	if err != nil {
		return mapped{}, err
	}
	a := ir.Attrs{"group": ir.Int(group)}
	if len(w.Shape) != 4 {
		return mapped{opaque: fmt.Sprintf("only 2-D convolutions are supported (weight %v)", w.Shape)}, nil
	}
	reason, err := c.window(a, x.Shape, w.Shape[2:], true)
	return mapped{op: "Conv", attrs: a, inputs: ins, opaque: reason}, err
}

func mapConvTranspose(c *nodeCtx) (mapped, error) {
	ins, x, w, err := c.convOperands()
	if err != nil {
		return mapped{}, err
	}
	if c.has("output_shape") {
		return mapped{opaque: "ConvTranspose with output_shape"}, nil
	}
	if ap, _ := c.attrStr("auto_pad", "NOTSET"); ap != "NOTSET" && ap != "VALID" {
		return mapped{opaque: "ConvTranspose with auto_pad " + ap}, nil
	}
	if len(w.Shape) != 4 {
		return mapped{opaque: fmt.Sprintf("only 2-D transposed convolutions are supported (weight %v)", w.Shape)}, nil
	}
	group, err := c.attrInt("group", 1)
	if err != nil {
		return mapped{}, err
	}
	a := ir.Attrs{"group": ir.Int(group)}
	if op, ok, err := c.attrInts("output_padding"); err != nil {
		return mapped{}, err
	} else if ok {
		a["output_padding"] = ir.Ints(op...)
	}
	reason, err := c.window(a, x.Shape, w.Shape[2:], true)
	return mapped{op: "ConvTranspose", attrs: a, inputs: ins, opaque: reason}, err
}

func mapPool(op string) mapper {
	return func(c *nodeCtx) (mapped, error) {
		ins, err := c.tensorInputs(1)
		if err != nil {
			return mapped{}, err
		}
		x, err := c.typeOf(0)
		if err != nil {
			return mapped{}, err
		}
		if c.extraUsed(1) {
			return mapped{opaque: op + " indices output"}, nil
		}
		if so, err := c.attrInt("storage_order", 0); err != nil || so != 0 {
			return mapped{opaque: op + " with column-major storage_order"}, err
		}
		ks, ok, err := c.attrInts("kernel_shape")
		if err != nil {
			return mapped{}, err
		}
		if !ok {
			return mapped{}, fmt.Errorf("%s needs kernel_shape: %w", op, ErrAttr)
		}
		ceil, err := c.attrInt("ceil_mode", 0)
		if err != nil {
			return mapped{}, err
		}
		a := ir.Attrs{"kernel_shape": ir.Ints(ks...), "ceil_mode": ir.Int(ceil)}
		if op == "AveragePool" {
			cip, err := c.attrInt("count_include_pad", 0)
			if err != nil {
				return mapped{}, err
			}
			a["count_include_pad"] = ir.Int(cip)
		}
		reason, err := c.window(a, x.Shape, ks, true)
		return mapped{op: op, attrs: a, inputs: ins, opaque: reason}, err
	}
}
