package planner

// Reading and writing DSA instances (CSV: id,lower,upper,size[,alignment]
// [,offset]), streaming.
//
// The reader takes one line at a time from a bufio.Reader and splits it in
// place: a row costs no allocation unless its id is a name (a numeric id is
// parsed straight into Buffer.ID), so a million rows cost their Buffer
// records and little else; rows of plain integers skip the split
// (csvfast.go). When the input is a file (it has Stat), the records are
// allocated once, sized from its length and the bytes of the first 16,384
// rows, and never copied. Every limit is checked while reading, on the
// line that passes it, before anything is planned:
//
//   - rows: at most CSVLimits.MaxRows (16,777,216 by default);
//   - a line: at most CSVLimits.MaxLineBytes (64 KiB by default);
//   - size and alignment: at most ir.MaxBytes (2^48) each;
//   - lower and upper: within [-2^62, 2^62], so lifespans do not overflow;
//   - a fixed offset: at most ir.MaxBytes;
//   - all rows together: the sum of size + alignment - 1 plus the highest
//     fixed end at most 2^61, so no placement (every buffer stacked, each
//     padded to its alignment, above every fixed one) can pass int64.
//
// Duplicate ids are found after the last row: numeric ids by sorting the
// row numbers by id, names through a map (only named rows enter it).
//
// The writer streams the same format back with an offset column.

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/memplan/memplan/ir"
)

// CSVLimits bounds what ReadCSVLimits accepts; a zero field takes its
// default from DefaultCSVLimits.
type CSVLimits struct {
	MaxRows      int // buffers (rows after the header)
	MaxLineBytes int // bytes of one line, without its newline
}

// DefaultCSVLimits are the limits of ReadCSV.
var DefaultCSVLimits = CSVLimits{MaxRows: 1 << 24, MaxLineBytes: 64 << 10}

const (
	csvMaxTime  = int64(1) << 62 // bound on |lower| and |upper|
	csvMaxTotal = int64(1) << 61 // bound on the padded total of every row
	csvMaxErrs  = 20             // problems reported together
	csvChunk    = 1 << 14        // rows per chunk while reading
)

// ReadCSV reads a DSA instance in the public CSV format under
// DefaultCSVLimits: a header naming the columns id, lower, upper and size
// (any order, optional alignment and offset), then one buffer per row with
// the half-open lifespan [lower, upper). A row with an offset is Fixed at
// that offset (an empty offset cell means free). Numeric ids become
// Buffer.ID; other ids (such as "b1") get the row's index as ID and keep
// their text in Buffer.Name. Cells may be quoted ("b,1"); a quoted cell
// ends on its line.
//
// Every problem names its line: a missing column, a cell that is not an
// integer, a negative size, alignment or offset, upper <= lower, a
// duplicate id, and every limit of csv.go's header passed. Up to 20
// problems are reported together. Limits wrap ErrInputLimit as well as
// ErrCSV.
func ReadCSV(r io.Reader) ([]Buffer, error) {
	return ReadCSVLimits(r, DefaultCSVLimits)
}

// ReadCSVLimits is ReadCSV under other limits.
func ReadCSVLimits(r io.Reader, lim CSVLimits) ([]Buffer, error) {
	if lim.MaxRows <= 0 {
		lim.MaxRows = DefaultCSVLimits.MaxRows
	}
	if lim.MaxLineBytes <= 0 {
		lim.MaxLineBytes = DefaultCSVLimits.MaxLineBytes
	}
	// The reader's buffer holds the longest line allowed and its newline.
	cr := &csvReader{br: bufio.NewReaderSize(r, max(lim.MaxLineBytes+2, 4096)), lim: lim}
	// A file's size lets the reader size its records once (csvReader.keep).
	if f, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			cr.size = fi.Size()
		}
	}
	return cr.read()
}

// csvReader is one reading pass.
type csvReader struct {
	br    *bufio.Reader
	lim   CSVLimits
	size  int64    // the input's size in bytes when known, else 0
	read1 int64    // bytes read so far
	line  int      // current line number, from 1
	cells [][]byte // the current row's cells (into the bufio buffer or quoted)
	quote []byte   // unquoted cell text, for rows with quotes
	errs  []error
	more  int // problems beyond csvMaxErrs

	// The fast path (csvfast.go): with fastCols > 0, a line of exactly
	// that many plain integer cells, each within its column's range, is
	// parsed into fv (fast is then true) and not split.
	fastCols int
	fastMin  [csvFastMax]int64
	fastMax  [csvFastMax]int64
	fv       [csvFastMax]int64
	fast     bool
	noFast   bool // tests: always split
	loCol    int  // the lower and upper columns, for the fast path
	upCol    int
}

