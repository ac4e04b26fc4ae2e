package ir_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func testdataFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob("../testdata/*.json")
	require.NoErrorf(t, err, "%v", err)
	require.GreaterOrEqualf(t, len(files), 6, "found %d testdata graphs, want at least 6", len(files))
	return files
}

// TestRoundTrip: every testdata graph parses, validates, and prints back to
// the same bytes.
func TestRoundTrip(t *testing.T) {
	for _, path := range testdataFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			require.NoErrorf(t, err, "%v", err)
			g, err := ir.Parse(data)
			require.NoErrorf(t, err, "%v", err)
			if err := g.Validate(); err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := ir.Print(&buf, g); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), data) {
				t.Errorf("printing the parsed file changes it:\n%s", firstDiff(data, buf.Bytes()))
			}
		})
	}
}

func firstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return "line " + itoa(i+1) + ":\n file:    " + al[i] + "\n printed: " + bl[i]
		}
	}
	return "lengths differ"
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestRoundTripEveryField covers what the testdata may not: every attribute
// kind, non-finite floats, an explicit order, opaque nodes, keep-alives,
// pins, data, scalars, empty strides and odd characters in names.
func TestRoundTripEveryField(t *testing.T) {
	src := `{
  "format": "memplan-graph",
  "version": 1,
  "name": "every <field> \"quoted\" é",
  "values": [
    {"id": 0, "name": "x", "dtype": "f32", "shape": [2, 3], "flags": ["input"]},
    {"id": 1, "name": "c", "dtype": "i64", "shape": [], "flags": ["constant"], "data": "BwAAAAAAAAA="},
    {"id": 2, "name": "e", "dtype": "u8", "shape": [0], "flags": ["weight"], "data": ""},
    {"id": 3, "name": "y", "dtype": "f32", "shape": [2, 3], "flags": ["output", "pinned"], "pin_reason": "host"},
    {"id": 4, "name": "s", "dtype": "f32", "shape": [], "view": {"base": 0, "offset": 4, "strides": []}},
    {"id": 5, "name": "o", "dtype": "bf16", "shape": [7]}
  ],
  "nodes": [
    {"id": 0, "name": "clip", "op": "Clip", "inputs": [0], "outputs": [3], "attrs": {"a": {"ints": []}, "b": {"floats": [0.5, "nan", 1e-05]}, "c": {"str": "tanh"}, "max": {"float": "inf"}, "min": {"float": "-inf"}, "n": {"int": -3}}, "keep_alive": [1, 2]},
    {"id": 1, "name": "", "op": "Mystery", "opaque": true, "inputs": [], "outputs": [5]}
  ],
  "order": [1, 0]
}
`
	g, err := ir.Decode([]byte(src))
	require.NoErrorf(t, err, "%v", err)
	var buf bytes.Buffer
	err = ir.Print(&buf, g)
	require.NoErrorf(t, err, "%v", err)
	if buf.String() != src {
		t.Errorf("round trip changed the file:\n%s", firstDiff([]byte(src), buf.Bytes()))
	}
}

