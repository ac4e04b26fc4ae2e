package irtest

// The lexical layer of the fixture language: a line splits into tokens at
// blanks outside brackets, parentheses and quotes; types (f32[4,8]), integer
// lists ([0,2,1]), attribute values and data literals (0x0100, [1,2.5]) are
// read here, independent of the graph being built.

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/memplan/memplan/ir"
)

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
		return nil, syntaxf("unbalanced quotes or brackets")
	}
	if start >= 0 {
		out = append(out, line[start:])
	}
	return out, nil
}

// parseType reads f32[4,8] (f32[] is a scalar).
func parseType(s string) (ir.TensorType, error) {
	i := strings.IndexByte(s, '[')
	if i < 0 || !strings.HasSuffix(s, "]") {
		return ir.TensorType{}, syntaxf("type %q: want DTYPE[DIMS]", s)
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
			return nil, syntaxf("integer %q: %w", it, err)
		}
	}
	return out, nil
}

func listItems(s string) ([]string, error) {
	if !strings.HasPrefix(s, "[") || !strings.HasSuffix(s, "]") {
		return nil, syntaxf("%q: want [a,b,...]", s)
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
		if err != nil {
			return ir.Attr{}, syntaxf("string %s: %w", v, err)
		}
		return ir.Str(s), nil
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
				return ir.Attr{}, syntaxf("number %q: %w", it, err)
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

// encodeData reads 0xHEX (raw bytes) or [numbers] encoded little-endian in dt.
func encodeData(dt ir.DType, s string) ([]byte, error) {
	if h, ok := strings.CutPrefix(s, "0x"); ok {
		b, err := hex.DecodeString(h)
		if err != nil {
			return nil, syntaxf("data %q: %w", s, err)
		}
		return b, nil
	}
	items, err := listItems(s)
	if err != nil {
		return nil, err
	}
	out := []byte{}
	for _, it := range items {
		f, err := strconv.ParseFloat(it, 64)
		if err != nil {
			return nil, syntaxf("number %q: %w", it, err)
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
			return nil, syntaxf("data lists for %v: use 0xHEX", dt)
		}
	}
	return out, nil
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
