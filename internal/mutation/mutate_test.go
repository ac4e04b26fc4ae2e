package mutation_test

import (
	"math/rand/v2"
	"slices"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/ir"
	"github.com/memplan/memplan/planner"
)

// planMutation corrupts a copy of a plan; it returns false when the plan
// has nothing it can corrupt (no view, one buffer, ...).
type planMutation struct {
	name string
	do   func(p *planner.Plan, g *ir.Graph, r *rand.Rand) bool
}

// progMutation corrupts a copy of a program.
type progMutation struct {
	name string
	do   func(p *exec.Program, r *rand.Rand) bool
}

func clonePlan(p *planner.Plan) *planner.Plan {
	q := *p
	q.Buffers = slices.Clone(p.Buffers)
	q.Offsets = slices.Clone(p.Offsets)
	q.Slots = slices.Clone(p.Slots)
	q.Order = slices.Clone(p.Order)
	q.Groups = slices.Clone(p.Groups)
	q.Values = make([][]ir.ValueID, len(p.Values))
	for i, m := range p.Values {
		q.Values[i] = slices.Clone(m)
	}
	return &q
}

func cloneProgram(p *exec.Program) *exec.Program {
	q := *p
	q.Buffers = slices.Clone(p.Buffers)
	q.Values = slices.Clone(p.Values)
	q.Barriers = slices.Clone(p.Barriers)
	q.Edges = slices.Clone(p.Edges)
	q.Dispatches = slices.Clone(p.Dispatches)
	for i := range q.Dispatches {
		q.Dispatches[i].Inputs = slices.Clone(q.Dispatches[i].Inputs)
		q.Dispatches[i].Outputs = slices.Clone(q.Dispatches[i].Outputs)
	}
	return &q
}

