package ir

// The graph file format: versioned JSON, specified in docs/FORMAT.md.
//
// A file is one object with the keys format, version, name, values, nodes
// and (optionally) order. Values and nodes are arrays indexed by ID, so
// references are plain integers. The printer ([Print]) writes a canonical
// layout: fixed key order, one value or node per line, omitted empty optional
// fields. Parsing a canonical file and printing it again gives the same bytes,
// which keeps diffs of testdata small and lets the fuzz target check that the
// two directions agree.
//
// Decoding reads the top-level object token by token and decodes each value
// and node with its own json.Decoder call, remembering where each element
// starts, so an error names the line and the field:
//
//	ir: line 7: values[3].dtype: unknown dtype "f33": malformed graph file
//
// Allocation is bounded by the input: every shape is checked against MaxBytes
// (and MaxRank) and every data field's decoded length against the value's
// byte size before anything of that size is allocated; IDs must fit in int32;
// values, nodes and order entries are capped at MaxFileElements each, counted
// by one scan of the bytes before anything is decoded (format_limits.go).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// FormatName and FormatVersion identify the file format; a file with another
// format name or version is rejected.
const (
	FormatName    = "memplan-graph"
	FormatVersion = 1
)

// MaxFileElements caps the number of values, of nodes, and of schedule
// entries a file may hold (4Mi each): far above any real graph, low enough
// that the side tables of Validate stay small.
const MaxFileElements = 1 << 22

// FormatError is a problem in a graph file. Line is 1-based (0 when
// unknown); Field is a path such as "values[3].dtype". It matches both
// ErrFormat and the class of the cause (ErrDType, ErrOverflow, ...) under
// errors.Is.
type FormatError struct {
	Line  int
	Field string
	Err   error
}

func (e *FormatError) Error() string {
	s := "ir: "
	if e.Line > 0 {
		s += "line " + strconv.Itoa(e.Line) + ": "
	}
	if e.Field != "" {
		s += e.Field + ": "
	}
	s += strings.TrimPrefix(e.Err.Error(), "ir: ")
	if !errors.Is(e.Err, ErrFormat) {
		s += ": " + ErrFormat.Error()
	}
	return s
}

// Unwrap returns ErrFormat and the cause, so errors.Is sees both.
func (e *FormatError) Unwrap() []error { return []error{ErrFormat, e.Err} }

// Parse decodes a graph file and validates the graph. It returns the graph
// only when both succeed. A malformed file gives a *FormatError; an invalid
// graph gives the joined errors of [Graph.Validate], each wrapped in a
// *FormatError carrying the line of the value or node it names (errors.As
// still finds the *NodeError or *ValueError). Use [Decode] to read a
// well-formed file whose graph may be invalid.
func Parse(data []byte) (*Graph, error) {
	d, g, err := read(data)
	if err != nil {
		return nil, err
	}
	if err := g.Validate(); err != nil {
		return nil, d.locate(err)
	}
	return g, nil
}

// locate gives each validation error the line of the value or node it
// names: a *FormatError whose cause is the *ValueError or *NodeError.
func (d *decoder) locate(err error) error {
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	out := make([]error, len(errs))
	for i, e := range errs {
		out[i] = e
		var ne *NodeError
		var ve *ValueError
		switch {
		case errors.As(e, &ne) && ne.Node >= 0 && int(ne.Node) < len(d.nodeAt):
			out[i] = &FormatError{Line: d.line(d.nodeAt[ne.Node]), Field: fmt.Sprintf("nodes[%d]", ne.Node), Err: e}
		case errors.As(e, &ve) && ve.Value >= 0 && int(ve.Value) < len(d.valueAt):
			out[i] = &FormatError{Line: d.line(d.valueAt[ve.Value]), Field: fmt.Sprintf("values[%d]", ve.Value), Err: e}
		}
	}
	return errors.Join(out...)
}

