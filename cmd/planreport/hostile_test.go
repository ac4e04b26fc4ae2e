package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memplan/memplan/internal/dsagen"
	"github.com/memplan/memplan/internal/hostile"
	"github.com/memplan/memplan/internal/longtest"
	"github.com/memplan/memplan/ir"
	"github.com/stretchr/testify/require"
)

// hostileCase is one run of the CLI on a hostile input: the exit status it
// must end with and the words its stderr must hold to name the culprit.
type hostileCase struct {
	args []string
	code int
	want []string
}

// runHostile runs the CLI, turning a panic into a test failure, and logs
// the wall time (figures go to docs/BENCHMARKS.md, measured by
// scripts/hostile_bench.sh; no timing is asserted here).
func runHostile(t *testing.T, c hostileCase) {
	t.Helper()
	var out, errb bytes.Buffer
	t0 := time.Now()
	code := func() (code int) {
		defer func() {
			r := recover()
			require.Falsef(t, r != nil, "planreport %v panicked: %v", c.args, r)
		}()
		return run(c.args, &out, &errb)
	}()
	t.Logf("planreport %s: exit %d in %.3f s", strings.Join(c.args, " "), code, time.Since(t0).Seconds())
	if code != c.code {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, c.code, head(errb.String()))
	}
	for _, w := range c.want {
		if !strings.Contains(errb.String(), w) {
			t.Errorf("stderr does not name %q:\n%s", w, head(errb.String()))
		}
	}
	if strings.Contains(errb.String(), "planner bug") || strings.Contains(errb.String(), "a bug: please report") {
		t.Errorf("a bad input reported as a bug:\n%s", head(errb.String()))
	}
}

func head(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "..."
	}
	return s
}

// TestHostileCorpus runs the CLI on every file of testdata/hostile: each
// ends with exit status 1 (2 for a bad flag) and an error naming its
// culprit, never a panic. Every file in the folder must have a case.
func TestHostileCorpus(t *testing.T) {
	dir := "../../testdata/hostile"
	f := func(name string) string { return filepath.Join(dir, name) }
	cases := map[string]hostileCase{
		"align_max.csv":         {[]string{f("align_max.csv")}, 1, []string{"line 2", "alignment 9223372036854775807"}},
		"bad_data.json":         {[]string{f("bad_data.json")}, 1, []string{"line 2", "values[0].data"}},
		"cycle.json":            {[]string{f("cycle.json")}, 1, []string{"nodes[0]", "cycle"}},
		"dangling_input.json":   {[]string{f("dangling_input.json")}, 1, []string{"nodes[0].inputs[0]", "value id 7"}},
		"deep_nesting.json":     {[]string{f("deep_nesting.json")}, 1, []string{"line 1", "name", "depth"}},
		"duplicate_key.json":    {[]string{f("duplicate_key.json")}, 1, []string{"name", "duplicate key"}},
		"empty_lifespan.csv":    {[]string{f("empty_lifespan.csv")}, 1, []string{"line 2", "upper 10"}},
		"garbage.onnx":          {[]string{f("garbage.onnx")}, 1, []string{"garbage.onnx", "protobuf"}},
		"gelu_bogus.json":       {[]string{f("gelu_bogus.json")}, 1, []string{`node 0 "n" (Gelu)`, `attribute "approximate"`, `"bogus"`}},
		"huge_input.json":       {[]string{"-run", f("huge_input.json")}, 1, []string{`value 0 "x"`, "-max-bytes"}},
		"long_shape.json":       {[]string{f("long_shape.json")}, 1, []string{"values[0]: shape", "100000 entries"}},
		"misspelt_attr.json":    {[]string{f("misspelt_attr.json")}, 1, []string{`node 0 "n" (Softmax)`, `attribute "axsi"`}},
		"negative_size.csv":     {[]string{f("negative_size.csv")}, 1, []string{"line 2", "size -5"}},
		"not_a_number.csv":      {[]string{f("not_a_number.csv")}, 1, []string{"line 3", `"x"`}},
		"offset_overflow.csv":   {[]string{f("offset_overflow.csv")}, 1, []string{"line 2", "offset 9223372036854775800"}},
		"shape_overflow.json":   {[]string{f("shape_overflow.json")}, 1, []string{"values[0].shape", "overflow"}},
		"size_overflow.csv":     {[]string{f("size_overflow.csv")}, 1, []string{"line 2", "99999999999999999999"}},
		"stride_overflow.json":  {[]string{f("stride_overflow.json")}, 1, []string{"values[1]", `"v"`}},
		"string_in_shape.json":  {[]string{f("string_in_shape.json")}, 1, []string{"values[0].shape", "string"}},
		"string_perm.json":      {[]string{f("string_perm.json")}, 1, []string{`node 0 "n" (Transpose)`, `attribute "perm"`}},
		"trailing.json":         {[]string{f("trailing.json")}, 1, []string{"line 1", "data after the graph"}},
		"truncated.onnx":        {[]string{f("truncated.onnx")}, 1, []string{"truncated.onnx", "protobuf"}},
		"view_cycle.json":       {[]string{f("view_cycle.json")}, 1, []string{`value 0 "a"`, "returns to itself"}},
		"view_out_of_root.json": {[]string{f("view_out_of_root.json")}, 1, []string{`value 1 "v"`, "[4, 20)"}},
	}
	entries, err := os.ReadDir(dir)
	require.NoErrorf(t, err, "%v", err)
	for _, e := range entries {
		if _, ok := cases[e.Name()]; !ok {
			t.Errorf("testdata/hostile/%s has no case", e.Name())
		}
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) { runHostile(t, c) })
	}
	t.Run("align flag", func(t *testing.T) {
		runHostile(t, hostileCase{[]string{"-align", "4611686018427387904", "../../testdata/mlp.json"}, 2, []string{"-align 4611686018427387904"}})
	})
}

