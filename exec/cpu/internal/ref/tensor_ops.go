package ref

// Normalisations, reductions and data movement, by definition.

import (
	"fmt"
	"math"

	"github.com/memplan/memplan/ir"
)

func axisOf(a ir.Attrs, def int64, rank int) int {
	ax := a.GetInt("axis", def)
	if ax < 0 {
		ax += int64(rank)
	}
	return int(ax)
}

func norm(op string, ins []Tensor, a ir.Attrs, out []int64) Tensor {
	x := ins[0]
	y := newT(out)
	r := len(x.Shape)
	switch op {
	case "BatchNorm":
		eps := a.GetFloat("epsilon", 1e-5)
		for k := range y.Data {
			c := unravel(int64(k), x.Shape)[1]
			y.Data[k] = ins[1].Data[c]*(x.Data[k]-ins[3].Data[c])/math.Sqrt(ins[4].Data[c]+eps) + ins[2].Data[c]
		}
	case "LayerNorm", "RMSNorm":
		ax := axisOf(a, -1, r)
		inner := size(x.Shape[ax:])
		eps := a.GetFloat("epsilon", map[bool]float64{true: 1e-6, false: 1e-5}[op == "RMSNorm"])
		for o := int64(0); o < size(x.Shape[:ax]); o++ {
			row := x.Data[o*inner : (o+1)*inner]
			mean, vr := 0.0, 0.0
			if op == "LayerNorm" {
				for _, e := range row {
					mean += e / float64(inner)
				}
			}
			for _, e := range row {
				vr += (e - mean) * (e - mean) / float64(inner)
			}
			for i, e := range row {
				v := (e - mean) / math.Sqrt(vr+eps) * ins[1].Data[i]
				if len(ins) == 3 {
					v += ins[2].Data[i]
				}
				y.Data[o*inner+int64(i)] = v
			}
		}
	case "Softmax", "LogSoftmax":
		ax := axisOf(a, -1, r)
		for k := range y.Data {
			idx := unravel(int64(k), x.Shape)
			den := 0.0
			for j := int64(0); j < x.Shape[ax]; j++ {
				o := append([]int64{}, idx...)
				o[ax] = j
				den += math.Exp(x.Data[ravel(o, x.Shape)])
			}
			if op == "Softmax" {
				y.Data[k] = math.Exp(x.Data[k]) / den
			} else {
				y.Data[k] = x.Data[k] - math.Log(den)
			}
		}
	}
	return y
}

func reduce(op string, x Tensor, a ir.Attrs, out []int64) Tensor {
	red, _ := ir.ReduceAxes(len(x.Shape), a)
	keep := make([]int64, len(x.Shape))
	for i, d := range x.Shape {
		keep[i] = d
		if red[i] {
			keep[i] = 1
		}
	}
	y := newT(out)
	cnt := make([]float64, len(y.Data))
	for i := range y.Data {
		if op == "ReduceMax" {
			y.Data[i] = math.Inf(-1)
		}
	}
	for k, e := range x.Data {
		idx := unravel(int64(k), x.Shape)
		for i := range idx {
			if red[i] {
				idx[i] = 0
			}
		}
		o := ravel(idx, keep)
		cnt[o]++
		if op == "ReduceMax" {
			y.Data[o] = max(y.Data[o], e)
		} else {
			y.Data[o] += e
		}
	}
	if op == "ReduceMean" {
		for i := range y.Data {
			y.Data[i] /= cnt[i]
		}
	}
	return y
}

func data(op string, ins []Tensor, a ir.Attrs, outs [][]int64) ([]Tensor, error) {
	x := ins[0]
	switch op {
	case "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity":
		return []Tensor{{Shape: outs[0], Data: append([]float64{}, x.Data...)}}, nil
	case "Cast":
		to, _ := ir.ParseDType(a.GetStr("to", ""))
		y := Tensor{Shape: outs[0], Data: make([]float64, len(x.Data))}
		for i, e := range x.Data {
			switch {
			case to == ir.Bool:
				y.Data[i] = b2f(e != 0)
			case to.IsFloat():
				y.Data[i] = e
			default:
				y.Data[i] = math.Trunc(e)
			}
		}
		return []Tensor{y}, nil
	case "Transpose":
		perm, _ := ir.Perm(len(x.Shape), a)
		y := newT(outs[0])
		for k := range y.Data {
			idx := unravel(int64(k), y.Shape)
			src := make([]int64, len(idx))
			for i, p := range perm {
				src[p] = idx[i]
			}
			y.Data[k] = x.Data[ravel(src, x.Shape)]
		}
		return []Tensor{y}, nil
	case "Slice":
		starts, _, steps, err := ir.SliceBounds(x.Shape, a)
		if err != nil {
			return nil, err
		}
		y := newT(outs[0])
		for k := range y.Data {
			idx := unravel(int64(k), y.Shape)
			for i := range idx {
				idx[i] = starts[i] + idx[i]*steps[i]
			}
			y.Data[k] = x.Data[ravel(idx, x.Shape)]
		}
		return []Tensor{y}, nil
	case "Concat":
		y := newT(outs[0])
		ax := axisOf(a, 0, len(y.Shape))
		for k := range y.Data {
			idx := unravel(int64(k), y.Shape)
			for _, t := range ins {
				if idx[ax] < t.Shape[ax] {
					y.Data[k] = t.Data[ravel(idx, t.Shape)]
					break
				}
				idx[ax] -= t.Shape[ax]
			}
		}
		return []Tensor{y}, nil
	case "Split":
		ax := axisOf(a, 0, len(x.Shape))
		var ys []Tensor
		at := int64(0)
		for _, s := range outs {
			y := newT(s)
			for k := range y.Data {
				idx := unravel(int64(k), s)
				idx[ax] += at
				y.Data[k] = x.Data[ravel(idx, x.Shape)]
			}
			at += s[ax]
			ys = append(ys, y)
		}
		return ys, nil
	case "Gather":
		ax := axisOf(a, 0, len(x.Shape))
		ind := ins[1]
		y := newT(outs[0])
		for k := range y.Data {
			idx := unravel(int64(k), y.Shape)
			ii := idx[ax : ax+len(ind.Shape)]
			i := int64(ind.Data[ravel(ii, ind.Shape)])
			if i < 0 {
				i += x.Shape[ax]
			}
			src := append(append(append([]int64{}, idx[:ax]...), i), idx[ax+len(ind.Shape):]...)
			y.Data[k] = x.Data[ravel(src, x.Shape)]
		}
		return []Tensor{y}, nil
	case "Expand":
		y := newT(outs[0])
		for k := range y.Data {
			y.Data[k] = x.at(unravel(int64(k), y.Shape))
		}
		return []Tensor{y}, nil
	case "Pad":
		pads := a.GetInts("pads", nil)
		y := newT(outs[0])
		for k := range y.Data {
			idx := unravel(int64(k), y.Shape)
			in := true
			for i := range idx {
				idx[i] -= pads[i]
				if idx[i] < 0 || idx[i] >= x.Shape[i] {
					in = false
				}
			}
			if in {
				y.Data[k] = x.Data[ravel(idx, x.Shape)]
			} else {
				y.Data[k] = a.GetFloat("value", 0)
			}
		}
		return []Tensor{y}, nil
	}
	return nil, fmt.Errorf("ref: no reference for op %q", op)
}