func newDecoder(data []byte) *decoder {
	d := &decoder{data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	d.dec.DisallowUnknownFields()
	return d
}

// Decode reads a graph file without validating the graph. It checks what the
// file itself must get right (syntax, field types, known dtypes, flags and
// attribute kinds, IDs equal to positions, references in range, shapes within
// MaxBytes, data lengths) and sets each value's Producer from the nodes'
// outputs (the first node listing a value wins; Validate reports a second).
func Decode(data []byte) (*Graph, error) {
	_, g, err := read(data)
	if err != nil {
		return nil, err
	}
	return g, nil
}

// CheckFirstBytes is the file size above which Parse and Decode read a file
// twice: first every record is decoded and checked on its own and then
// dropped, and only a file that passes is read again into a graph. A bad
// record at the end of a large file is then refused holding one record at
// a time beside the file, not the graph of everything before it (a 76 MB
// file of a million values with a bad dtype in its last record: 380 MB
// peak in one pass). Smaller files are read once.
const CheckFirstBytes = 8 << 20

// read decodes data into a graph, through the fast path when the whole
// file is plain (fastFile) and else through encoding/json (file); files
// above checkFirstBytes get the check pass first. It returns the decoder
// that read the graph (its record offsets locate validation errors).
func read(data []byte) (*decoder, *Graph, error) {
	var check *decoder
	if len(data) > checkFirstBytes {
		var err error
		if check, _, err = readPass(data, true, nil); err != nil {
			return nil, nil, err
		}
	}
	return readPass(data, false, check)
}

// readPass reads data once, with fastFile or else with file on a fresh
// decoder, taking the count scan from an earlier pass's decoder (nil:
// none).
func readPass(data []byte, checkOnly bool, earlier *decoder) (*decoder, *Graph, error) {
	fresh := func() *decoder {
		d := newDecoder(data)
		d.checkOnly = checkOnly
		if earlier != nil {
			d.counts, d.counted = earlier.counts, earlier.counted
		}
		return d
	}
	d := fresh()
	g, ok, err := d.fastFile()
	if !ok {
		d = fresh()
		g, err = d.file()
	}
	if err != nil {
		return nil, nil, err
	}
	return d, g, nil
}

// checkFirstBytes is CheckFirstBytes; tests lower it.
var checkFirstBytes = CheckFirstBytes

// File-level JSON shapes. Pointers mark required fields so that a missing
// one is an error rather than a zero.
type fileValue struct {
	ID        *int64             `json:"id"`
	Name      string             `json:"name"`
	DType     *string            `json:"dtype"`
	Shape     intList[shapeSpec] `json:"shape"`
	Flags     []string           `json:"flags"`
	PinReason string             `json:"pin_reason"`
	View      *fileView          `json:"view"`
	Data      *string            `json:"data"`
}

type fileView struct {
	Base    *int64               `json:"base"`
	Offset  int64                `json:"offset"`
	Strides intList[stridesSpec] `json:"strides"`
}

type fileNode struct {
	ID        *int64                     `json:"id"`
	Name      string                     `json:"name"`
	Op        string                     `json:"op"`
	Opaque    bool                       `json:"opaque"`
	Inputs    intList[inputsSpec]        `json:"inputs"`
	Outputs   intList[outputsSpec]       `json:"outputs"`
	Attrs     map[string]json.RawMessage `json:"attrs"`
	KeepAlive intList[keepAliveSpec]     `json:"keep_alive"`
}

type decoder struct {
	data []byte
	dec  *json.Decoder
	// element start offsets, for reference checks after all elements are read
	valueAt, nodeAt []int64
	orderAt         int64
	// checkOnly converts every record and drops it: the check pass of a
	// large file. The graph it returns holds no values or nodes.
	checkOnly bool
	scratch   fastScratch // the fast path's record (format_fast.go)
	counts    arrayCounts // checkCounts of data, once counted is set
	counted   bool
}

// line returns the 1-based line of byte offset off.
func (d *decoder) line(off int64) int {
	if off > int64(len(d.data)) {
		off = int64(len(d.data))
	}
	if off < 0 {
		off = 0
	}
	return 1 + bytes.Count(d.data[:off], []byte{'\n'})
}

func (d *decoder) errAt(off int64, field string, format string, args ...any) error {
	return &FormatError{Line: d.line(off), Field: field, Err: fmt.Errorf(format, args...)}
}

// jsonErr converts an encoding/json error met while reading the JSON value
// that starts at byte start into a FormatError with a line.
//
// A json.Decoder that has already consumed part of its input reports syntax
// error offsets that are not reliably absolute, so the value is scanned again
// by a fresh decoder, whose offsets are relative to start. Type errors carry
// offsets relative to the value being decoded.
func (d *decoder) jsonErr(err error, field string, start int64) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		at := start
		if start >= 0 && start <= int64(len(d.data)) {
			var raw json.RawMessage
			if err2 := json.NewDecoder(bytes.NewReader(d.data[start:])).Decode(&raw); errors.As(err2, &se) {
				at = start + se.Offset
			}
		}
		return &FormatError{Line: d.line(at), Field: field, Err: fmt.Errorf("%v: %w", se, ErrFormat)}
	case errors.As(err, &te):
		f := field
		if te.Field != "" {
			if f != "" {
				f += "."
			}
			f += te.Field
		}
		return &FormatError{Line: d.line(start + te.Offset), Field: f, Err: fmt.Errorf("cannot read %s into %v: %w", te.Value, te.Type, ErrFormat)}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &FormatError{Line: d.line(int64(len(d.data))), Field: field, Err: fmt.Errorf("unexpected end of file: %w", ErrFormat)}
	}
	return &FormatError{Line: d.line(start), Field: field, Err: fmt.Errorf("%v: %w", err, ErrFormat)}
}