func (c *csvReader) bad(line int, limit bool, format string, args ...any) {
	if len(c.errs) >= csvMaxErrs {
		c.more++
		return
	}
	msg := fmt.Sprintf(format, args...)
	if limit {
		c.errs = append(c.errs, fmt.Errorf("planner: csv line %d: %s: %w: %w", line, msg, ErrInputLimit, ErrCSV))
	} else {
		c.errs = append(c.errs, fmt.Errorf("planner: csv line %d: %s: %w", line, msg, ErrCSV))
	}
}

// next reads the next line into c.cells; it returns false at the end of
// the input or on a read error (recorded). A line past MaxLineBytes is
// reported and skipped.
func (c *csvReader) next() (bool, error) {
	for {
		raw, err := c.br.ReadSlice('\n')
		c.read1 += int64(len(raw))
		if len(raw) == 0 && err != nil {
			if err == io.EOF {
				return false, nil
			}
			return false, err
		}
		c.line++
		if errors.Is(err, bufio.ErrBufferFull) || len(bytes.TrimRight(raw, "\r\n")) > c.lim.MaxLineBytes {
			c.bad(c.line, true, "line longer than %d bytes", c.lim.MaxLineBytes)
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = c.br.ReadSlice('\n')
			}
			if err != nil && err != io.EOF {
				return false, err
			}
			continue
		}
		raw = bytes.TrimRight(raw, "\r\n")
		if c.line == 1 {
			raw = bytes.TrimPrefix(raw, []byte("\ufeff"))
		}
		if len(bytes.TrimSpace(raw)) == 0 {
			if err == io.EOF {
				return false, nil
			}
			continue // blank line
		}
		if c.fastCols > 0 && c.fastRow(raw) {
			c.cells = c.cells[:0]
			return true, nil
		}
		c.fast = false
		if !c.split(raw) {
			continue
		}
		return true, nil
	}
}

// split cuts raw into trimmed cells; quoted cells are unquoted into
// c.quote. It reports false (and records the problem) on bad quoting.
func (c *csvReader) split(raw []byte) bool {
	c.cells = c.cells[:0]
	if bytes.IndexByte(raw, '"') < 0 {
		for {
			k := bytes.IndexByte(raw, ',')
			if k < 0 {
				c.cells = append(c.cells, bytes.TrimSpace(raw))
				return true
			}
			c.cells = append(c.cells, bytes.TrimSpace(raw[:k]))
			raw = raw[k+1:]
		}
	}
	c.quote = c.quote[:0]
	type span struct{ lo, hi int }
	var spans []span
	i := 0
	for {
		for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t') {
			i++
		}
		lo := len(c.quote)
		if i < len(raw) && raw[i] == '"' {
			i++
			closed := false
			for i < len(raw) {
				if raw[i] == '"' {
					if i+1 < len(raw) && raw[i+1] == '"' {
						c.quote = append(c.quote, '"')
						i += 2
						continue
					}
					i++
					closed = true
					break
				}
				c.quote = append(c.quote, raw[i])
				i++
			}
			if !closed {
				c.bad(c.line, false, "quoted cell does not end on its line")
				return false
			}
			for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t') {
				i++
			}
			if i < len(raw) && raw[i] != ',' {
				c.bad(c.line, false, "text after a quoted cell")
				return false
			}
		} else {
			k := bytes.IndexByte(raw[i:], ',')
			if k < 0 {
				k = len(raw) - i
			}
			cell := raw[i : i+k]
			if bytes.IndexByte(cell, '"') >= 0 {
				c.bad(c.line, false, "bare quote in an unquoted cell")
				return false
			}
			c.quote = append(c.quote, bytes.TrimSpace(cell)...)
			i += k
		}
		spans = append(spans, span{lo, len(c.quote)})
		if i >= len(raw) {
			break
		}
		i++ // the comma
	}
	for _, s := range spans {
		c.cells = append(c.cells, c.quote[s.lo:s.hi])
	}
	return true
}

// cellInt parses cell k of the current row as an integer within
// [lo, hi]; name is the column's name for messages.
func (c *csvReader) cellInt(k int, name string, lo, hi int64) (int64, bool) {
	if k >= len(c.cells) {
		c.bad(c.line, false, "no %s cell (%d cells)", name, len(c.cells))
		return 0, false
	}
	v, err := strconv.ParseInt(string(c.cells[k]), 10, 64) // no allocation: the conversion does not escape
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			c.bad(c.line, true, "%s %q is outside int64", name, c.cells[k])
		} else {
			c.bad(c.line, false, "%s %q is not an integer", name, c.cells[k])
		}
		return 0, false
	}
	switch {
	case v < 0 && lo == 0:
		c.bad(c.line, false, "negative %s %d", name, v)
		return 0, false
	case v < lo || v > hi:
		c.bad(c.line, true, "%s %d is outside [%d, %d]", name, v, lo, hi)
		return 0, false
	}
	return v, true
}

