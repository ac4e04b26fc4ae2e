package exec_test

import (
	"sort"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/ir"
)

// naiveLayout is an independent, deliberately simple memory plan used as a
// second source of layouts in the end-to-end tests (the planner package is
// the first): liveness by brute force over the schedule, then first-fit in
// the arena with 16-byte alignment. Every root that is not external lives
// from its producer's step to one past its last reader's step (graph
// outputs to the end); views and view nodes count as readers of their root.
// It reuses memory as aggressively as liveness allows, so programs compiled
// on it are full of WAR and WAW hazards between dispatches.
func naiveLayout(g *ir.Graph, order []ir.NodeID) (exec.Layout, error) {
	step := make([]int, len(g.Nodes))
	for s, id := range order {
		step[id] = s
	}
	type live struct {
		root       ir.ValueID
		start, end int
		size       int64
		off        int64
	}
	rootOf := make([]ir.ValueID, len(g.Values))
	offIn := make([]int64, len(g.Values))
	for _, v := range g.Values {
		r, off, err := g.Root(v.ID)
		if err != nil {
			return exec.Layout{}, err
		}
		rootOf[v.ID], offIn[v.ID] = r, off
	}
	lv := map[ir.ValueID]*live{}
	for _, v := range g.Values {
		if v.View != nil || v.IsExternal() {
			continue
		}
		n, err := v.Bytes()
		if err != nil {
			return exec.Layout{}, err
		}
		s := 0
		if v.Producer != ir.NoNode {
			s = step[v.Producer]
		}
		lv[v.ID] = &live{root: v.ID, start: s, end: s + 1, size: (n + 15) &^ 15}
	}
	for _, n := range g.Nodes {
		for _, list := range [][]ir.ValueID{n.Inputs, n.KeepAlive, n.Outputs} {
			for _, v := range list {
				if l := lv[rootOf[v]]; l != nil {
					l.end = max(l.end, step[n.ID]+1)
				}
			}
		}
	}
	for _, v := range g.ValuesWith(ir.FlagOutput) {
		if l := lv[rootOf[v]]; l != nil {
			l.end = len(order) + 1
		}
	}
	var ls []*live
	for _, l := range lv {
		ls = append(ls, l)
	}
	sort.Slice(ls, func(i, j int) bool {
		return ls[i].start < ls[j].start || ls[i].start == ls[j].start && ls[i].root < ls[j].root
	})
	var placed []*live
	arena := int64(0)
	for _, l := range ls {
		var busy [][2]int64
		for _, p := range placed {
			if p.start < l.end && l.start < p.end {
				busy = append(busy, [2]int64{p.off, p.off + p.size})
			}
		}
		sort.Slice(busy, func(i, j int) bool { return busy[i][0] < busy[j][0] })
		off := int64(0)
		for _, b := range busy {
			if off+l.size <= b[0] {
				break
			}
			off = max(off, b[1])
		}
		l.off = off
		arena = max(arena, off+l.size)
		placed = append(placed, l)
	}
	lay := exec.Layout{Buffers: []exec.BufferSpec{{Bytes: arena, Root: -1}}, Values: make([]exec.Location, len(g.Values))}
	ext := map[ir.ValueID]int{}
	for _, v := range g.Values {
		r := rootOf[v.ID]
		if l := lv[r]; l != nil {
			lay.Values[v.ID] = exec.Location{Buffer: exec.ArenaBuffer, OffsetBytes: l.off + offIn[v.ID]}
			continue
		}
		b, ok := ext[r]
		if !ok {
			n, err := g.Values[r].Bytes()
			if err != nil {
				return exec.Layout{}, err
			}
			b = len(lay.Buffers)
			ext[r] = b
			lay.Buffers = append(lay.Buffers, exec.BufferSpec{Bytes: n, Root: r})
		}
		lay.Values[v.ID] = exec.Location{Buffer: b, OffsetBytes: offIn[v.ID]}
	}
	return lay, nil
}

// compileNaive builds the program of g on the naive layout in mode.
func compileNaive(g *ir.Graph, mode exec.Mode) (*exec.Program, error) {
	order, err := g.Schedule()
	if err != nil {
		return nil, err
	}
	lay, err := naiveLayout(g, order)
	if err != nil {
		return nil, err
	}
	p, err := exec.Assemble(g, order, lay, mode, nil)
	if err != nil {
		return nil, err
	}
	return p, p.Synchronize(mode)
}

// benchCompile is the compiler the benchmarks use.
var benchCompile = compilePlanner
