package exec

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"math/rand/v2"

	"github.com/memplan/memplan/ir"
)

// RandomInputs returns deterministic data for every value of NeedsData(g),
// drawn from seed: floats uniform in ±[0.1, 1) (never zero), integers in
// [0, 2) (valid indices for any non-empty axis), booleans 0 or 1.
//
// Weights are shaped so that deep shape-only models (a zoo file without its
// initializers) stay finite: a weight read as the kernel of a MatMul, Gemm,
// Conv or ConvTranspose is scaled by 1/sqrt(fan-in), and rank-0/1 float
// weights (biases, norm scales, BatchNorm means and variances) are positive,
// so a variance never goes negative under a square root.
func RandomInputs(g *ir.Graph, seed uint64) (map[ir.ValueID][]byte, error) {
	rng := rand.New(rand.NewPCG(seed, 0x6d656d706c616e))
	out := map[ir.ValueID][]byte{}
	scale := weightScales(g)
	for _, id := range NeedsData(g) {
		v := g.Values[id]
		k, isWeight := scale[id]
		positive := v.Flags&ir.FlagWeight != 0 && len(v.Shape) <= 1
		if !isWeight {
			k = 1
		}
		n, err := v.Shape.NumElements()
		if err != nil {
			return nil, err
		}
		es := v.DType.Size()
		b := make([]byte, n*es)
		for i := int64(0); i < n; i++ {
			p := b[i*es : (i+1)*es]
			f := 0.1 + 0.9*rng.Float64()
			if rng.IntN(2) == 0 && !positive {
				f = -f
			}
			f *= k
			switch v.DType {
			case ir.F32:
				binary.LittleEndian.PutUint32(p, math.Float32bits(float32(f)))
			case ir.F64:
				binary.LittleEndian.PutUint64(p, math.Float64bits(f))
			case ir.I64:
				binary.LittleEndian.PutUint64(p, uint64(rng.IntN(2)))
			case ir.I32:
				binary.LittleEndian.PutUint32(p, uint32(rng.IntN(2)))
			default:
				// f16/bf16 would need conversion; small integers and bools
				// are fine as single bytes, the rest stays zero.
				if es == 1 {
					p[0] = byte(rng.IntN(2))
				}
			}
		}
		out[id] = b
	}
	return out, nil
}

// Checksum returns the 64-bit FNV-1a hash of a tensor's bytes.
func Checksum(data []byte) uint64 {
	h := fnv.New64a()
	h.Write(data)
	return h.Sum64()
}

// weightScales returns 1/sqrt(fan-in) for every weight that some node reads
// as the kernel of a contraction (MatMul or Gemm input 1, Conv or
// ConvTranspose input 1).
func weightScales(g *ir.Graph) map[ir.ValueID]float64 {
	out := map[ir.ValueID]float64{}
	for _, n := range g.Nodes {
		if n == nil || len(n.Inputs) < 2 {
			continue
		}
		w := g.Value(n.Inputs[1])
		if w == nil || w.Flags&ir.FlagWeight == 0 || len(w.Shape) < 2 {
			continue
		}
		d := w.Shape
		var fan int64
		switch n.Op {
		case "MatMul":
			fan = d[len(d)-2]
		case "Gemm":
			fan = d[0]
			if n.Attrs.GetInt("transB", 0) != 0 {
				fan = d[1]
			}
		case "Conv":
			fan = 1
			for _, x := range d[1:] {
				fan *= x
			}
		case "ConvTranspose":
			fan = d[0]
			for _, x := range d[2:] {
				fan *= x
			}
		}
		if fan > 0 {
			out[w.ID] = 1 / math.Sqrt(float64(fan))
		}
	}
	return out
}