// placedRoots lists the roots that own a buffer.
func placedRoots(p *planner.Plan, g *ir.Graph) []ir.ValueID {
	var out []ir.ValueID
	for _, v := range g.Values {
		if v.View == nil && p.Slots[v.ID].Buffer >= 0 {
			out = append(out, v.ID)
		}
	}
	return out
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// moveBuffer moves buffer b to offset off, its slots with it.
func moveBuffer(p *planner.Plan, b int, off int64) {
	d := off - p.Offsets[b]
	p.Offsets[b] = off
	for i := range p.Slots {
		if p.Slots[i].Buffer == b {
			p.Slots[i].Offset += d
		}
	}
}

// planMutations are the ways a plan can go wrong.
var planMutations = []planMutation{
	{"move root into another buffer", func(p *planner.Plan, g *ir.Graph, r *rand.Rand) bool {
		roots := placedRoots(p, g)
		if len(roots) < 2 || len(p.Buffers) < 2 {
			return false
		}
		v := pick(r, roots)
		old, b := p.Slots[v].Buffer, r.IntN(len(p.Buffers))
		if b == old {
			return false
		}
		p.Values[old] = slices.DeleteFunc(p.Values[old], func(m ir.ValueID) bool { return m == v })
		p.Values[b] = append(p.Values[b], v)
		for i := range p.Slots {
			if s := &p.Slots[i]; s.Root == v && !s.External {
				s.Offset += p.Offsets[b] - p.Offsets[old]
				s.Buffer = b
			}
		}
		return true
	}},
	{"shift a view inside its root", func(p *planner.Plan, g *ir.Graph, r *rand.Rand) bool {
		var views []ir.ValueID
		for _, v := range g.Values {
			if v.View != nil && !p.Slots[v.ID].External && p.Slots[v.ID].Bytes > 0 {
				views = append(views, v.ID)
			}
		}
		if len(views) == 0 {
			return false
		}
		v := pick(r, views)
		p.Slots[v].Offset += g.Values[v].DType.Size() * int64(1-2*r.IntN(2))
		return true
	}},
	{"slot offset by one element", func(p *planner.Plan, g *ir.Graph, r *rand.Rand) bool {
		v := pick(r, placedRoots(p, g))
		p.Slots[v].Offset += g.Values[v].DType.Size()
		return true
	}},
	{"slot with zero bytes moved", func(p *planner.Plan, g *ir.Graph, r *rand.Rand) bool {
		v := pick(r, placedRoots(p, g))
		p.Slots[v].Bytes = 0
		p.Slots[v].Offset += 4096
		return true
	}},
	{"slot offset into another buffer", func(p *planner.Plan, g *ir.Graph, r *rand.Rand) bool {
		v := pick(r, placedRoots(p, g))
		b := r.IntN(len(p.Buffers))
		if b == p.Slots[v].Buffer {
			return false
		}
		p.Slots[v].Offset = p.Offsets[b]
		return true
	}},
	{"buffer moved onto another", func(p *planner.Plan, g *ir.Graph, r *rand.Rand) bool {
		if len(p.Buffers) < 2 {
			return false
		}
		a, b := r.IntN(len(p.Buffers)), r.IntN(len(p.Buffers))
		if a == b {
			return false
		}
		moveBuffer(p, a, p.Offsets[b])
		return true
	}},
	{"buffer shifted by its alignment", func(p *planner.Plan, g *ir.Graph, r *rand.Rand) bool {
		b := r.IntN(len(p.Buffers))
		moveBuffer(p, b, p.Offsets[b]+max(p.Buffers[b].Align, 1)*int64(1+r.IntN(2)))
		return true
	}},
	{"buffer offsets swapped", func(p *planner.Plan, g *ir.Graph, r *rand.Rand) bool {
		if len(p.Buffers) < 2 {
			return false
		}
		a, b := r.IntN(len(p.Buffers)), r.IntN(len(p.Buffers))
		if a == b || p.Offsets[a] == p.Offsets[b] {
			return false
		}
		oa, ob := p.Offsets[a], p.Offsets[b]
		moveBuffer(p, a, ob)
		moveBuffer(p, b, oa)
		return true
	}},
	{"lifespan shortened", func(p *planner.Plan, g *ir.Graph, r *rand.Rand) bool {
		b := r.IntN(len(p.Buffers))
		if p.Buffers[b].End-p.Buffers[b].Start < 2 {
			return false
		}
		if r.IntN(2) == 0 {
			p.Buffers[b].End--
		} else {
			p.Buffers[b].Start++
		}
		return true
	}},
	{"lifespan shortened and a buffer moved in", func(p *planner.Plan, g *ir.Graph, r *rand.Rand) bool {
		if len(p.Buffers) < 2 {
			return false
		}
		a, b := r.IntN(len(p.Buffers)), r.IntN(len(p.Buffers))
		if a == b {
			return false
		}
		p.Buffers[b].End = min(p.Buffers[b].End, max(p.Buffers[a].Start, p.Buffers[b].Start+1))
		moveBuffer(p, a, p.Offsets[b])
		return true
	}},
	{"arena shrunk", func(p *planner.Plan, g *ir.Graph, r *rand.Rand) bool {
		p.ArenaBytes -= 64
		return true
	}},
	{"slot root changed", func(p *planner.Plan, g *ir.Graph, r *rand.Rand) bool {
		v := r.IntN(len(p.Slots))
		p.Slots[v].Root = ir.ValueID(r.IntN(len(g.Values)))
		return true
	}},
	{"value made external", func(p *planner.Plan, g *ir.Graph, r *rand.Rand) bool {
		v := pick(r, placedRoots(p, g))
		p.Slots[v].Buffer, p.Slots[v].External, p.Slots[v].Offset = -1, true, 0
		return true
	}},
	{"schedule entries swapped", func(p *planner.Plan, g *ir.Graph, r *rand.Rand) bool {
		if len(p.Order) < 2 {
			return false
		}
		k := r.IntN(len(p.Order) - 1)
		j := k + 1
		if r.IntN(2) == 0 {
			j = r.IntN(len(p.Order))
		}
		p.Order[k], p.Order[j] = p.Order[j], p.Order[k]
		return k != j
	}},
	{"groups merged", func(p *planner.Plan, g *ir.Graph, r *rand.Rand) bool {
		if p.Groups == nil || p.Steps < 2 {
			return false
		}
		k := 1 + r.IntN(int(p.Steps)-1)
		for i := range p.Groups {
			if p.Groups[i] >= k {
				p.Groups[i]--
			}
		}
		p.Steps--
		for i := range p.Buffers {
			p.Buffers[i].Start = min(p.Buffers[i].Start, p.Steps-1)
			p.Buffers[i].End = min(p.Buffers[i].End, p.Steps)
		}
		return true
	}},
}

// progMutations are the ways a compiled program can go wrong.
var progMutations = []progMutation{
	{"barrier dropped", func(p *exec.Program, r *rand.Rand) bool {
		if len(p.Barriers) == 0 {
			return false
		}
		k := r.IntN(len(p.Barriers))
		p.Barriers = slices.Delete(p.Barriers, k, k+1)
		return true
	}},
	{"barrier moved", func(p *exec.Program, r *rand.Rand) bool {
		if len(p.Barriers) == 0 {
			return false
		}
		k := r.IntN(len(p.Barriers))
		b := p.Barriers[k] + 1 - 2*r.IntN(2)
		if b <= 0 || b >= len(p.Dispatches) || slices.Contains(p.Barriers, b) {
			return false
		}
		p.Barriers[k] = b
		slices.Sort(p.Barriers)
		return true
	}},
	{"dispatches swapped", func(p *exec.Program, r *rand.Rand) bool {
		n := len(p.Dispatches)
		if n < 2 {
			return false
		}
		i := r.IntN(n - 1)
		j := i + 1
		if r.IntN(2) == 0 {
			j = r.IntN(n)
		}
		if i == j {
			return false
		}
		p.Dispatches[i], p.Dispatches[j] = p.Dispatches[j], p.Dispatches[i]
		p.Dispatches[i].Index, p.Dispatches[j].Index = i, j
		return true
	}},
	{"binding shifted by one element", func(p *exec.Program, r *rand.Rand) bool {
		d := &p.Dispatches[r.IntN(len(p.Dispatches))]
		bs := d.Inputs
		if r.IntN(2) == 0 || len(bs) == 0 {
			bs = d.Outputs
		}
		b := &bs[r.IntN(len(bs))]
		e := b.DType.Size()
		b.OffsetBytes, b.LoBytes, b.HiBytes = b.OffsetBytes+e, b.LoBytes+e, b.HiBytes+e
		return true
	}},
	{"value moved in its buffer", func(p *exec.Program, r *rand.Rand) bool {
		v := ir.ValueID(r.IntN(len(p.Values)))
		d := int64(64 * (1 + r.IntN(4)))
		if r.IntN(2) == 0 {
			d = -d
		}
		move := func(b *exec.Binding) {
			b.OffsetBytes, b.LoBytes, b.HiBytes = b.OffsetBytes+d, b.LoBytes+d, b.HiBytes+d
		}
		move(&p.Values[v])
		for i := range p.Dispatches {
			for _, bs := range [][]exec.Binding{p.Dispatches[i].Inputs, p.Dispatches[i].Outputs} {
				for k := range bs {
					if bs[k].Value == v {
						move(&bs[k])
					}
				}
			}
		}
		return true
	}},
	{"binding in another buffer", func(p *exec.Program, r *rand.Rand) bool {
		if len(p.Buffers) < 2 {
			return false
		}
		d := &p.Dispatches[r.IntN(len(p.Dispatches))]
		bs := d.Inputs
		if len(bs) == 0 {
			return false
		}
		b := &bs[r.IntN(len(bs))]
		nb := r.IntN(len(p.Buffers))
		if nb == b.Buffer {
			return false
		}
		b.Buffer = nb
		return true
	}},
	{"operands swapped", func(p *exec.Program, r *rand.Rand) bool {
		d := &p.Dispatches[r.IntN(len(p.Dispatches))]
		if len(d.Inputs) < 2 {
			return false
		}
		d.Inputs[0], d.Inputs[1] = d.Inputs[1], d.Inputs[0]
		return true
	}},
	{"dispatch dropped", func(p *exec.Program, r *rand.Rand) bool {
		k := r.IntN(len(p.Dispatches))
		p.Dispatches = slices.Delete(p.Dispatches, k, k+1)
		for i := range p.Dispatches {
			p.Dispatches[i].Index = i
		}
		var bs []int
		for _, b := range p.Barriers {
			if b > k {
				b--
			}
			if b > 0 && b < len(p.Dispatches) && !slices.Contains(bs, b) {
				bs = append(bs, b)
			}
		}
		p.Barriers, p.Edges = bs, nil
		return true
	}},
	{"edge dropped", func(p *exec.Program, r *rand.Rand) bool {
		if len(p.Edges) == 0 {
			return false
		}
		k := r.IntN(len(p.Edges))
		p.Edges = slices.Delete(p.Edges, k, k+1)
		return true
	}},
}
