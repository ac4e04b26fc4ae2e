package planner

import "github.com/memplan/memplan/ir"

// The CSV reader's fast path.
//
// Nearly every row of a large instance is a handful of plain decimal
// integers separated by commas: "17,4,9,4096". For such a row the reader
// skips the general path (cells cut and trimmed, each converted through
// strconv): fastRow reads the digits in one pass, and takes the row only
// when every cell is an integer of at most 18 digits (so it cannot
// overflow) within its column's range and upper is above lower. Anything
// else (spaces, quotes, a sign other than a leading minus, an empty cell,
// a cell out of range, a missing or extra cell) goes to the general path,
// which reads it or reports it exactly as before.

// csvFastMax is the most columns a header may have for the fast path.
const csvFastMax = 8

// setFast enables the fast path for a header of the given column names
// (lower-cased; lower and upper at loCol and upCol): each column's range,
// or none for a column it does not know (such a file always takes the
// general path).
func (c *csvReader) setFast(names []string, loCol, upCol int) {
	c.fastCols = 0
	if c.noFast || len(names) > csvFastMax {
		return
	}
	for k, name := range names {
		switch name {
		case "id":
			c.fastMin[k], c.fastMax[k] = -1e18, 1e18
		case "lower", "upper":
			c.fastMin[k], c.fastMax[k] = -csvMaxTime, csvMaxTime
		case "size", "alignment", "offset":
			c.fastMin[k], c.fastMax[k] = 0, ir.MaxBytes
		default:
			return
		}
	}
	c.fastCols = len(names)
	c.loCol, c.upCol = loCol, upCol
}

// fastRow parses raw (a line without its end) into c.fv when the fast
// path takes it, and reports whether it did (c.fast).
func (c *csvReader) fastRow(raw []byte) bool {
	c.fast = false
	i := 0
	for k := range c.fastCols {
		neg := false
		if i < len(raw) && raw[i] == '-' {
			neg = true
			i++
		}
		var v int64
		d := 0
		for ; i < len(raw) && raw[i] >= '0' && raw[i] <= '9'; i++ {
			v = v*10 + int64(raw[i]-'0')
			d++
		}
		if d == 0 || d > 18 {
			return false
		}
		if neg {
			v = -v
		}
		if v < c.fastMin[k] || v > c.fastMax[k] {
			return false
		}
		c.fv[k] = v
		if k < c.fastCols-1 {
			if i >= len(raw) || raw[i] != ',' {
				return false
			}
			i++
		}
	}
	if i != len(raw) || c.fv[c.upCol] <= c.fv[c.loCol] {
		return false
	}
	c.fast = true
	return true
}
