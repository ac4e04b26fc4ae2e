package planner

import (
	"math/bits"
	"slices"
)

// Fit orders on large instances: a radix sort on a packed key, then a
// comparison sort of each run of equal keys.
//
// An order's leading fields (size descending, then lifespan, ...) are
// packed into one uint64, each as its distance from the field's extreme
// in the order's direction, in as many bits as its range needs; a field
// that no longer fits in full keeps its high bits, and later ones are left
// out. Packed keys are monotone in the order: a smaller key is an earlier
// buffer. Equal keys (ties of the packed part) are then sorted by the full
// comparison, so the order is exactly the one a comparison sort gives.
//
// Example: sizes 256 and 64 (range 192, 8 bits) and starts 0..9 (4 bits)
// pack as (256-size)<<4 | start: size 256 at step 3 is 3, size 64 at step
// 0 is 192<<4 = 3072.

// keyField is one field of a packed key.
type keyField struct {
	get  func(b *Buffer) int64
	desc bool // larger values first
}

var (
	fieldSize  = keyField{func(b *Buffer) int64 { return b.Size }, true}
	fieldLife  = keyField{lifespan, true}
	fieldStart = keyField{func(b *Buffer) int64 { return b.Start }, false}
	fieldID    = keyField{func(b *Buffer) int64 { return b.ID }, false}
)

// packKeys returns the packed key of every buffer over fields: one pass
// over bufs for the fields' ranges, one to pack (a pass per field and
// per range cost 0.1 s on a million buffers).
func packKeys(bufs []Buffer, fields []keyField) []uint64 {
	keys := make([]uint64, len(bufs))
	if len(bufs) == 0 {
		return keys
	}
	lo, hi := make([]int64, len(fields)), make([]int64, len(fields))
	for f := range fields {
		lo[f] = fields[f].get(&bufs[0])
		hi[f] = lo[f]
	}
	for i := range bufs {
		for f := range fields {
			v := fields[f].get(&bufs[i])
			lo[f], hi[f] = min(lo[f], v), max(hi[f], v)
		}
	}
	// The fields packed, and their bits: each field in turn while bits
	// are free, a field of one value left out.
	type part struct {
		f          int
		take, drop int
	}
	var parts []part
	free := 64
	for f := range fields {
		if free == 0 {
			break
		}
		need := bits.Len64(uint64(hi[f]) - uint64(lo[f]))
		if need == 0 {
			continue // one value: it orders nothing
		}
		take := min(need, free)
		parts = append(parts, part{f, take, need - take})
		free -= take
	}
	for i := range bufs {
		var k uint64
		for _, p := range parts {
			v := fields[p.f].get(&bufs[i])
			d := uint64(v) - uint64(lo[p.f])
			if fields[p.f].desc {
				d = uint64(hi[p.f]) - uint64(v)
			}
			k = k<<p.take | d>>p.drop
		}
		keys[i] = k
	}
	return keys
}

// sortByKeys sorts order (the indices of bufs, in index order) by the
// packed keys of fields and then by c within each run of equal keys; c
// must be a total order that agrees with the fields.
func sortByKeys(bufs []Buffer, order []int, fields []keyField, c func(a, b int) int) {
	keys := packKeys(bufs, fields)
	radixSort(keys, order)
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j] == keys[i] {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(order[i:j], c)
		}
		i = j
	}
}
