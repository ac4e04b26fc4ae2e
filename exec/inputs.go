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
func RandomInputs(g *ir.Graph, seed uint64) (map[ir.ValueID][]byte, error) {
	rng := rand.New(rand.NewPCG(seed, 0x6d656d706c616e))
	out := map[ir.ValueID][]byte{}
	for _, id := range NeedsData(g) {
		v := g.Values[id]
		n, err := v.Shape.NumElements()
		if err != nil {
			return nil, err
		}
		es := v.DType.Size()
		b := make([]byte, n*es)
		for i := int64(0); i < n; i++ {
			p := b[i*es : (i+1)*es]
			f := 0.1 + 0.9*rng.Float64()
			if rng.IntN(2) == 0 {
				f = -f
			}
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
