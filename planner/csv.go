package planner

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ReadCSV reads a DSA instance in the public CSV format: a header naming the
// columns id, lower, upper and size (any order, optional alignment and
// offset), then one buffer per row with the half-open lifespan
// [lower, upper). A row with an offset is Fixed at that offset (an empty
// offset cell means free). Numeric ids become Buffer.ID; other ids (such as
// "b1") get the row's index as ID and keep their text in Buffer.Name.
//
// Every problem names its line: a missing column, a cell that is not an
// integer, a negative size, alignment or offset, upper <= lower, a duplicate
// id. Up to 20 problems are reported together.
func ReadCSV(r io.Reader) ([]Buffer, error) {
	cr := csv.NewReader(bufio.NewReader(r))
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("planner: csv line 1: empty file, want header id,lower,upper,size: %w", ErrCSV)
	}
	if err != nil {
		return nil, fmt.Errorf("planner: csv: %v: %w", err, ErrCSV)
	}
	col := map[string]int{}
	for i, h := range head {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		if _, dup := col[h]; dup {
			return nil, fmt.Errorf("planner: csv line 1: column %q appears twice: %w", h, ErrCSV)
		}
		col[h] = i
	}
	var missing []string
	for _, need := range []string{"id", "lower", "upper", "size"} {
		if _, ok := col[need]; !ok {
			missing = append(missing, need)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("planner: csv line 1: missing column(s) %s in header %q: %w", strings.Join(missing, ", "), strings.Join(head, ","), ErrCSV)
	}
	alignCol, hasAlign := col["alignment"]
	offCol, hasOff := col["offset"]
	var (
		bufs []Buffer
		errs []error
		seen = map[string]int{}
	)
	bad := func(line int, format string, args ...any) {
		if len(errs) < 20 {
			errs = append(errs, fmt.Errorf("planner: csv line %d: %s: %w", line, fmt.Sprintf(format, args...), ErrCSV))
		}
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if !errors.As(err, &pe) {
				bad(0, "%v", err)
				break
			}
			bad(pe.Line, "%v", pe.Err)
			if errors.Is(pe.Err, csv.ErrQuote) || errors.Is(pe.Err, csv.ErrBareQuote) {
				break // the rest of the file is inside a quoted field
			}
			continue
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue // blank line
		}
		cell := func(name string, c int) (int64, bool) {
			if c >= len(rec) {
				bad(line, "no %s cell (%d cells, header has %d)", name, len(rec), len(head))
				return 0, false
			}
			s := strings.TrimSpace(rec[c])
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				bad(line, "%s %q is not an integer", name, s)
				return 0, false
			}
			return v, true
		}
		if col["id"] >= len(rec) {
			bad(line, "no id cell")
			continue
		}
		id := strings.TrimSpace(rec[col["id"]])
		lower, ok1 := cell("lower", col["lower"])
		upper, ok2 := cell("upper", col["upper"])
		size, ok3 := cell("size", col["size"])
		b := Buffer{Start: lower, End: upper, Size: size}
		ok := ok1 && ok2 && ok3
		if ok3 && size < 0 {
			bad(line, "negative size %d", size)
			ok = false
		}
		if ok1 && ok2 && upper <= lower {
			bad(line, "upper %d <= lower %d (lifespans are half-open [lower, upper))", upper, lower)
			ok = false
		}
		if hasAlign && alignCol < len(rec) && strings.TrimSpace(rec[alignCol]) != "" {
			a, okA := cell("alignment", alignCol)
			if okA && a < 0 {
				bad(line, "negative alignment %d", a)
				okA = false
			}
			ok = ok && okA
			b.Align = a
		}
		if hasOff && offCol < len(rec) && strings.TrimSpace(rec[offCol]) != "" {
			o, okO := cell("offset", offCol)
			if okO && o < 0 {
				bad(line, "negative offset %d", o)
				okO = false
			}
			ok = ok && okO
			b.Fixed, b.Offset = true, o
		}
		if id == "" {
			bad(line, "empty id")
			ok = false
		} else if prev, dup := seen[id]; dup {
			bad(line, "duplicate id %q (first on line %d)", id, prev)
			ok = false
		} else {
			seen[id] = line
		}
		if n, err := strconv.ParseInt(id, 10, 64); err == nil {
			b.ID = n
		} else {
			b.ID, b.Name = int64(len(bufs)), id
		}
		if ok {
			bufs = append(bufs, b)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return bufs, nil
}

// WriteCSV writes bufs in the DSA format with an offset column:
// id,lower,upper,size,offset, plus alignment when any buffer has one above 1.
// offsets is index-aligned with bufs; nil writes the header without the
// offset column. Buffer.Name, when set, is written as the id.
func WriteCSV(w io.Writer, bufs []Buffer, offsets []int64) error {
	if offsets != nil && len(offsets) != len(bufs) {
		return fmt.Errorf("planner: %d offsets for %d buffers: %w", len(offsets), len(bufs), ErrLength)
	}
	withAlign := false
	for i := range bufs {
		withAlign = withAlign || bufs[i].Align > 1
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("id,lower,upper,size")
	if withAlign {
		bw.WriteString(",alignment")
	}
	if offsets != nil {
		bw.WriteString(",offset")
	}
	bw.WriteByte('\n')
	var num []byte
	for i := range bufs {
		b := &bufs[i]
		if b.Name != "" {
			bw.WriteString(csvField(b.Name))
		} else {
			bw.Write(strconv.AppendInt(num[:0], b.ID, 10))
		}
		for _, v := range []int64{b.Start, b.End, b.Size} {
			bw.WriteByte(',')
			bw.Write(strconv.AppendInt(num[:0], v, 10))
		}
		if withAlign {
			bw.WriteByte(',')
			bw.Write(strconv.AppendInt(num[:0], max(b.Align, 1), 10))
		}
		if offsets != nil {
			bw.WriteByte(',')
			bw.Write(strconv.AppendInt(num[:0], offsets[i], 10))
		}
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("planner: writing csv: %w", err)
	}
	return nil
}

// csvField quotes s when the CSV format needs it.
func csvField(s string) string {
	if !strings.ContainsAny(s, ",\"\r\n") && strings.TrimSpace(s) == s {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
