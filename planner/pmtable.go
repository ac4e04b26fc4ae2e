package planner

// pmTable is pairMerger's index of groups by key: open addressing with
// linear probing over a power-of-two table kept at most half full,
// hashing the key's two numbers with multiplications. With Go's map,
// whose generic hash reads the key byte by byte, lookups took more than
// a quarter of re-merging's time; this table makes re-merging about 1.4
// times as fast, the merges the same (BenchmarkRemerge,
// docs/BENCHMARKS.md, issue 18).
type pmTable struct {
	slots []*pmGroup // nil: empty
	n     int        // groups held
	shift uint       // 64 - log2(len(slots))
}

// pmTableMin is the smallest table (slots).
const pmTableMin = 64

func newPMTable(hint int) *pmTable {
	t := &pmTable{}
	t.reset(max(pmTableMin, hint*2))
	return t
}

// reset empties t and sizes it to the power of two at least slots.
func (t *pmTable) reset(slots int) {
	size, bits := pmTableMin, uint(6)
	for size < slots {
		size, bits = size*2, bits+1
	}
	t.slots, t.n, t.shift = make([]*pmGroup, size), 0, 64-bits
}

// home is k's first slot.
func (t *pmTable) home(k pmKey) int {
	h := uint64(k.x)*0x9e3779b97f4a7c15 ^ uint64(k.y)*0xc2b2ae3d27d4eb4f
	if k.span {
		h ^= 0x165667b19e3779f9
	}
	h ^= h >> 29
	h *= 0xbf58476d1ce4e5b9
	return int(h >> t.shift)
}

// get returns k's group, or nil.
func (t *pmTable) get(k pmKey) *pmGroup {
	mask := len(t.slots) - 1
	for i := t.home(k); ; i = (i + 1) & mask {
		g := t.slots[i]
		if g == nil || g.key == k {
			return g
		}
	}
}

// put adds g, whose key t does not hold.
func (t *pmTable) put(g *pmGroup) {
	if 2*(t.n+1) > len(t.slots) {
		old := t.slots
		t.reset(2 * len(old))
		for _, o := range old {
			if o != nil {
				t.put(o)
			}
		}
	}
	mask := len(t.slots) - 1
	i := t.home(g.key)
	for t.slots[i] != nil {
		i = (i + 1) & mask
	}
	t.slots[i] = g
	t.n++
}

// keep rebuilds t with only the groups keep reports true for; the others
// are marked dead.
func (t *pmTable) keep(keep func(*pmGroup) bool) {
	old := t.slots
	var kept []*pmGroup
	for _, g := range old {
		if g == nil {
			continue
		}
		if keep(g) {
			kept = append(kept, g)
		} else {
			g.dead = true
		}
	}
	t.reset(max(pmTableMin, 2*len(kept)))
	for _, g := range kept {
		t.put(g)
	}
}
