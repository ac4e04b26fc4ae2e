// Package irtest is a tiny fixture language for tests: one line per value or
// node, so a table test can state its graph in a string, in the spirit of the
// Fun/Bloc/Valu DSL of the Go compiler's ssa tests.
//
//	x = input f32[4,8]
//	w = weight f32[8,8]
//	h = MatMul x w
//	y = Relu h
//	output y
//
// Lines, one statement each ('#' starts a comment, blank lines are skipped):
//
//	graph NAME                       name the graph (default "test")
//	x = input f32[4,8]               graph input
//	w = weight f32[8,8]              weight known by shape
//	w = weight f32[2] data=[1,2.5]   weight with data (numbers in the dtype)
//	c = constant i64[2] data=0x0100  constant, raw little-endian bytes in hex
//	h = MatMul x w                   core op; output type inferred
//	a, b = Split x axis=1 split=[4,4]   several outputs
//	v = view x +64 f32[2,8]          explicit contiguous view of x
//	s = view x +0 f32[4,4] strides=[32,4]   strided view (byte strides)
//	o = opaque MyOp(f32[2,2]) x w    op outside the core set, types given
//	p, q = opaque Two(f32[2], i64[]) x
//	output y z                       mark outputs
//	pin y "host reads it"            pin with a reason
//	keep y h                         y's producer keeps h alive
//	order y h                        explicit schedule: producers of y, h, ...
//
// Attribute values: 1 (int), 0.5 or 1e-5 or inf (float), [0,2,1] (ints),
// [0.5,1.0] (floats: any element with '.', 'e' or inf/nan), "text" or a bare
// word (string), for example to=f32, approximate=tanh.
package irtest

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/memplan/memplan/ir"
)

// MustBuild builds the graph described by src and returns it with a map from
// every name in src to its value ID. It fails the test on any error.
func MustBuild(t testing.TB, src string) (*ir.Graph, map[string]ir.ValueID) {
	t.Helper()
	g, names, err := Build(src)
	if err != nil {
		t.Fatalf("irtest: %v", err)
	}
	return g, names
}

