package cpu

import (
	"math/rand/v2"
	"testing"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/require"
)

// benchCall builds a dispatch of op on random contiguous f32 operands.
func benchCall(b *testing.B, op string, attrs ir.Attrs, threads int, shapes ...[]int64) *call {
	info, _ := ir.LookupOp(op)
	rng := rand.New(rand.NewPCG(1, 2))
	d := &exec.Dispatch{Op: op, Attrs: attrs}
	mem := &memory{}
	var types []ir.TensorType
	for i, s := range shapes {
		types = append(types, ir.TensorType{DType: ir.F32, Shape: s})
		st := ir.ContiguousStrides(s, 4)
		buf := make([]byte, numel(s)*4)
		v := make([]float64, numel(s))
		for j := range v {
			v[j] = rng.Float64() + 0.1
		}
		storeF(tensor{buf: buf, dt: ir.F32, shape: s, strides: st}, v)
		mem.bufs = append(mem.bufs, buf)
		d.Inputs = append(d.Inputs, bind(i, i, ir.F32, s, st, 0))
	}
	outs, err := info.Infer(types, attrs)
	require.NoErrorf(b, err, "%v", err)
	for _, o := range outs {
		mem.bufs = append(mem.bufs, make([]byte, numel(o.Shape)*4))
		d.Outputs = append(d.Outputs, bind(len(mem.bufs), len(mem.bufs)-1, ir.F32, o.Shape, ir.ContiguousStrides(o.Shape, 4), 0))
	}
	return &call{d: d, mem: mem, threads: threads}
}

// BenchmarkKernels times the big kernels single-threaded (GFLOP-ish
// figures: divide 2*MACs by ns/op).
//
//	go test ./exec/cpu -run '^$' -bench Kernels
func BenchmarkKernels(b *testing.B) {
	cases := []struct {
		name   string
		op     string
		attrs  ir.Attrs
		shapes [][]int64
		macs   float64
	}{
		{"MatMul64x256x128", "MatMul", nil, [][]int64{{64, 256}, {256, 128}}, 64 * 256 * 128},
		{"Conv64x64x3x3@32x32/im2col", "Conv", ir.Attrs{"pads": ir.Ints(1, 1, 1, 1)}, [][]int64{{1, 64, 32, 32}, {64, 64, 3, 3}}, 64 * 64 * 9 * 32 * 32},
		{"Conv64x64x3x3@32x32/direct", "Conv", ir.Attrs{"pads": ir.Ints(1, 1, 1, 1)}, [][]int64{{1, 64, 32, 32}, {64, 64, 3, 3}}, 64 * 64 * 9 * 32 * 32},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			if c.name[len(c.name)-6:] == "direct" {
				old := maxIm2col
				maxIm2col = 0
				defer func() { maxIm2col = old }()
			}
			k := benchCall(b, c.op, c.attrs, 1, c.shapes...)
			fn := kernels[c.op]
			for b.Loop() {
				err := fn(k)
				require.NoErrorf(b, err, "%v", err)
			}
			b.ReportMetric(c.macs*float64(b.N)/b.Elapsed().Seconds()/1e9, "GMAC/s")
		})
	}
}
