package ir

// The cursor of fastFile (format_fastfile.go): encoding/json spends most
// of a large file's reading in reflection (3.4 s of a 76 MB file of a
// million values, twice for a file that gets the check pass). The cursor
// reads only what is plain: known keys spelt exactly, each once; strings
// of printable ASCII without escapes; integers of at most 18 digits
// without leading zeros, fraction or exponent; no null; no attrs. Every
// reader returns false on anything else, and fastFile then hands the file
// to encoding/json, so both give the same graph and the same errors
// (TestFastFileAgrees).

// fastScan is a cursor over a graph file's bytes.
type fastScan struct {
	b []byte
	i int
}

func (s *fastScan) blank() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// eat consumes c (after blanks) if it comes next.
func (s *fastScan) eat(c byte) bool {
	s.blank()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// raw returns a plain string's bytes (no escapes, printable ASCII only).
func (s *fastScan) raw() ([]byte, bool) {
	if !s.eat('"') {
		return nil, false
	}
	from := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return s.b[from : s.i-1], true
		case c == '\\' || c < 0x20 || c >= 0x7f:
			return nil, false
		}
		s.i++
	}
	return nil, false
}

func (s *fastScan) str() (string, bool) {
	b, ok := s.raw()
	return string(b), ok
}

// known reads a plain string and returns the entry of names it equals
// (no allocation: dtypes and flags repeat on every record), else a copy.
func (s *fastScan) known(names []string) (string, bool) {
	b, ok := s.raw()
	for _, n := range names {
		if string(b) == n {
			return n, ok
		}
	}
	return string(b), ok
}

// int reads an integer of at most 18 digits (no fraction, no exponent).
func (s *fastScan) int() (int64, bool) {
	s.blank()
	neg := s.i < len(s.b) && s.b[s.i] == '-'
	if neg {
		s.i++
	}
	from := s.i
	var v int64
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		v = 10*v + int64(s.b[s.i]-'0')
		s.i++
	}
	if n := s.i - from; n == 0 || n > 18 || n > 1 && s.b[from] == '0' {
		return 0, false // JSON has no leading zeros
	}
	if s.i < len(s.b) {
		switch s.b[s.i] {
		case '.', 'e', 'E':
			return 0, false
		}
	}
	if neg {
		v = -v
	}
	return v, true
}

// ints reads a list of at most limit integers; [] is an empty, non-nil
// list, as encoding/json makes it.
func (s *fastScan) ints(limit int) ([]int64, bool) {
	if !s.eat('[') {
		return nil, false
	}
	out := []int64{}
	if s.eat(']') {
		return out, true
	}
	for {
		v, ok := s.int()
		if !ok || len(out) == limit {
			return nil, false
		}
		out = append(out, v)
		if s.eat(',') {
			continue
		}
		return out, s.eat(']')
	}
}

func (s *fastScan) strs(names []string) ([]string, bool) {
	if !s.eat('[') {
		return nil, false
	}
	out := []string{}
	if s.eat(']') {
		return out, true
	}
	for {
		v, ok := s.known(names)
		if !ok {
			return nil, false
		}
		out = append(out, v)
		if s.eat(',') {
			continue
		}
		return out, s.eat(']')
	}
}

func (s *fastScan) bool() (bool, bool) {
	s.blank()
	switch {
	case len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "true":
		s.i += 4
		return true, true
	case len(s.b)-s.i >= 5 && string(s.b[s.i:s.i+5]) == "false":
		s.i += 5
		return false, true
	}
	return false, false
}

// object reads an object whose keys are among keys, each at most once,
// handing each key's index to field, which reads the value.
func (s *fastScan) object(keys []string, field func(k int) bool) bool {
	if !s.eat('{') {
		return false
	}
	if s.eat('}') {
		return true
	}
	var seen uint32
	for {
		name, ok := s.raw()
		if !ok || !s.eat(':') {
			return false
		}
		k := -1
		for j, key := range keys {
			if string(name) == key {
				k = j
				break
			}
		}
		if k < 0 || seen&(1<<k) != 0 || !field(k) {
			return false
		}
		seen |= 1 << k
		if s.eat(',') {
			continue
		}
		return s.eat('}')
	}
}

// end reports whether only blanks are left.
func (s *fastScan) end() bool {
	s.blank()
	return s.i == len(s.b)
}

var (
	fastValueKeys = []string{"id", "name", "dtype", "shape", "flags", "pin_reason", "view", "data"}
	fastViewKeys  = []string{"base", "offset", "strides"}
	fastNodeKeys  = []string{"id", "name", "op", "opaque", "inputs", "outputs", "keep_alive"}
)

// fastScratch holds what a parsed record's pointers point to: the record
// is converted and dropped before the next one is parsed.
type fastScratch struct {
	id, base    int64
	dtype, data string
	view        fileView
}

// value parses a plain value record at the cursor.
func (s *fastScan) value(fv *fileValue, sc *fastScratch) bool {
	return s.object(fastValueKeys, func(k int) bool {
		var ok bool
		switch k {
		case 0:
			sc.id, ok = s.int()
			fv.ID = &sc.id
		case 1:
			fv.Name, ok = s.str()
		case 2:
			sc.dtype, ok = s.known(dtypeNames[1:])
			fv.DType = &sc.dtype
		case 3:
			fv.Shape, ok = s.ints(shapeSpec{}.limit())
		case 4:
			fv.Flags, ok = s.strs(flagNames[:])
		case 5:
			fv.PinReason, ok = s.str()
		case 6:
			sc.view = fileView{}
			fv.View = &sc.view
			ok = s.object(fastViewKeys, func(k int) bool {
				var ok bool
				switch k {
				case 0:
					sc.base, ok = s.int()
					fv.View.Base = &sc.base
				case 1:
					fv.View.Offset, ok = s.int()
				case 2:
					fv.View.Strides, ok = s.ints(stridesSpec{}.limit())
				}
				return ok
			})
		case 7:
			sc.data, ok = s.str()
			fv.Data = &sc.data
		}
		return ok
	})
}

// node parses a plain node record at the cursor.
func (s *fastScan) node(fn *fileNode, sc *fastScratch) bool {
	return s.object(fastNodeKeys, func(k int) bool {
		var ok bool
		switch k {
		case 0:
			sc.id, ok = s.int()
			fn.ID = &sc.id
		case 1:
			fn.Name, ok = s.str()
		case 2:
			fn.Op, ok = s.str()
		case 3:
			fn.Opaque, ok = s.bool()
		case 4:
			fn.Inputs, ok = s.ints(inputsSpec{}.limit())
		case 5:
			fn.Outputs, ok = s.ints(outputsSpec{}.limit())
		case 6:
			fn.KeepAlive, ok = s.ints(keepAliveSpec{}.limit())
		}
		return ok
	})
}
