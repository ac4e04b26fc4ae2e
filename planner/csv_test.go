package planner

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadCSV(t *testing.T) {
	bufs, err := ReadCSV(strings.NewReader("size,id,upper,lower\n8,7,3,1\n\n16,x9,9,2\n"))
	require.NoErrorf(t, err, "%v", err)
	want := []Buffer{{ID: 7, Start: 1, End: 3, Size: 8}, {ID: 1, Name: "x9", Start: 2, End: 9, Size: 16}}
	assert.Falsef(t, len(bufs) != len(want) || bufs[0] != want[0] || bufs[1] != want[1], "got %+v, want %+v", bufs, want)
	f, err := os.Open(filepath.Join("testdata", "aligned_fixed.csv"))
	require.NoErrorf(t, err, "%v", err)
	defer f.Close()
	bufs, err = ReadCSV(f)
	require.NoErrorf(t, err, "%v", err)
	b := bufs[2]
	assert.Falsef(t, !b.Fixed || b.Offset != 256 || b.Align != 32, "fixed row = %+v", b)
	b = bufs[0]
	assert.Falsef(t, b.Fixed || b.Align != 64, "free row = %+v", b)
}

func TestReadCSVErrors(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string // substrings of the error
	}{
		{"empty", "", []string{"line 1", "empty"}},
		{"missing column", "id,lower,size\n1,0,4\n", []string{"line 1", "missing column(s) upper"}},
		{"not a number", "id,lower,upper,size\n1,0,4,8\n2,0,four,8\n", []string{"line 3", `upper "four" is not an integer`}},
		{"negative size", "id,lower,upper,size\n1,0,4,-8\n", []string{"line 2", "negative size"}},
		{"upper <= lower", "id,lower,upper,size\n1,4,4,8\n", []string{"line 2", "upper 4 <= lower 4"}},
		{"duplicate id", "id,lower,upper,size\n1,0,4,8\n1,1,5,8\n", []string{"line 3", `duplicate id "1" (first on line 2)`}},
		{"short row", "id,lower,upper,size\n1,0,4\n", []string{"line 2", "no size cell"}},
		{"negative offset", "id,lower,upper,size,offset\n1,0,4,8,-1\n", []string{"line 2", "negative offset"}},
		{"every problem", "id,lower,upper,size\n1,0,4,-8\n2,5,1,8\n", []string{"line 2", "line 3"}},
		{"bad quoting", "id,lower,upper,size\n\"1,0,4,8\n", []string{"line"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadCSV(strings.NewReader(tc.src))
			require.ErrorIsf(t, err, ErrCSV, "error %v does not wrap ErrCSV", err)
			for _, w := range tc.want {
				assert.Containsf(t, err.Error(), w, "error %q lacks %q", err, w)
			}
		})
	}
}

func TestCSVRoundTrip(t *testing.T) {
	for _, name := range []string{"tiny.csv", "aligned_fixed.csv"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		require.NoErrorf(t, err, "%v", err)
		bufs, err := ReadCSV(bytes.NewReader(data))
		require.NoErrorf(t, err, "%v", err)
		p, err := PlanBuffers(t.Context(), bufs, Options{})
		require.NoErrorf(t, err, "%v", err)
		var out bytes.Buffer
		err = WriteCSV(&out, p.Buffers, p.Offsets)
		require.NoErrorf(t, err, "%v", err)
		back, err := ReadCSV(&out)
		if err != nil {
			t.Fatalf("%s: reading our own output: %v\n%s", name, err, out.String())
		}
		// Read back, every buffer is Fixed at its planned offset, and
		// planning it again keeps every offset.
		for i := range back {
			if !back[i].Fixed || back[i].Offset != p.Offsets[i] || back[i].Size != bufs[i].Size || back[i].Start != bufs[i].Start {
				t.Errorf("%s row %d: %+v, planned at %d from %+v", name, i, back[i], p.Offsets[i], bufs[i])
			}
		}
		err = VerifyPlacement(back, p.Offsets)
		assert.NoErrorf(t, err, "%v", err)
	}
}