// TestDecodeErrors: each malformed file is rejected with a FormatError that
// names the line and the field, and matches ErrFormat and the cause's class.
func TestDecodeErrors(t *testing.T) {
	head := "{\n  \"format\": \"memplan-graph\",\n  \"version\": 1,\n  \"name\": \"t\",\n  \"values\": [\n"
	val := `    {"id": 0, "name": "x", "dtype": "f32", "shape": [2], "flags": ["input"]}`
	tail := "\n  ],\n  \"nodes\": []\n}\n"
	tests := []struct {
		name  string
		file  string
		line  int
		field string
		class error
	}{
		{"syntax", head + val + ",\n    {\"id\": 1,,}" + tail, 7, "values[1]", ir.ErrFormat},
		{"not json", "hello", 1, "", ir.ErrFormat},
		{"empty", "", 1, "", ir.ErrFormat},
		{"wrong format", strings.Replace(head, "memplan-graph", "onnx", 1) + val + tail, 2, "format", ir.ErrFormat},
		{"future version", strings.Replace(head, `"version": 1`, `"version": 2`, 1) + val + tail, 3, "version", ir.ErrFormat},
		{"unknown top key", strings.Replace(head, `"name"`, `"nmae"`, 1) + val + tail, 4, "nmae", ir.ErrFormat},
		{"duplicate key", strings.Replace(head, `"name": "t"`, `"version": 1`, 1) + val + tail, 4, "version", ir.ErrFormat},
		{"missing nodes", head + val + "\n  ]\n}\n", 1, "nodes", ir.ErrFormat},
		{"trailing data", head + val + tail + "{}", 10, "", ir.ErrFormat},
		{"unknown value field", head + strings.Replace(val, `"name"`, `"nam"`, 1) + tail, 6, "values[0]", ir.ErrFormat},
		{"bad dtype", head + strings.Replace(val, `"f32"`, `"f33"`, 1) + tail, 6, "values[0].dtype", ir.ErrDType},
		{"missing dtype", head + strings.Replace(val, `"dtype": "f32", `, "", 1) + tail, 6, "values[0].dtype", ir.ErrFormat},
		{"missing shape", head + strings.Replace(val, `"shape": [2], `, "", 1) + tail, 6, "values[0].shape", ir.ErrFormat},
		{"string dim", head + strings.Replace(val, `[2]`, `["2"]`, 1) + tail, 6, "values[0].shape", ir.ErrFormat},
		{"negative dim", head + strings.Replace(val, `[2]`, `[-2]`, 1) + tail, 6, "values[0].shape", ir.ErrShape},
		{"huge dim", head + strings.Replace(val, `[2]`, `[1000000000000000000]`, 1) + tail, 6, "values[0].shape", ir.ErrOverflow},
		{"2^40 x 2^40", head + strings.Replace(val, `[2]`, `[1099511627776, 1099511627776]`, 1) + tail, 6, "values[0].shape", ir.ErrOverflow},
		{"dim beyond int64", head + strings.Replace(val, `[2]`, `[1e30]`, 1) + tail, 6, "values[0].shape", ir.ErrFormat},
		{"bad flag", head + strings.Replace(val, `"input"`, `"inptu"`, 1) + tail, 6, "values[0].flags[0]", ir.ErrFlags},
		{"repeated flag", head + strings.Replace(val, `["input"]`, `["input", "input"]`, 1) + tail, 6, "values[0].flags[1]", ir.ErrFormat},
		{"id out of place", head + strings.Replace(val, `"id": 0`, `"id": 3`, 1) + tail, 6, "values[0].id", ir.ErrFormat},
		{"missing id", head + strings.Replace(val, `"id": 0, `, "", 1) + tail, 6, "values[0].id", ir.ErrFormat},
		{"view base out of range", head + strings.Replace(val, `"flags": ["input"]`, `"view": {"base": 9, "offset": 0}`, 1) + tail, 6, "values[0].view.base", ir.ErrUndefined},
		{"view without base", head + strings.Replace(val, `"flags": ["input"]`, `"view": {"offset": 0}`, 1) + tail, 6, "values[0].view.base", ir.ErrFormat},
		{"bad base64", head + strings.Replace(val, `"flags": ["input"]`, `"flags": ["weight"], "data": "!!!!"`, 1) + tail, 6, "values[0].data", ir.ErrFormat},
		{"short data", head + strings.Replace(val, `"flags": ["input"]`, `"flags": ["weight"], "data": "AAAA"`, 1) + tail, 6, "values[0].data", ir.ErrFormat},
		{"long data", head + strings.Replace(val, `"flags": ["input"]`, `"flags": ["weight"], "data": "`+strings.Repeat("AAAA", 100)+`"`, 1) + tail, 6, "values[0].data", ir.ErrFormat},
		{"node input out of range", head + val + "\n  ],\n  \"nodes\": [\n    {\"id\": 0, \"name\": \"r\", \"op\": \"Relu\", \"inputs\": [5], \"outputs\": [0]}\n  ]\n}\n", 9, "nodes[0].inputs[0]", ir.ErrUndefined},
		{"node without outputs", head + val + "\n  ],\n  \"nodes\": [\n    {\"id\": 0, \"name\": \"r\", \"op\": \"Relu\", \"inputs\": [0]}\n  ]\n}\n", 9, "nodes[0].outputs", ir.ErrFormat},
		{"node without op", head + val + "\n  ],\n  \"nodes\": [\n    {\"id\": 0, \"inputs\": [0], \"outputs\": [0]}\n  ]\n}\n", 9, "nodes[0].op", ir.ErrFormat},
		{"bad attr kind", head + val + "\n  ],\n  \"nodes\": [\n    {\"id\": 0, \"op\": \"Relu\", \"inputs\": [0], \"outputs\": [0], \"attrs\": {\"k\": {\"bool\": true}}}\n  ]\n}\n", 9, "nodes[0].attrs.k", ir.ErrAttr},
		{"attr with two kinds", head + val + "\n  ],\n  \"nodes\": [\n    {\"id\": 0, \"op\": \"Relu\", \"inputs\": [0], \"outputs\": [0], \"attrs\": {\"k\": {\"int\": 1, \"str\": \"a\"}}}\n  ]\n}\n", 9, "nodes[0].attrs.k", ir.ErrAttr},
		{"bad float string", head + val + "\n  ],\n  \"nodes\": [\n    {\"id\": 0, \"op\": \"Relu\", \"inputs\": [0], \"outputs\": [0], \"attrs\": {\"k\": {\"float\": \"big\"}}}\n  ]\n}\n", 9, "nodes[0].attrs.k", ir.ErrAttr},
		{"null int", head + val + "\n  ],\n  \"nodes\": [\n    {\"id\": 0, \"op\": \"Relu\", \"inputs\": [0], \"outputs\": [0], \"attrs\": {\"k\": {\"int\": null}}}\n  ]\n}\n", 9, "nodes[0].attrs.k", ir.ErrAttr},
		{"order out of range", head + val + "\n  ],\n  \"nodes\": [],\n  \"order\": [0]\n}\n", 9, "order[0]", ir.ErrFormat},
	}
	// Each case runs twice: read once, and with the check pass of large
	// files forced on, which must find the same error at the same place.
	for _, pass := range []struct {
		name      string
		threshold int
	}{{"one pass", ir.CheckFirstBytes}, {"check pass", 0}} {
		restore := ir.SetCheckFirstBytes(pass.threshold)
		for _, tc := range tests {
			t.Run(pass.name+"/"+tc.name, func(t *testing.T) {
				decodeErrorCase(t, tc.file, tc.line, tc.field, tc.class)
			})
		}
		restore()
	}
}