// TestHostileGenerated runs the CLI on the generated inputs: legal but
// large ones plan (exit 0), too many values is refused at once naming the
// element. Small sizes by default; the sizes of issue 17 under longtest.
func TestHostileGenerated(t *testing.T) {
	long := longtest.Enabled()
	size := func(small, big int) int {
		if long {
			return big
		}
		return small
	}
	dir := t.TempDir()
	gen := func(name string, g func(w io.Writer) error) string {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		require.NoErrorf(t, err, "%v", err)
		if err := g(f); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		return p
	}
	chain := size(2_000, 100_000)
	cases := []struct {
		name string
		gen  func(w io.Writer) error
		c    hostileCase
	}{
		{"inplace_chain.json", func(w io.Writer) error { return hostile.InPlaceChain(w, chain) }, hostileCase{code: 0}},
		{"view_chain.json", func(w io.Writer) error { return hostile.ViewChain(w, chain) }, hostileCase{code: 0}},
		{"rows.csv", func(w io.Writer) error { return hostile.CSVRows(w, 2_000, 1) }, hostileCase{code: 0}},
		{"live.csv", func(w io.Writer) error { return hostile.ManyLiveCSV(w, size(20_000, 300_000)) }, hostileCase{code: 0}},
		{"bad_last_value.json", func(w io.Writer) error { return hostile.BadLastValue(w, size(200_000, 1_000_000)) }, hostileCase{code: 1, want: []string{fmt.Sprintf("values[%d].dtype", size(200_000, 1_000_000)-2), `"f3"`}}},
	}
	if long {
		cases = append(cases, struct {
			name string
			gen  func(w io.Writer) error
			c    hostileCase
		}{"synthetic_1m.csv", func(w io.Writer) error { return syntheticCSV(w, 1_000_000) }, hostileCase{code: 0}})
		n := ir.MaxFileElements + 1
		cases = append(cases, struct {
			name string
			gen  func(w io.Writer) error
			c    hostileCase
		}{"too_many_values.json", func(w io.Writer) error { return hostile.ManyValues(w, n) }, hostileCase{code: 1, want: []string{fmt.Sprintf("values[%d]", n-1), fmt.Sprintf("more than %d elements", ir.MaxFileElements)}}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := gen(c.name, c.gen)
			c.c.args = []string{"-o", filepath.Join(dir, c.name+".out"), p}
			if !long {
				// The default strategy searches mid-size instances for
				// seconds; the quick run is about reading and verifying.
				c.c.args = append([]string{"-strategy", "portfolio"}, c.c.args...)
			}
			runHostile(t, c.c)
		})
	}
}

// syntheticCSV writes dsagen's synthetic instance of n blocks (the
// placement benchmarks' ladder) as a DSA CSV.
func syntheticCSV(w io.Writer, n int) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("id,lower,upper,size\n")
	for i, b := range dsagen.Synthetic(n) {
		fmt.Fprintf(bw, "%d,%d,%d,%d\n", i, b.Start, b.End, b.Size)
	}
	return bw.Flush()
}