func FuzzReadCSV(f *testing.F) {
	for _, name := range []string{"tiny.csv", "aligned_fixed.csv"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		require.NoErrorf(f, err, "%v", err)
		f.Add(data)
	}
	f.Add([]byte("id,lower,upper,size\n1,0,4,-8\n"))
	f.Add([]byte("id,lower,upper,size,offset\n1,0,4,8,0\n2,0,4,8,0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		bufs, err := ReadCSV(bytes.NewReader(data))
		if err != nil {
			require.ErrorIsf(t, err, ErrCSV, "error without ErrCSV: %v", err)
			return
		}
		for _, b := range bufs {
			require.Falsef(t, b.End <= b.Start || b.Size < 0 || b.Align < 0 || b.Offset < 0, "accepted an invalid buffer %+v", b)
		}
		if len(bufs) > 200 {
			return
		}
		p, err := PlanBuffers(t.Context(), bufs, Options{})
		if err != nil {
			require.Falsef(t, !errors.Is(err, ErrInvalidBuffer) && !errors.Is(err, ErrFixedConflict), "unexpected planning error: %v", err)
			return
		}
		if err := p.Verify(nil); err != nil {
			t.Fatal(err)
		}
	})
}

// TestReadCSVLimits: every limit is an error naming its line that wraps
// both ErrInputLimit and ErrCSV; values at a limit are accepted.
func TestReadCSVLimits(t *testing.T) {
	head := "id,lower,upper,size,alignment,offset\n"
	many := func(n int, size string) string {
		var sb strings.Builder
		sb.WriteString(head)
		for i := range n {
			fmt.Fprintf(&sb, "%d,0,1,%s,,\n", i, size)
		}
		return sb.String()
	}
	cases := []struct {
		name, src string
		lim       CSVLimits
		want      []string // substrings of the error; nil: accepted
	}{
		{"rows", head + "1,0,1,8,,\n2,0,1,8,,\n3,0,1,8,,\n", CSVLimits{MaxRows: 2}, []string{"line 4", "more than 2 rows"}},
		{"rows at the limit", head + "1,0,1,8,,\n2,0,1,8,,\n", CSVLimits{MaxRows: 2}, nil},
		{"long line", head + "1,0,1,8,,\n2,0,1," + strings.Repeat("9", 100) + ",,\n", CSVLimits{MaxLineBytes: 64}, []string{"line 3", "longer than 64 bytes"}},
		{"size above 2^48", head + "1,0,1,281474976710657,,\n", CSVLimits{}, []string{"line 2", "size 281474976710657 is outside"}},
		{"size 2^48", head + "1,0,1,281474976710656,,\n", CSVLimits{}, nil},
		{"alignment 2^63-1", head + "1,0,1,8,9223372036854775807,\n", CSVLimits{}, []string{"line 2", "alignment 9223372036854775807 is outside"}},
		{"offset 2^63-1", head + "1,0,1,8,,9223372036854775807\n", CSVLimits{}, []string{"line 2", "offset 9223372036854775807 is outside"}},
		{"past int64", head + "1,0,1,9223372036854775808,,\n", CSVLimits{}, []string{"line 2", "outside int64"}},
		{"time", head + "1,0,4611686018427387905,8,,\n", CSVLimits{}, []string{"line 2", "upper 4611686018427387905 is outside"}},
		{"total", many(8193, "281474976710656"), CSVLimits{}, []string{"line 8194", "above 2^61"}},
		{"total at the limit", many(8192, "281474976710655"), CSVLimits{}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bufs, err := ReadCSVLimits(strings.NewReader(tc.src), tc.lim)
			if tc.want == nil {
				require.NoErrorf(t, err, "rejected: %v", err)
				require.NotEmptyf(t, bufs, "no buffers")
				return
			}
			require.Falsef(t, !errors.Is(err, ErrInputLimit) || !errors.Is(err, ErrCSV), "error %v does not wrap ErrInputLimit and ErrCSV", err)
			for _, w := range tc.want {
				assert.Containsf(t, err.Error(), w, "error %q lacks %q", err, w)
			}
		})
	}
}

