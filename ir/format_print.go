package ir

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// Print writes g in the canonical layout of the graph file format
// (docs/FORMAT.md): fixed key order, one value or node per line, empty
// optional fields omitted. Printing a parsed canonical file reproduces it
// byte for byte.
//
// Print does not validate the graph, so tests can write invalid graphs; it
// fails only on what the format cannot represent (a nil graph, value or node,
// an invalid dtype, unknown flag bits, an attribute of unknown kind).
func Print(w io.Writer, g *Graph) error {
	if g == nil {
		return fmt.Errorf("ir: print: nil graph: %w", ErrFormat)
	}
	var b bytes.Buffer
	b.WriteString("{\n")
	fmt.Fprintf(&b, "  \"format\": %s,\n", quote(FormatName))
	fmt.Fprintf(&b, "  \"version\": %d,\n", FormatVersion)
	fmt.Fprintf(&b, "  \"name\": %s,\n", quote(g.Name))
	b.WriteString("  \"values\": [")
	for i, v := range g.Values {
		if err := printValue(&b, i, v); err != nil {
			return err
		}
		sep(&b, i, len(g.Values))
	}
	b.WriteString("],\n  \"nodes\": [")
	for i, n := range g.Nodes {
		if err := printNode(&b, i, n); err != nil {
			return err
		}
		sep(&b, i, len(g.Nodes))
	}
	b.WriteString("]")
	if g.Order != nil {
		b.WriteString(",\n  \"order\": ")
		writeInts(&b, g.Order)
	}
	b.WriteString("\n}\n")
	bw := bufio.NewWriter(w)
	if _, err := bw.Write(b.Bytes()); err != nil {
		return fmt.Errorf("ir: print: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("ir: print: %w", err)
	}
	return nil
}

// sep writes what follows element i of n: a comma and a new line, or the
// new line and indentation that close the array.
func sep(b *bytes.Buffer, i, n int) {
	if i < n-1 {
		b.WriteString(",")
		return
	}
	b.WriteString("\n  ")
}

// elemStart begins an array element on its own line.
func elemStart(b *bytes.Buffer) { b.WriteString("\n    ") }

func printValue(b *bytes.Buffer, i int, v *Value) error {
	if v == nil {
		return fmt.Errorf("ir: print: values[%d] is nil: %w", i, ErrFormat)
	}
	if !v.DType.Valid() {
		return &ValueError{Value: v.ID, Name: v.Name, Err: fmt.Errorf("print: %v: %w", v.DType, ErrDType)}
	}
	if v.Flags >= 1<<len(flagNames) {
		return &ValueError{Value: v.ID, Name: v.Name, Err: fmt.Errorf("print: flag bits %#x: %w", uint8(v.Flags), ErrFlags)}
	}
	elemStart(b)
	fmt.Fprintf(b, "{\"id\": %d, \"name\": %s, \"dtype\": %s, \"shape\": ", v.ID, quote(v.Name), quote(v.DType.String()))
	writeInts(b, v.Shape)
	if v.Flags != 0 {
		b.WriteString(", \"flags\": [")
		for j, f := range v.Flags.Names() {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(quote(f))
		}
		b.WriteString("]")
	}
	if v.PinReason != "" {
		fmt.Fprintf(b, ", \"pin_reason\": %s", quote(v.PinReason))
	}
	if v.View != nil {
		fmt.Fprintf(b, ", \"view\": {\"base\": %d, \"offset\": %d", v.View.Base, v.View.OffsetBytes)
		if v.View.StridesBytes != nil {
			b.WriteString(", \"strides\": ")
			writeInts(b, v.View.StridesBytes)
		}
		b.WriteString("}")
	}
	if v.Data != nil {
		fmt.Fprintf(b, ", \"data\": \"%s\"", base64.StdEncoding.EncodeToString(v.Data))
	}
	b.WriteString("}")
	return nil
}

func printNode(b *bytes.Buffer, i int, n *Node) error {
	if n == nil {
		return fmt.Errorf("ir: print: nodes[%d] is nil: %w", i, ErrFormat)
	}
	elemStart(b)
	fmt.Fprintf(b, "{\"id\": %d, \"name\": %s, \"op\": %s", n.ID, quote(n.Name), quote(n.Op))
	if n.Opaque {
		b.WriteString(", \"opaque\": true")
	}
	b.WriteString(", \"inputs\": ")
	writeInts(b, n.Inputs)
	b.WriteString(", \"outputs\": ")
	writeInts(b, n.Outputs)
	if len(n.Attrs) > 0 {
		b.WriteString(", \"attrs\": {")
		for j, k := range n.Attrs.Keys() {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(quote(k))
			b.WriteString(": ")
			if err := writeAttr(b, n.Attrs[k]); err != nil {
				return &NodeError{Node: n.ID, Name: n.Name, Op: n.Op, Err: fmt.Errorf("print: attribute %q: %w", k, err)}
			}
		}
		b.WriteString("}")
	}
	if len(n.KeepAlive) > 0 {
		b.WriteString(", \"keep_alive\": ")
		writeInts(b, n.KeepAlive)
	}
	b.WriteString("}")
	return nil
}

// writeInts writes a list of integers as [1, 2, 3].
func writeInts[T ~int32 | ~int64](b *bytes.Buffer, xs []T) {
	b.WriteString("[")
	for i, x := range xs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(int64(x), 10))
	}
	b.WriteString("]")
}

// quote returns s as a JSON string, without HTML escaping.
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return `""` // unreachable: strings always encode
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte{'\n'}))
}
