package ir

import (
	"encoding/json"
	"fmt"
)

// Counting before decoding
//
// A file may hold at most MaxFileElements values, nodes and order entries.
// Decoding them one by one would find the excess only after building that
// many elements (gigabytes for a hostile file), so Parse and Decode first
// scan the bytes once, without allocating, counting the elements of the
// top-level arrays, and reject an oversized one at the first element past
// the limit, naming its line and index. The scan only tracks strings and
// nesting; the decoder that follows checks the syntax.

// arrayCounts are the element counts of the top-level arrays.
type arrayCounts struct{ values, nodes int }

// checkCounts scans data and returns the element counts of the top-level
// "values" and "nodes" arrays, or a *FormatError for the first top-level
// array ("values", "nodes" or "order") with more than max elements.
func checkCounts(data []byte, max int) (arrayCounts, error) {
	var counts arrayCounts
	depth := 0
	inStr, esc := false, false
	keyStart := -1
	var lastKey []byte
	var arrKey string // the top-level key whose array is open at depth 2
	count := 0
	sawElem := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
				if depth == 1 && keyStart >= 0 {
					lastKey = data[keyStart:i]
					keyStart = -1
				}
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
			if depth == 1 {
				keyStart = i + 1
			}
			if depth == 2 && arrKey != "" && !sawElem {
				sawElem, count = true, 1
			}
		case '{', '[':
			if depth == 2 && arrKey != "" && !sawElem {
				sawElem, count = true, 1
			}
			depth++
			if depth == 2 && c == '[' {
				switch k := string(lastKey); k {
				case "values", "nodes", "order":
					arrKey, count, sawElem = k, 0, false
				}
			}
		case '}', ']':
			if depth == 2 {
				switch arrKey {
				case "values":
					counts.values = count
				case "nodes":
					counts.nodes = count
				}
				arrKey = ""
			}
			depth--
		case ',':
			if depth == 2 && arrKey != "" {
				count++
				if count > max {
					at := i + 1
					for at < len(data) && (data[at] == ' ' || data[at] == '\t' || data[at] == '\r' || data[at] == '\n') {
						at++
					}
					return counts, &FormatError{Line: lineAt(data, at), Field: fmt.Sprintf("%s[%d]", arrKey, count-1), Err: fmt.Errorf("more than %d elements: %w", max, ErrFormat)}
				}
			}
		case ' ', '\t', '\r', '\n', ':':
		default:
			if depth == 2 && arrKey != "" && !sawElem {
				sawElem, count = true, 1
			}
		}
	}
	return counts, nil
}

// lineAt returns the 1-based line of byte offset off.
func lineAt(data []byte, off int) int {
	n := 1
	for _, c := range data[:off] {
		if c == '\n' {
			n++
		}
	}
	return n
}

// Bounded integer lists. A shape, a stride list or a node's operand list is
// counted in its raw bytes before it is decoded, so a hostile list of
// millions of entries is refused before it is allocated, and an accepted
// one is allocated once at its exact length.

// listSpec names a bounded list and its limit.
type listSpec interface {
	name() string
	limit() int
}

type (
	shapeSpec     struct{}
	stridesSpec   struct{}
	inputsSpec    struct{}
	outputsSpec   struct{}
	keepAliveSpec struct{}
)

func (shapeSpec) name() string     { return "shape" }
func (shapeSpec) limit() int       { return MaxRank }
func (stridesSpec) name() string   { return "strides" }
func (stridesSpec) limit() int     { return MaxRank }
func (inputsSpec) name() string    { return "inputs" }
func (inputsSpec) limit() int      { return MaxFileElements }
func (outputsSpec) name() string   { return "outputs" }
func (outputsSpec) limit() int     { return MaxFileElements }
func (keepAliveSpec) name() string { return "keep_alive" }
func (keepAliveSpec) limit() int   { return MaxFileElements }

// intList is a JSON list of integers bounded by its spec.
type intList[S listSpec] []int64

// UnmarshalJSON counts the entries of raw, refuses more than the spec's
// limit, and decodes the rest into a slice of the exact length.
func (l *intList[S]) UnmarshalJSON(raw []byte) error {
	var spec S
	n, empty := 0, true
	for _, c := range raw {
		switch c {
		case ',':
			n++
		case '[', ']', ' ', '\t', '\r', '\n':
		default:
			empty = false
		}
	}
	if !empty {
		n++
	}
	if n > spec.limit() {
		return fmt.Errorf("%s: %d entries, at most %d", spec.name(), n, spec.limit())
	}
	if string(raw) == "null" {
		*l = nil
		return nil
	}
	s := make([]int64, 0, n)
	if err := json.Unmarshal(raw, &s); err != nil {
		return err
	}
	*l = s
	return nil
}
