package ir

// Attributes in the graph file: an object with exactly one key naming the
// kind, {"int": 1}, {"ints": [1, 2]}, {"float": 0.5}, {"floats": [0.5]} or
// {"str": "tanh"}. Floats JSON cannot hold are the strings "inf", "-inf"
// and "nan".

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// decodeAttr reads one attribute: an object with exactly one of the keys
// int, ints, float, floats, str.
func decodeAttr(raw json.RawMessage) (Attr, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || len(m) != 1 {
		return Attr{}, fmt.Errorf("an attribute is an object with one key (int, ints, float, floats or str): %w", ErrAttr)
	}
	for k, body := range m {
		var err error
		var a Attr
		if string(body) == "null" {
			return Attr{}, fmt.Errorf("%s: null: %w", k, ErrAttr)
		}
		switch k {
		case "int":
			a.Kind = AttrInt
			err = json.Unmarshal(body, &a.Int)
		case "ints":
			a.Kind = AttrInts
			err = json.Unmarshal(body, &a.Ints)
			if err == nil && a.Ints == nil {
				err = errors.New("null list")
			}
		case "float":
			a.Kind = AttrFloat
			a.Float, err = decodeFloat(body)
		case "floats":
			a.Kind = AttrFloats
			var items []json.RawMessage
			if err = json.Unmarshal(body, &items); err == nil && items == nil {
				err = errors.New("null list")
			}
			if err == nil {
				a.Floats = make([]float64, len(items))
				for j, it := range items {
					if a.Floats[j], err = decodeFloat(it); err != nil {
						break
					}
				}
			}
		case "str":
			a.Kind = AttrString
			err = json.Unmarshal(body, &a.Str)
		default:
			return Attr{}, fmt.Errorf("unknown attribute kind %q: %w", k, ErrAttr)
		}
		if err != nil {
			return Attr{}, fmt.Errorf("%s: %v: %w", k, err, ErrAttr)
		}
		return a, nil
	}
	return Attr{}, ErrAttr // unreachable: len(m) == 1
}

// decodeFloat reads a JSON number, or one of the strings "inf", "-inf",
// "nan" that JSON cannot write as numbers.
func decodeFloat(body json.RawMessage) (float64, error) {
	if string(body) == "null" {
		return 0, errors.New("null float")
	}
	if len(body) > 0 && body[0] == '"' {
		var s string
		if err := json.Unmarshal(body, &s); err != nil {
			return 0, err
		}
		switch s {
		case "inf":
			return math.Inf(1), nil
		case "-inf":
			return math.Inf(-1), nil
		case "nan":
			return math.NaN(), nil
		}
		return 0, fmt.Errorf("float string %q (only inf, -inf, nan)", s)
	}
	var f float64
	if err := json.Unmarshal(body, &f); err != nil {
		return 0, err
	}
	return f, nil
}

// writeAttr writes one attribute in its canonical form.
func writeAttr(b *bytes.Buffer, a Attr) error {
	switch a.Kind {
	case AttrInt:
		fmt.Fprintf(b, "{\"int\": %d}", a.Int)
	case AttrInts:
		b.WriteString("{\"ints\": ")
		writeInts(b, a.Ints)
		b.WriteString("}")
	case AttrFloat:
		b.WriteString("{\"float\": ")
		b.WriteString(formatFloat(a.Float))
		b.WriteString("}")
	case AttrFloats:
		b.WriteString("{\"floats\": [")
		for i, f := range a.Floats {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(formatFloat(f))
		}
		b.WriteString("]}")
	case AttrString:
		fmt.Fprintf(b, "{\"str\": %s}", quote(a.Str))
	default:
		return fmt.Errorf("kind %d: %w", a.Kind, ErrAttr)
	}
	return nil
}

// formatFloat writes the shortest decimal that reads back as f, or a string
// for the values JSON numbers cannot hold.
func formatFloat(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return `"inf"`
	case math.IsInf(f, -1):
		return `"-inf"`
	case math.IsNaN(f):
		return `"nan"`
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
