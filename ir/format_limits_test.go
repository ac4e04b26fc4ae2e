package ir

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCheckCounts: the pre-scan counts the elements of the top-level
// arrays (strings with brackets and commas inside do not confuse it) and
// names the first element past the limit with its line.
func TestCheckCounts(t *testing.T) {
	file := `{"format":"memplan-graph","version":1,"name":"a,[b]\",{",
"values":[{"id":0,"shape":[1,2,3]},
{"id":1,"name":"x,y"},
{"id":2}],
"nodes":[],"order":[0,1]}`
	if c, err := checkCounts([]byte(file), 3); err != nil || c != (arrayCounts{values: 3, nodes: 0}) {
		t.Fatalf("3 values within a limit of 3: %+v, %v", c, err)
	}
	_, err := checkCounts([]byte(file), 2)
	var fe *FormatError
	require.Falsef(t, !errors.As(err, &fe) || fe.Field != "values[2]" || fe.Line != 4 || !errors.Is(err, ErrFormat), "limit 2: got %v, want values[2] at line 4", err)
	_, err = checkCounts([]byte(file), 1)
	require.Falsef(t, err == nil || !strings.Contains(err.Error(), "values[1]"), "limit 1: %v", err)
	order := `{"values":[],"nodes":[],"order":[0,1,2,3]}`
	_, err = checkCounts([]byte(order), 3)
	require.Falsef(t, err == nil || !strings.Contains(err.Error(), "order[3]"), "order over the limit: %v", err)
}

// TestListLimits: a shape longer than MaxRank or an operand list longer
// than MaxFileElements is refused while reading, naming the list.
func TestListLimits(t *testing.T) {
	long := "[" + strings.Repeat("1,", MaxRank) + "1]"
	file := `{"format":"memplan-graph","version":1,"values":[{"id":0,"dtype":"f32","shape":` + long + `,"flags":["input"]}],"nodes":[]}`
	_, err := Decode([]byte(file))
	require.Falsef(t, !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "values[0]: shape: 65 entries, at most 64"), "long shape: %v", err)
	var l intList[inputsSpec]
	err = l.UnmarshalJSON([]byte("[1, 2,3]"))
	require.Falsef(t, err != nil || len(l) != 3 || cap(l) != 3, "three inputs: %v %v (cap %d)", l, err, cap(l))
}

// TestCheckPassKeepsNothing: the check pass of a large file converts every
// record and keeps none, and a file read after it gives the same graph as
// one read in a single pass.
func TestCheckPassKeepsNothing(t *testing.T) {
	data := []byte(`{"format":"memplan-graph","version":1,"name":"t","values":[
{"id":0,"name":"x","dtype":"f32","shape":[2],"flags":["input"]},
{"id":1,"name":"y","dtype":"f32","shape":[2],"flags":["output"]}],
"nodes":[{"id":0,"name":"r","op":"Relu","inputs":[0],"outputs":[1]}],"order":[0]}`)
	c := newDecoder(data)
	c.checkOnly = true
	g, err := c.file()
	require.NoErrorf(t, err, "check pass of a valid file: %v", err)
	if len(g.Values) != 0 || len(g.Nodes) != 0 {
		t.Fatalf("check pass kept %d values and %d nodes, want none", len(g.Values), len(g.Nodes))
	}
	once, err := Parse(data)
	require.NoErrorf(t, err, "%v", err)
	restore := SetCheckFirstBytes(0)
	defer restore()
	twice, err := Parse(data)
	require.NoErrorf(t, err, "%v", err)
	var a, b strings.Builder
	err = Print(&a, once)
	require.NoErrorf(t, err, "%v", err)
	err = Print(&b, twice)
	require.NoErrorf(t, err, "%v", err)
	if a.String() != b.String() {
		t.Fatalf("read with the check pass:\n%s\nread once:\n%s", b.String(), a.String())
	}
}