// Build is MustBuild for callers without a testing.TB: it returns the graph
// (validated by ir.Builder.Build), the names, or the first error in src or
// the builder's and validator's errors.
func Build(src string) (*ir.Graph, map[string]ir.ValueID, error) {
	p := &parser{b: ir.NewBuilder("test"), names: map[string]ir.ValueID{}, producer: map[ir.ValueID]ir.NodeID{}}
	for i, line := range strings.Split(src, "\n") {
		if j := strings.IndexByte(line, '#'); j >= 0 && !strings.Contains(line[:j], `"`) {
			line = line[:j]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if err := p.line(line); err != nil {
			return nil, nil, fmt.Errorf("line %d %q: %w", i+1, line, err)
		}
	}
	if p.order != nil {
		p.b.SetOrder(p.order)
	}
	g, err := p.b.Build()
	if err != nil {
		return nil, nil, err
	}
	if p.name != "" {
		g.Name = p.name
	}
	return g, p.names, nil
}

type parser struct {
	b     *ir.Builder
	names map[string]ir.ValueID
	name  string
	order []ir.NodeID
	// nodes counts the nodes added so far (one per op or opaque line);
	// producer maps each node output to its node.
	nodes    ir.NodeID
	producer map[ir.ValueID]ir.NodeID
}

// tokens splits a line at blanks outside brackets, parentheses and quotes.
func tokens(line string) ([]string, error) {
	var out []string
	depth, quoted, start := 0, false, -1
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case quoted:
			if ch == '\\' {
				i++
			} else if ch == '"' {
				quoted = false
			}
		case ch == '"':
			quoted = true
		case ch == '[' || ch == '(':
			depth++
		case ch == ']' || ch == ')':
			depth--
		case (ch == ' ' || ch == '\t') && depth == 0:
			if start >= 0 {
				out = append(out, line[start:i])
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if quoted || depth != 0 {
		return nil, fmt.Errorf("unbalanced quotes or brackets")
	}
	if start >= 0 {
		out = append(out, line[start:])
	}
	return out, nil
}

func (p *parser) value(name string) (ir.ValueID, error) {
	id, ok := p.names[name]
	if !ok {
		return 0, fmt.Errorf("unknown value %q", name)
	}
	return id, nil
}

func (p *parser) values(names []string) ([]ir.ValueID, error) {
	ids := make([]ir.ValueID, len(names))
	for i, n := range names {
		id, err := p.value(n)
		if err != nil {
			return nil, err
		}
		ids[i] = id
	}
	return ids, nil
}

func (p *parser) line(line string) error {
	toks, err := tokens(line)
	if err != nil {
		return err
	}
	switch toks[0] {
	case "graph":
		if len(toks) != 2 {
			return fmt.Errorf("want: graph NAME")
		}
		p.name = toks[1]
		return nil
	case "output":
		ids, err := p.values(toks[1:])
		if err != nil {
			return err
		}
		p.b.Output(ids...)
		return nil
	case "pin":
		if len(toks) != 3 {
			return fmt.Errorf(`want: pin VALUE "reason"`)
		}
		id, err := p.value(toks[1])
		if err != nil {
			return err
		}
		reason, err := strconv.Unquote(toks[2])
		if err != nil {
			reason = toks[2]
		}
		p.b.Pin(id, reason)
		return nil
	case "keep":
		ids, err := p.values(toks[1:])
		if err != nil {
			return err
		}
		if len(ids) < 2 {
			return fmt.Errorf("want: keep AT VALUE...")
		}
		p.b.KeepAlive(ids[0], ids[1:]...)
		return nil
	case "order":
		return p.orderLine(toks[1:])
	}
	eq := strings.Index(line, "=")
	if eq < 0 {
		return fmt.Errorf("want NAME[, NAME...] = OP ARGS")
	}
	var lhs []string
	for _, n := range strings.Split(line[:eq], ",") {
		n = strings.TrimSpace(n)
		if n == "" || strings.ContainsAny(n, " \t") {
			return fmt.Errorf("bad name %q", n)
		}
		if _, dup := p.names[n]; dup {
			return fmt.Errorf("name %q defined twice", n)
		}
		lhs = append(lhs, n)
	}
	rhs, err := tokens(strings.TrimSpace(line[eq+1:]))
	if err != nil {
		return err
	}
	if len(rhs) == 0 {
		return fmt.Errorf("missing op")
	}
	outs, isNode, err := p.rhs(rhs)
	if err != nil {
		return err
	}
	if err := p.b.Err(); err != nil {
		return err
	}
	if isNode {
		for _, o := range outs {
			p.producer[o] = p.nodes
		}
		p.nodes++
	}
	if len(outs) != len(lhs) {
		return fmt.Errorf("%d names for %d outputs", len(lhs), len(outs))
	}
	for i, n := range lhs {
		p.b.Name(outs[i], n)
		p.names[n] = outs[i]
	}
	return nil
}

func (p *parser) orderLine(names []string) error {
	ids, err := p.values(names)
	if err != nil {
		return err
	}
	for i, id := range ids {
		n, ok := p.producer[id]
		if !ok {
			return fmt.Errorf("order: %q has no producer", names[i])
		}
		p.order = append(p.order, n)
	}
	return nil
}

// rhs adds what the right-hand side describes and reports whether it added a node.
func (p *parser) rhs(rhs []string) ([]ir.ValueID, bool, error) {
	op, args := rhs[0], rhs[1:]
	switch op {
	case "input", "weight", "constant":
		ids, err := p.external(op, args)
		return ids, false, err
	case "view":
		ids, err := p.view(args)
		return ids, false, err
	case "opaque":
		ids, err := p.opaque(args)
		return ids, true, err
	}
	var ins []ir.ValueID
	attrs := ir.Attrs{}
	for _, a := range args {
		if k, v, ok := strings.Cut(a, "="); ok {
			at, err := parseAttr(v)
			if err != nil {
				return nil, false, fmt.Errorf("attribute %s: %w", k, err)
			}
			attrs[k] = at
			continue
		}
		id, err := p.value(a)
		if err != nil {
			return nil, false, err
		}
		ins = append(ins, id)
	}
	if len(attrs) == 0 {
		attrs = nil
	}
	return p.b.OpN(op, attrs, ins...), true, nil
}

// parseType reads f32[4,8] (f32[] is a scalar).
func parseType(s string) (ir.TensorType, error) {
	i := strings.IndexByte(s, '[')
	if i < 0 || !strings.HasSuffix(s, "]") {
		return ir.TensorType{}, fmt.Errorf("type %q: want DTYPE[DIMS]", s)
	}
	dt, err := ir.ParseDType(s[:i])
	if err != nil {
		return ir.TensorType{}, err
	}
	dims, err := parseInts(s[i:])
	if err != nil {
		return ir.TensorType{}, fmt.Errorf("type %q: %w", s, err)
	}
	return ir.TensorType{DType: dt, Shape: ir.Shape(dims)}, nil
}

// parseInts reads [1,2,3] (blanks allowed).
func parseInts(s string) ([]int64, error) {
	items, err := listItems(s)
	if err != nil {
		return nil, err
	}
	out := make([]int64, len(items))
	for i, it := range items {
		if out[i], err = strconv.ParseInt(it, 10, 64); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func listItems(s string) ([]string, error) {
	if !strings.HasPrefix(s, "[") || !strings.HasSuffix(s, "]") {
		return nil, fmt.Errorf("%q: want [a,b,...]", s)
	}
	body := strings.TrimSpace(s[1 : len(s)-1])
	if body == "" {
		return []string{}, nil
	}
	items := strings.Split(body, ",")
	for i := range items {
		items[i] = strings.TrimSpace(items[i])
	}
	return items, nil
}

func isFloatLit(s string) bool {
	l := strings.ToLower(s)
	return strings.ContainsAny(l, ".e") || strings.Contains(l, "inf") || strings.Contains(l, "nan")
}

func parseAttr(v string) (ir.Attr, error) {
	switch {
	case strings.HasPrefix(v, `"`):
		s, err := strconv.Unquote(v)
		return ir.Str(s), err
	case strings.HasPrefix(v, "["):
		items, err := listItems(v)
		if err != nil {
			return ir.Attr{}, err
		}
		floats := false
		for _, it := range items {
			floats = floats || isFloatLit(it)
		}
		if !floats {
			ints, err := parseInts(v)
			return ir.Ints(ints...), err
		}
		fs := make([]float64, len(items))
		for i, it := range items {
			if fs[i], err = strconv.ParseFloat(it, 64); err != nil {
				return ir.Attr{}, err
			}
		}
		return ir.Floats(fs...), nil
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return ir.Int(n), nil
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return ir.Float(f), nil
	}
	return ir.Str(v), nil
}

func (p *parser) external(kind string, args []string) ([]ir.ValueID, error) {
	if len(args) < 1 || len(args) > 2 {
		return nil, fmt.Errorf("want: %s TYPE [data=...]", kind)
	}
	t, err := parseType(args[0])
	if err != nil {
		return nil, err
	}
	var data []byte
	if len(args) == 2 {
		d, ok := strings.CutPrefix(args[1], "data=")
		if !ok {
			return nil, fmt.Errorf("unexpected %q", args[1])
		}
		if data, err = encodeData(t.DType, d); err != nil {
			return nil, err
		}
	}
	switch kind {
	case "input":
		if data != nil {
			return nil, fmt.Errorf("an input has no data")
		}
		return []ir.ValueID{p.b.Input("", t.DType, t.Shape...)}, nil
	case "weight":
		if data != nil {
			return []ir.ValueID{p.b.WeightData("", t.DType, data, t.Shape...)}, nil
		}
		return []ir.ValueID{p.b.Weight("", t.DType, t.Shape...)}, nil
	}
	if data == nil {
		return nil, fmt.Errorf("a constant needs data=")
	}
	return []ir.ValueID{p.b.Constant("", t.DType, data, t.Shape...)}, nil
}

// encodeData reads 0xHEX (raw bytes) or [numbers] encoded little-endian in dt.
func encodeData(dt ir.DType, s string) ([]byte, error) {
	if h, ok := strings.CutPrefix(s, "0x"); ok {
		return hex.DecodeString(h)
	}
	items, err := listItems(s)
	if err != nil {
		return nil, err
	}
	out := []byte{}
	for _, it := range items {
		f, err := strconv.ParseFloat(it, 64)
		if err != nil {
			return nil, err
		}
		switch dt {
		case ir.F32:
			out = binary.LittleEndian.AppendUint32(out, math.Float32bits(float32(f)))
		case ir.F64:
			out = binary.LittleEndian.AppendUint64(out, math.Float64bits(f))
		case ir.I64:
			out = binary.LittleEndian.AppendUint64(out, uint64(int64(f)))
		case ir.I32:
			out = binary.LittleEndian.AppendUint32(out, uint32(int32(f)))
		case ir.I8, ir.U8, ir.Bool:
			out = append(out, byte(int64(f)))
		default:
			return nil, fmt.Errorf("data lists for %v: use 0xHEX", dt)
		}
	}
	return out, nil
}

// view: view BASE +OFFSET TYPE [strides=[...]]
func (p *parser) view(args []string) ([]ir.ValueID, error) {
	if len(args) < 3 || len(args) > 4 {
		return nil, fmt.Errorf("want: view BASE +OFFSET TYPE [strides=[...]]")
	}
	base, err := p.value(args[0])
	if err != nil {
		return nil, err
	}
	off, err := strconv.ParseInt(strings.TrimPrefix(args[1], "+"), 10, 64)
	if err != nil || (!strings.HasPrefix(args[1], "+") && !strings.HasPrefix(args[1], "-")) {
		return nil, fmt.Errorf("offset %q: want +BYTES", args[1])
	}
	t, err := parseType(args[2])
	if err != nil {
		return nil, err
	}
	var strides []int64
	if len(args) == 4 {
		s, ok := strings.CutPrefix(args[3], "strides=")
		if !ok {
			return nil, fmt.Errorf("unexpected %q", args[3])
		}
		if strides, err = parseInts(s); err != nil {
			return nil, err
		}
	}
	return []ir.ValueID{p.b.View("", base, off, t.DType, t.Shape, strides)}, nil
}

// opaque: opaque OP(TYPE, TYPE...) INPUTS...
func (p *parser) opaque(args []string) ([]ir.ValueID, error) {
	if len(args) < 1 {
		return nil, fmt.Errorf("want: opaque OP(TYPES) INPUTS...")
	}
	op, rest, ok := strings.Cut(args[0], "(")
	if !ok || !strings.HasSuffix(rest, ")") || op == "" {
		return nil, fmt.Errorf("%q: want OP(TYPE, ...)", args[0])
	}
	var outs []ir.TensorType
	for _, ts := range splitTypes(rest[:len(rest)-1]) {
		t, err := parseType(ts)
		if err != nil {
			return nil, err
		}
		outs = append(outs, t)
	}
	ins, err := p.values(args[1:])
	if err != nil {
		return nil, err
	}
	return p.b.Opaque(op, outs, ins...), nil
}

// splitTypes splits "f32[2,3], i64[]" at commas outside brackets.
func splitTypes(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	if t := strings.TrimSpace(s[start:]); t != "" {
		out = append(out, t)
	}
	return out
}