// decodeErrorCase requires Decode to reject file with a *FormatError at
// line and field that matches ErrFormat and class.
func decodeErrorCase(t *testing.T, file string, line int, field string, class error) {
	t.Helper()
	g, err := ir.Decode([]byte(file))
	require.Errorf(t, err, "decoded %+v, want an error", g)
	var fe *ir.FormatError
	require.Truef(t, errors.As(err, &fe), "%v: not a *FormatError", err)
	if fe.Line != line || fe.Field != field {
		t.Errorf("error at line %d field %q, want line %d field %q: %v", fe.Line, fe.Field, line, field, err)
	}
	assert.Falsef(t, !errors.Is(err, ir.ErrFormat) || !errors.Is(err, class), "%v: want ErrFormat and %v", err, class)
	assert.Truef(t, strings.HasPrefix(err.Error(), "ir: "), "%q does not start with the package name", err)
}

// TestParseValidates: Parse runs Validate; Decode does not.
func TestParseValidates(t *testing.T) {
	// y claims f32[3] but Relu of f32[2] gives f32[2].
	src := `{"format": "memplan-graph", "version": 1, "values": [
	{"id": 0, "name": "x", "dtype": "f32", "shape": [2], "flags": ["input"]},
	{"id": 1, "name": "y", "dtype": "f32", "shape": [3], "flags": ["output"]}],
	"nodes": [{"id": 0, "name": "r", "op": "Relu", "inputs": [0], "outputs": [1]}]}`
	if _, err := ir.Decode([]byte(src)); err != nil {
		t.Fatalf("Decode: %v", err)
	}
	g, err := ir.Parse([]byte(src))
	var ne *ir.NodeError
	require.Falsef(t, g != nil || !errors.As(err, &ne) || ne.Name != "r" || !errors.Is(err, ir.ErrTypeMismatch), "Parse = %v, %v; want a type mismatch at node r", g, err)
	var fe *ir.FormatError
	assert.Falsef(t, !errors.As(err, &fe) || fe.Line != 4 || fe.Field != "nodes[0]", "Parse error %v does not name line 4, nodes[0]", err)
	// A value's problem names the value's line.
	bad := strings.Replace(src, `"shape": [3], "flags": ["output"]`, `"shape": [3], "flags": ["output", "pinned"]`, 1)
	_, err = ir.Parse([]byte(bad))
	var ve *ir.ValueError
	found := false
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		if errors.As(e, &fe) && errors.As(e, &ve) && ve.Name == "y" && fe.Line == 3 && fe.Field == "values[1]" && errors.Is(e, ir.ErrFlags) {
			found = true
		}
	}
	assert.Truef(t, found, "no error names line 3, values[1] (y pinned without a reason): %v", err)
}