// TestReadCSVSyntax: quoted cells, CRLF line ends, a byte-order mark,
// spaces around cells, named ids and their duplicates.
func TestReadCSVSyntax(t *testing.T) {
	src := "\ufeffid, lower ,upper,size\r\n\"b,1\",0,2,8\r\n \"say \"\"hi\"\"\" ,1,3, 4 \r\n7,0,1,2"
	bufs, err := ReadCSV(strings.NewReader(src))
	require.NoErrorf(t, err, "%v", err)
	want := []Buffer{{ID: 0, Name: "b,1", Start: 0, End: 2, Size: 8}, {ID: 1, Name: `say "hi"`, Start: 1, End: 3, Size: 4}, {ID: 7, Start: 0, End: 1, Size: 2}}
	assert.Truef(t, slices.Equal(bufs, want), "got %+v, want %+v", bufs, want)
	_, err = ReadCSV(strings.NewReader("id,lower,upper,size\nx,0,1,1\n5,0,1,1\nx,0,1,1\n5,2,3,1\n"))
	for _, w := range []string{`line 4: duplicate id "x" (first on line 2)`, `line 5: duplicate id "5" (first on line 3)`} {
		assert.Falsef(t, err == nil || !strings.Contains(err.Error(), w), "error %v lacks %q", err, w)
	}
	_, err = ReadCSV(strings.NewReader("id,lower,upper,size\nx\"y,0,1,1\n\"z\" q,0,1,1\n"))
	for _, w := range []string{"line 2: bare quote", "line 3: text after a quoted cell"} {
		assert.Falsef(t, err == nil || !strings.Contains(err.Error(), w), "error %v lacks %q", err, w)
	}
}

// TestReadCSVManyProblems: past 20 problems the rest are counted.
func TestReadCSVManyProblems(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("id,lower,upper,size\n")
	for i := range 25 {
		fmt.Fprintf(&sb, "%d,1,0,8\n", i)
	}
	_, err := ReadCSV(strings.NewReader(sb.String()))
	assert.Falsef(t, err == nil || !strings.Contains(err.Error(), "5 more problems not listed"), "error %v does not count the rest", err)
}

// TestReadCSVDuplicatesLarge: past radixMin rows (the radix sort by id),
// every repeated id is reported on its line with the line of its first
// row, and negative ids sort before positive ones.
func TestReadCSVDuplicatesLarge(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("id,lower,upper,size\n")
	n := radixMin + 500
	for i := range n {
		id := int64(n - i) // descending, so that row order is not id order
		switch i {
		case 300:
			id = int64(n - 10) // the id of row 10 (line 12)
		case 301, 4000:
			id = -7
		}
		fmt.Fprintf(&sb, "%d,0,1,8\n", id)
	}
	bufs, err := ReadCSV(strings.NewReader(sb.String()))
	require.ErrorIsf(t, err, ErrCSV, "%v", err)
	assert.Nilf(t, bufs, "buffers returned with an error")
	for _, w := range []string{fmt.Sprintf(`line 302: duplicate id "%d" (first on line 12)`, n-10), `line 4002: duplicate id "-7" (first on line 303)`} {
		assert.Containsf(t, err.Error(), w, "error lacks %q", w)
	}
	assert.Equalf(t, 2, strings.Count(err.Error(), "duplicate id"), "error: %v", err)
}

// TestReadCSVFileSized: from a file (sized records: one allocation,
// estimated from the first rows) ReadCSV reads what it reads from a plain
// reader, both when the estimate holds and when later rows are much
// shorter than the first ones (more rows than estimated: chunks again).
func TestReadCSVFileSized(t *testing.T) {
	for _, name := range []string{"uniform", "shorter later"} {
		var sb strings.Builder
		sb.WriteString("id,lower,upper,size\n")
		n := 3*csvChunk + 100
		for i := range n {
			if name == "shorter later" && i < csvChunk {
				fmt.Fprintf(&sb, "%020d,%d,%d,%d\n", i, 1000000+i, 1000003+i, 4096+i)
				continue
			}
			fmt.Fprintf(&sb, "%d,%d,%d,%d\n", i, i%7, i%7+1, 64)
		}
		path := filepath.Join(t.TempDir(), "in.csv")
		require.NoError(t, os.WriteFile(path, []byte(sb.String()), 0o644))
		f, err := os.Open(path)
		require.NoError(t, err)
		got, err := ReadCSV(f)
		f.Close()
		require.NoErrorf(t, err, "%s: %v", name, err)
		want, err := ReadCSV(strings.NewReader(sb.String()))
		require.NoErrorf(t, err, "%s: %v", name, err)
		require.Lenf(t, got, n, "%s: rows", name)
		require.Truef(t, slices.Equal(want, got), "%s: the file's buffers differ from the reader's", name)
	}
}