func (c *csvReader) read() ([]Buffer, error) {
	ok, err := c.next()
	if err != nil {
		return nil, fmt.Errorf("planner: csv line %d: %v: %w", c.line+1, err, ErrCSV)
	}
	if !ok {
		if len(c.errs) > 0 {
			return nil, c.joined()
		}
		return nil, fmt.Errorf("planner: csv line 1: empty file, want header id,lower,upper,size: %w", ErrCSV)
	}
	headLine := c.line
	col := map[string]int{}
	var names []string
	for i, h := range c.cells {
		name := strings.ToLower(string(h))
		names = append(names, name)
		if _, dup := col[name]; dup {
			return nil, fmt.Errorf("planner: csv line %d: column %q appears twice: %w", headLine, name, ErrCSV)
		}
		col[name] = i
	}
	var missing []string
	for _, need := range []string{"id", "lower", "upper", "size"} {
		if _, ok := col[need]; !ok {
			missing = append(missing, need)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("planner: csv line %d: missing column(s) %s in header %q: %w", headLine, strings.Join(missing, ", "), strings.Join(names, ","), ErrCSV)
	}
	idCol, loCol, upCol, szCol := col["id"], col["lower"], col["upper"], col["size"]
	alignCol, hasAlign := col["alignment"]
	offCol, hasOff := col["offset"]
	c.setFast(names, loCol, upCol)
	var (
		chunks   [][]Buffer       // rows in chunks of csvChunk (or one, sized): no regrowth copies
		lines    []int32          // line of each row, for duplicate reports
		named    map[string]int32 // name -> line
		total    int64            // sizes plus padding
		fixedTop int64
		rows     int
	)
	for {
		ok, err := c.next()
		if err != nil {
			c.bad(c.line+1, false, "%v", err)
			break
		}
		if !ok {
			break
		}
		rows++
		if rows > c.lim.MaxRows {
			c.bad(c.line, true, "more than %d rows", c.lim.MaxRows)
			break
		}
		if c.fast {
			// Every cell an integer within its column's range, and upper
			// above lower: the row as the general path would read it.
			v := &c.fv
			b := Buffer{ID: v[idCol], Start: v[loCol], End: v[upCol], Size: v[szCol]}
			if hasAlign {
				b.Align = v[alignCol]
			}
			if hasOff {
				b.Fixed, b.Offset = true, v[offCol]
			}
			if !c.keep(b, &total, &fixedTop, &chunks, &lines) {
				break
			}
			continue
		}
		if idCol >= len(c.cells) || len(c.cells[idCol]) == 0 {
			if idCol >= len(c.cells) {
				c.bad(c.line, false, "no id cell")
			} else {
				c.bad(c.line, false, "empty id")
			}
			continue
		}
		lower, ok1 := c.cellInt(loCol, "lower", -csvMaxTime, csvMaxTime)
		upper, ok2 := c.cellInt(upCol, "upper", -csvMaxTime, csvMaxTime)
		size, ok3 := c.cellInt(szCol, "size", 0, ir.MaxBytes)
		b := Buffer{Start: lower, End: upper, Size: size}
		good := ok1 && ok2 && ok3
		if ok1 && ok2 && upper <= lower {
			c.bad(c.line, false, "upper %d <= lower %d (lifespans are half-open [lower, upper))", upper, lower)
			good = false
		}
		if hasAlign && alignCol < len(c.cells) && len(c.cells[alignCol]) > 0 {
			a, okA := c.cellInt(alignCol, "alignment", 0, ir.MaxBytes)
			good = good && okA
			b.Align = a
		}
		if hasOff && offCol < len(c.cells) && len(c.cells[offCol]) > 0 {
			o, okO := c.cellInt(offCol, "offset", 0, ir.MaxBytes)
			good = good && okO
			b.Fixed, b.Offset = true, o
		}
		id := c.cells[idCol]
		if n, err := strconv.ParseInt(string(id), 10, 64); err == nil {
			b.ID = n
		} else {
			b.ID, b.Name = int64(len(lines)), string(id)
			if named == nil {
				named = map[string]int32{}
			}
			if prev, dup := named[b.Name]; dup {
				c.bad(c.line, false, "duplicate id %q (first on line %d)", b.Name, prev)
				good = false
			} else {
				named[b.Name] = int32(c.line)
			}
		}
		if !good {
			continue
		}
		if !c.keep(b, &total, &fixedTop, &chunks, &lines) {
			break
		}
	}
	// From a file of known size the rows are in one chunk, the result (a
	// twentieth spare). Otherwise one exact allocation: the chunks and it
	// are the reader's peak, twice the records, never the three times of
	// a slice grown by appends.
	var bufs []Buffer
	if len(chunks) == 1 {
		bufs = chunks[0] // sized from the input's size: no copy
	} else {
		bufs = make([]Buffer, 0, len(lines))
		for k := range chunks {
			bufs = append(bufs, chunks[k]...)
			chunks[k] = nil
		}
	}
	c.duplicates(bufs, lines)
	if len(c.errs) > 0 {
		return nil, c.joined()
	}
	if len(bufs) == 0 {
		return nil, nil
	}
	return bufs, nil
}

// keep adds the good row b to the chunks, with its line, and reports
// false (with the problem recorded) when the rows so far pass the padded
// total's limit.
func (c *csvReader) keep(b Buffer, total, fixedTop *int64, chunks *[][]Buffer, lines *[]int32) bool {
	if b.Fixed {
		*fixedTop = max(*fixedTop, b.Offset+b.Size)
	}
	*total += b.Size + max(b.Align, 1) - 1
	if *total+*fixedTop > csvMaxTotal {
		c.bad(c.line, true, "the buffers so far need up to %d bytes with their alignment and fixed offsets, above 2^61", *total+*fixedTop)
		return false
	}
	ch := *chunks
	if len(ch) == 1 && len(ch[0]) == cap(ch[0]) && c.size > 0 && c.read1 > 0 {
		// The first chunk is full: when the input's size is known, one
		// chunk for every row, estimated from the bytes a row took so far
		// (plus a twentieth), replaces it, and is the result.
		est := int(min(float64(c.size)/float64(c.read1)*float64(len(ch[0]))*1.05, float64(c.lim.MaxRows))) + csvChunk
		if est > 2*csvChunk {
			all := make([]Buffer, len(ch[0]), est)
			copy(all, ch[0])
			ch[0] = all
		}
	}
	if len(ch) == 0 || len(ch[len(ch)-1]) == cap(ch[len(ch)-1]) {
		ch = append(ch, make([]Buffer, 0, csvChunk))
		*chunks = ch
	}
	ch[len(ch)-1] = append(ch[len(ch)-1], b)
	*lines = append(*lines, int32(c.line))
	return true
}

// duplicates reports every row whose numeric id an earlier row has.
func (c *csvReader) duplicates(bufs []Buffer, lines []int32) {
	idx := make([]int32, 0, len(bufs))
	for i := range bufs {
		if bufs[i].Name == "" {
			idx = append(idx, int32(i))
		}
	}
	if slices.IsSortedFunc(idx, func(a, b int32) int { return cmp.Compare(bufs[a].ID, bufs[b].ID) }) {
		// Rows in id order (the usual file): nothing to sort.
	} else if len(idx) >= radixMin {
		// By id, then row (the radix sort is stable).
		ids := make([]int64, len(idx))
		for k, i := range idx {
			ids[k] = bufs[i].ID
		}
		radixSort(ids, idx)
	} else {
		slices.SortFunc(idx, func(a, b int32) int {
			if c := cmp.Compare(bufs[a].ID, bufs[b].ID); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
	}
	type dup struct {
		line, first int32
		id          int64
	}
	var dups []dup
	first := 0 // position in idx of the first row with the current id
	for k := 1; k < len(idx); k++ {
		if bufs[idx[k]].ID != bufs[idx[first]].ID {
			first = k
			continue
		}
		dups = append(dups, dup{lines[idx[k]], lines[idx[first]], bufs[idx[k]].ID})
	}
	slices.SortFunc(dups, func(a, b dup) int { return cmp.Compare(a.line, b.line) })
	for _, d := range dups {
		c.bad(int(d.line), false, "duplicate id \"%d\" (first on line %d)", d.id, d.first)
	}
}

func (c *csvReader) joined() error {
	if c.more > 0 {
		c.errs = append(c.errs, fmt.Errorf("planner: csv: %d more problems not listed: %w", c.more, ErrCSV))
	}
	return errors.Join(c.errs...)
}

// csvField quotes s when the CSV format needs it.
func csvField(s string) string {
	if !strings.ContainsAny(s, ",\"\r\n") && strings.TrimSpace(s) == s {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
