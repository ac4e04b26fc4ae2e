package irtest

import (
	"fmt"
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
			return nil, nil, fmt.Errorf("irtest: line %d %q: %w", i+1, line, err)
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

func (p *parser) value(name string) (ir.ValueID, error) {
	id, ok := p.names[name]
	if !ok {
		return 0, syntaxf("unknown value %q", name)
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
			return syntaxf("want: graph NAME")
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
			return syntaxf(`want: pin VALUE "reason"`)
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
			return syntaxf("want: keep AT VALUE...")
		}
		p.b.KeepAlive(ids[0], ids[1:]...)
		return nil
	case "order":
		return p.orderLine(toks[1:])
	}
	eq := strings.Index(line, "=")
	if eq < 0 {
		return syntaxf("want NAME[, NAME...] = OP ARGS")
	}
	var lhs []string
	for _, n := range strings.Split(line[:eq], ",") {
		n = strings.TrimSpace(n)
		if n == "" || strings.ContainsAny(n, " \t") {
			return syntaxf("bad name %q", n)
		}
		if _, dup := p.names[n]; dup {
			return syntaxf("name %q defined twice", n)
		}
		lhs = append(lhs, n)
	}
	rhs, err := tokens(strings.TrimSpace(line[eq+1:]))
	if err != nil {
		return err
	}
	if len(rhs) == 0 {
		return syntaxf("missing op")
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
		return syntaxf("%d names for %d outputs", len(lhs), len(outs))
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
			return syntaxf("order: %q has no producer", names[i])
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

func (p *parser) external(kind string, args []string) ([]ir.ValueID, error) {
	if len(args) < 1 || len(args) > 2 {
		return nil, syntaxf("want: %s TYPE [data=...]", kind)
	}
	t, err := parseType(args[0])
	if err != nil {
		return nil, err
	}
	var data []byte
	if len(args) == 2 {
		d, ok := strings.CutPrefix(args[1], "data=")
		if !ok {
			return nil, syntaxf("unexpected %q", args[1])
		}
		if data, err = encodeData(t.DType, d); err != nil {
			return nil, err
		}
	}
	switch kind {
	case "input":
		if data != nil {
			return nil, syntaxf("an input has no data")
		}
		return []ir.ValueID{p.b.Input("", t.DType, t.Shape...)}, nil
	case "weight":
		if data != nil {
			return []ir.ValueID{p.b.WeightData("", t.DType, data, t.Shape...)}, nil
		}
		return []ir.ValueID{p.b.Weight("", t.DType, t.Shape...)}, nil
	}
	if data == nil {
		return nil, syntaxf("a constant needs data=")
	}
	return []ir.ValueID{p.b.Constant("", t.DType, data, t.Shape...)}, nil
}

// view: view BASE +OFFSET TYPE [strides=[...]]
func (p *parser) view(args []string) ([]ir.ValueID, error) {
	if len(args) < 3 || len(args) > 4 {
		return nil, syntaxf("want: view BASE +OFFSET TYPE [strides=[...]]")
	}
	base, err := p.value(args[0])
	if err != nil {
		return nil, err
	}
	off, err := strconv.ParseInt(strings.TrimPrefix(args[1], "+"), 10, 64)
	if err != nil || (!strings.HasPrefix(args[1], "+") && !strings.HasPrefix(args[1], "-")) {
		return nil, syntaxf("offset %q: want +BYTES", args[1])
	}
	t, err := parseType(args[2])
	if err != nil {
		return nil, err
	}
	var strides []int64
	if len(args) == 4 {
		s, ok := strings.CutPrefix(args[3], "strides=")
		if !ok {
			return nil, syntaxf("unexpected %q", args[3])
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
		return nil, syntaxf("want: opaque OP(TYPES) INPUTS...")
	}
	op, rest, ok := strings.Cut(args[0], "(")
	if !ok || !strings.HasSuffix(rest, ")") || op == "" {
		return nil, syntaxf("%q: want OP(TYPE, ...)", args[0])
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