// next returns the offset where the next JSON value starts after the
// decoder's position (skipping blanks, commas and colons).
func (d *decoder) next() int64 {
	off := d.dec.InputOffset()
	for off < int64(len(d.data)) {
		switch d.data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
			continue
		}
		break
	}
	return off
}

func (d *decoder) delim(want json.Delim, field string) error {
	start := d.next()
	tok, err := d.dec.Token()
	if err != nil {
		return d.jsonErr(err, field, start)
	}
	if got, ok := tok.(json.Delim); !ok || got != want {
		return d.errAt(start, field, "want %q, found %v: %w", string(want), tok, ErrFormat)
	}
	return nil
}

// scanCounts is checkCounts of the decoder's data, scanned once.
func (d *decoder) scanCounts() (arrayCounts, error) {
	if !d.counted {
		c, err := checkCounts(d.data, MaxFileElements)
		if err != nil {
			return c, err
		}
		d.counts, d.counted = c, true
	}
	return d.counts, nil
}

func (d *decoder) file() (*Graph, error) {
	counts, err := d.scanCounts()
	if err != nil {
		return nil, err
	}
	if err := d.delim('{', ""); err != nil {
		return nil, err
	}
	// Records become Values and Nodes as they are read (the counts from the
	// scan bound every reference), so the file's records are never all held
	// at once beside the graph.
	g := &Graph{}
	seen := map[string]bool{}
	for d.dec.More() {
		start := d.next()
		tok, err := d.dec.Token()
		if err != nil {
			return nil, d.jsonErr(err, "", start)
		}
		key, ok := tok.(string)
		if !ok {
			return nil, d.errAt(start, "", "want a key, found %v: %w", tok, ErrFormat)
		}
		if seen[key] {
			return nil, d.errAt(start, key, "duplicate key: %w", ErrFormat)
		}
		seen[key] = true
		vstart := d.next()
		switch key {
		case "format":
			var s string
			if err := d.dec.Decode(&s); err != nil {
				return nil, d.jsonErr(err, key, vstart)
			}
			if s != FormatName {
				return nil, d.errAt(vstart, key, "not a %s file (format %q): %w", FormatName, s, ErrFormat)
			}
		case "version":
			var v int64
			if err := d.dec.Decode(&v); err != nil {
				return nil, d.jsonErr(err, key, vstart)
			}
			if v != FormatVersion {
				return nil, d.errAt(vstart, key, "unsupported version %d (this reader knows %d): %w", v, FormatVersion, ErrFormat)
			}
		case "name":
			if err := d.dec.Decode(&g.Name); err != nil {
				return nil, d.jsonErr(err, key, vstart)
			}
		case "values":
			g.Values = make([]*Value, 0, counts.values)
			err := decodeArray(d, key, &d.valueAt, func(i int, fv *fileValue) error {
				v, err := d.value(i, fv, counts.values)
				if !d.checkOnly {
					g.Values = append(g.Values, v)
				}
				return err
			})
			if err != nil {
				return nil, err
			}
		case "nodes":
			g.Nodes = make([]*Node, 0, counts.nodes)
			err := decodeArray(d, key, &d.nodeAt, func(i int, fn *fileNode) error {
				n, err := d.node(i, fn, counts.values)
				if !d.checkOnly {
					g.Nodes = append(g.Nodes, n)
				}
				return err
			})
			if err != nil {
				return nil, err
			}
		case "order":
			d.orderAt = vstart
			var order []int64
			if err := d.dec.Decode(&order); err != nil {
				return nil, d.jsonErr(err, key, vstart)
			}
			if len(order) > MaxFileElements {
				return nil, d.errAt(vstart, key, "more than %d entries: %w", MaxFileElements, ErrFormat)
			}
			if order == nil {
				return nil, d.errAt(vstart, key, "null order (omit the key for the default schedule): %w", ErrFormat)
			}
			g.Order = make([]NodeID, 0, len(order))
			for i, id := range order {
				if id < 0 || id > math.MaxInt32 {
					return nil, d.errAt(vstart, fmt.Sprintf("order[%d]", i), "node id %d out of range: %w", id, ErrFormat)
				}
				g.Order = append(g.Order, NodeID(id))
			}
		default:
			return nil, d.errAt(start, key, "unknown key: %w", ErrFormat)
		}
	}
	if err := d.delim('}', ""); err != nil {
		return nil, err
	}
	if end := d.next(); end != int64(len(d.data)) {
		return nil, d.errAt(end, "", "data after the graph object: %w", ErrFormat)
	}
	for _, k := range []string{"format", "version", "values", "nodes"} {
		if !seen[k] {
			return nil, &FormatError{Line: 1, Field: k, Err: fmt.Errorf("missing required key: %w", ErrFormat)}
		}
	}
	if err := d.finish(g, counts); err != nil {
		return nil, err
	}
	return g, nil
}

