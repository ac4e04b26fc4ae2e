package planner

import (
	"bufio"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// readCSVPath is ReadCSV with the fast path on or off.
func readCSVPath(src string, fast bool) ([]Buffer, string) {
	c := &csvReader{br: bufio.NewReaderSize(strings.NewReader(src), 4096), lim: DefaultCSVLimits, noFast: !fast}
	bufs, err := c.read()
	if err != nil {
		return bufs, err.Error()
	}
	return bufs, ""
}

// TestCSVFastPathAgrees: the fast path reads every file exactly as the
// general path does, buffers and errors alike, on random files of tricky
// cells (signs, spaces, quotes, empty cells, numbers at and past each
// column's limit, 18 and 19 digits) under headers in any column order.
func TestCSVFastPathAgrees(t *testing.T) {
	cells := []string{"0", "5", "12", "-3", "+4", " 7", "7 ", `"8"`, "", "x", "-", "--1", "007", "-0",
		"123456789012345678", "1234567890123456789", "-123456789012345678", "99999999999999999999",
		"281474976710656", "281474976710657", "4611686018427387904", "4611686018427387905", "-4611686018427387904"}
	rapid.Check(t, func(t *rapid.T) {
		cols := rapid.Permutation([]string{"id", "lower", "upper", "size"}).Draw(t, "columns")
		if rapid.Bool().Draw(t, "alignment") {
			cols = append(cols, "alignment")
		}
		if rapid.Bool().Draw(t, "offset") {
			cols = append(cols, "offset")
		}
		var sb strings.Builder
		sb.WriteString(strings.Join(cols, ",") + "\n")
		for r := range rapid.IntRange(1, 12).Draw(t, "rows") {
			// A valid row, then maybe one tricky cell and a cell more or less.
			row := make([]string, len(cols))
			lo := rapid.IntRange(0, 5).Draw(t, "lower")
			for k, c := range cols {
				row[k] = map[string]string{"id": strconv.Itoa(r), "lower": strconv.Itoa(lo),
					"upper": strconv.Itoa(lo + rapid.IntRange(1, 3).Draw(t, "life")), "size": "64", "alignment": "8", "offset": "128"}[c]
			}
			if rapid.IntRange(0, 9).Draw(t, "tricky") < 7 {
				row[rapid.IntRange(0, len(row)-1).Draw(t, "at")] = rapid.SampledFrom(cells).Draw(t, "cell")
			}
			switch rapid.IntRange(0, 9).Draw(t, "count") {
			case 0:
				row = row[:len(row)-1]
			case 1:
				row = append(row, "1")
			}
			sb.WriteString(strings.Join(row, ",") + rapid.SampledFrom([]string{"\n", "\r\n"}).Draw(t, "end"))
		}
		src := sb.String()
		slow, slowErr := readCSVPath(src, false)
		fast, fastErr := readCSVPath(src, true)
		require.Equalf(t, slowErr, fastErr, "errors differ on %q", src)
		require.Equalf(t, slow, fast, "buffers differ on %q", src)
	})
}