// TestPrintRefuses: Print fails on what the format cannot hold.
func TestPrintRefuses(t *testing.T) {
	ok := func() *ir.Graph {
		return &ir.Graph{Values: []*ir.Value{{ID: 0, Name: "x", DType: ir.F32, Shape: ir.Shape{2}, Flags: ir.FlagInput, Producer: ir.NoNode}}}
	}
	tests := []struct {
		name  string
		g     *ir.Graph
		class error
	}{
		{"nil graph", nil, ir.ErrFormat},
		{"nil value", &ir.Graph{Values: []*ir.Value{nil}}, ir.ErrFormat},
		{"nil node", func() *ir.Graph { g := ok(); g.Nodes = []*ir.Node{nil}; return g }(), ir.ErrFormat},
		{"bad dtype", func() *ir.Graph { g := ok(); g.Values[0].DType = 99; return g }(), ir.ErrDType},
		{"bad flags", func() *ir.Graph { g := ok(); g.Values[0].Flags = 0x80; return g }(), ir.ErrFlags},
		{"bad attr", func() *ir.Graph {
			g := ok()
			g.Nodes = []*ir.Node{{Op: "Relu", Inputs: []ir.ValueID{0}, Outputs: []ir.ValueID{0}, Attrs: ir.Attrs{"k": {}}}}
			return g
		}(), ir.ErrAttr},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := ir.Print(&buf, tc.g)
			require.ErrorIsf(t, err, tc.class, "Print = %v, want %v", err, tc.class)
		})
	}
	var buf bytes.Buffer
	err := ir.Print(&buf, ok())
	require.NoErrorf(t, err, "Print of a good graph: %v", err)
}

// FuzzParse: any input may be rejected, none may panic; whatever decodes
// prints, and the printed form decodes and prints to the same bytes.
//
// Minimising a new input re-runs the whole round trip on the large seeds
// (the testdata graphs) for up to a minute by default, during which the
// plain `go test -fuzz=FuzzParse ./ir` makes no progress at all; unless
// -test.fuzzminimizetime is given, minimisation is cut to a few runs.
func FuzzParse(f *testing.F) {
	setByUser := false
	flag.Visit(func(fl *flag.Flag) { setByUser = setByUser || fl.Name == "test.fuzzminimizetime" })
	if !setByUser {
		if err := flag.Set("test.fuzzminimizetime", "10x"); err != nil {
			f.Logf("cannot shorten minimisation: %v", err)
		}
	}
	for _, path := range testdataFiles(f) {
		data, err := os.ReadFile(path)
		require.NoErrorf(f, err, "%v", err)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := ir.Parse(data); err != nil {
			assert.Truef(t, strings.HasPrefix(err.Error(), "ir: "), "error %q does not start with ir:", err)
		}
		g, err := ir.Decode(data)
		if err != nil {
			return
		}
		_ = g.Validate()
		_, _ = g.Schedule()
		var p1 bytes.Buffer
		if err := ir.Print(&p1, g); err != nil {
			t.Fatalf("Print of a decoded graph: %v", err)
		}
		g2, err := ir.Decode(p1.Bytes())
		if err != nil {
			t.Fatalf("printed graph does not decode: %v\n%s", err, p1.Bytes())
		}
		var p2 bytes.Buffer
		if err := ir.Print(&p2, g2); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(p1.Bytes(), p2.Bytes()) {
			t.Fatalf("print is not stable:\n%s", firstDiff(p1.Bytes(), p2.Bytes()))
		}
	})
}

// TestFormatDocExample: the example in docs/FORMAT.md parses, validates and
// is canonical.
func TestFormatDocExample(t *testing.T) {
	doc, err := os.ReadFile("../docs/FORMAT.md")
	require.NoErrorf(t, err, "%v", err)
	_, rest, ok := strings.Cut(string(doc), "```json\n")
	require.Truef(t, ok, "no json block in docs/FORMAT.md")
	example, _, _ := strings.Cut(rest, "```")
	g, err := ir.Parse([]byte(example))
	require.NoErrorf(t, err, "%v", err)
	var buf bytes.Buffer
	err = ir.Print(&buf, g)
	require.NoErrorf(t, err, "%v", err)
	if buf.String() != example {
		t.Errorf("the documented example is not canonical:\n%s", firstDiff([]byte(example), buf.Bytes()))
	}
}
