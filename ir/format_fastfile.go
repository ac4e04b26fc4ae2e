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
			ok, err := fastRecords(d, s, &d.valueAt, &g.Values, s.value, func(i int, fv *fileValue) (*Value, error) {
				return d.value(i, fv, counts.values)
			})
			if !ok || err != nil {
				return nil, ok, err
			}
		case 4:
			ok, err := fastRecords(d, s, &d.nodeAt, &g.Nodes, s.node, func(i int, fn *fileNode) (*Node, error) {
				return d.node(i, fn, counts.values)
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

// fastRecords reads a top-level array of records F at the cursor: for
// each element it appends where the element starts to at, parses it with
// parse (false: not plain, and fastRecords returns false) and converts it
// with conv, appending the result to out unless the pass only checks.
func fastRecords[F any, R any](d *decoder, s *fastScan, at *[]int64, out *[]R, parse func(*F, *fastScratch) bool, conv func(int, *F) (R, error)) (bool, error) {
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
		var f F
		if !parse(&f, &d.scratch) {
			return false, nil
		}
		r, err := conv(i, &f)
		if err != nil {
			return true, err
		}
		if !d.checkOnly {
			*out = append(*out, r)
		}
		if s.eat(',') {
			continue
		}
		return s.eat(']'), nil
	}
}