// finish completes a graph read by file or fastFile: the counts agree
// with the scan's, each value's Producer is set, the order is in range.
func (d *decoder) finish(g *Graph, counts arrayCounts) error {
	if d.checkOnly {
		return d.checkOrder(g.Order, counts.nodes)
	}
	if len(g.Values) != counts.values || len(g.Nodes) != counts.nodes {
		return &FormatError{Line: 1, Err: fmt.Errorf("read %d values and %d nodes, the scan counted %d and %d: %w", len(g.Values), len(g.Nodes), counts.values, counts.nodes, ErrFormat)}
	}
	for _, n := range g.Nodes {
		for _, o := range n.Outputs {
			if v := g.Values[o]; v.Producer == NoNode {
				v.Producer = n.ID
			}
		}
	}
	return d.checkOrder(g.Order, len(g.Nodes))
}

// checkOrder reports the first entry of order that names no node of n.
func (d *decoder) checkOrder(order []NodeID, n int) error {
	for i, id := range order {
		if int(id) >= n {
			return d.errAt(d.orderAt, fmt.Sprintf("order[%d]", i), "node id %d out of range [0, %d): %w", id, n, ErrFormat)
		}
	}
	return nil
}

// decodeArray reads a JSON array of T, one element per Decode call,
// records where each element starts, and hands each element to use as soon
// as it is read.
func decodeArray[T any](d *decoder, key string, at *[]int64, use func(i int, e *T) error) error {
	if err := d.delim('[', key); err != nil {
		return err
	}
	for i := 0; d.dec.More(); i++ {
		start := d.next()
		if i == MaxFileElements {
			return d.errAt(start, recField{key, i}.at(""), "more than %d elements: %w", MaxFileElements, ErrFormat)
		}
		var e T
		if err := d.dec.Decode(&e); err != nil {
			return d.jsonErr(err, recField{key, i}.at(""), start)
		}
		*at = append(*at, start)
		if err := use(i, &e); err != nil {
			return err
		}
	}
	return d.delim(']', key)
}
