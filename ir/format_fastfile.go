package ir

import "math"

// fastFileKeys are the top-level keys of a graph file, in fastFile's
// numbering.
var fastFileKeys = []string{"format", "version", "name", "values", "nodes", "order"}

// fastFile is file without encoding/json: the whole file read by the fast
// path's cursor (format_fast.go), each record converted by value and node
// as file converts it. ok is false as soon as anything is not plain (a
// key spelt otherwise, an escape, a null, attrs, a wrong format name or
// version, bad syntax); the caller then reads the file again with file on
// a fresh decoder, which reports what it finds. When ok is true, err is the
// error file would return: the records before the first bad one were
// plain, so file meets the same bad record first.
//
// The hostile corpus's large files read two to three times faster for it
// (docs/BENCHMARKS.md, "The CLI on the hostile corpus").
func (d *decoder) fastFile() (*Graph, bool, error) {
	counts, err := d.scanCounts()
	if err != nil {
		return nil, true, err // file's first step: the same error
	}
	s := &fastScan{b: d.data}
	g := &Graph{}
	if !s.eat('{') {
		return nil, false, nil
	}
	var seen uint32
	for !s.eat('}') {
		if seen != 0 && !s.eat(',') {
			return nil, false, nil
		}
		name, ok := s.raw()
		if !ok || !s.eat(':') {
			return nil, false, nil
		}
		k := -1
		for j, key := range fastFileKeys {
			if string(name) == key {
				k = j
			}
		}
		if k < 0 || seen&(1<<k) != 0 {
			return nil, false, nil
		}
		seen |= 1 << k
		switch k {
		case 0:
			f, ok := s.str()
			if !ok || f != FormatName {
				return nil, false, nil
			}
		case 1:
			v, ok := s.int()
			if !ok || v != FormatVersion {
				return nil, false, nil
			}
		case 2:
			if g.Name, ok = s.str(); !ok {
				return nil, false, nil
			}
		case 3:
			if !d.checkOnly {
				g.Values = make([]*Value, 0, counts.values)
			}
			ok, err := fastRecords(s, &d.valueAt, func(i int) (bool, error) {
				var fv fileValue
				if !s.value(&fv, &d.scratch) {
					return false, nil
				}
				v, err := d.value(i, &fv, counts.values)
				if !d.checkOnly && err == nil {
					g.Values = append(g.Values, v)
				}
				return true, err
			})
			if !ok || err != nil {
				return nil, ok, err
			}
		case 4:
			if !d.checkOnly {
				g.Nodes = make([]*Node, 0, counts.nodes)
			}
			ok, err := fastRecords(s, &d.nodeAt, func(i int) (bool, error) {
				var fn fileNode
				if !s.node(&fn, &d.scratch) {
					return false, nil
				}
				n, err := d.node(i, &fn, counts.values)
				if !d.checkOnly && err == nil {
					g.Nodes = append(g.Nodes, n)
				}
				return true, err
			})
			if !ok || err != nil {
				return nil, ok, err
			}
		case 5:
			s.blank()
			d.orderAt = int64(s.i)
			order, ok := s.ints(MaxFileElements)
			if !ok {
				return nil, false, nil
			}
			g.Order = make([]NodeID, 0, len(order))
			for _, id := range order {
				if id < 0 || id > math.MaxInt32 {
					return nil, false, nil
				}
				g.Order = append(g.Order, NodeID(id))
			}
		}
	}
	const required = 1<<0 | 1<<1 | 1<<3 | 1<<4
	if !s.end() || seen&required != required {
		return nil, false, nil
	}
	return g, true, d.finish(g, counts)
}

// fastRecords reads a top-level array at the cursor. For each element it
// appends where the element starts to at, then calls record with its
// index; record parses and converts the element and returns false if it
// is not plain.
func fastRecords(s *fastScan, at *[]int64, record func(i int) (bool, error)) (bool, error) {
	if !s.eat('[') {
		return false, nil
	}
	if s.eat(']') {
		return true, nil
	}
	for i := 0; ; i++ {
		if i == MaxFileElements {
			return false, nil
		}
		s.blank()
		*at = append(*at, int64(s.i))
		if ok, err := record(i); !ok || err != nil {
			return ok, err
		}
		if s.eat(',') {
			continue
		}
		return s.eat(']'), nil
	}
}
