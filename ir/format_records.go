package ir

// Converting the file's records into the graph: value and node records
// become Values and Nodes, and every ID a record names (a view's base, a
// node's inputs, outputs and keep-alive uses) is checked against the number
// of records before it becomes a ValueID. Each error names the record's
// index and field and the line it sits on (see decoder.errAt).

import (
	"encoding/base64"
	"fmt"
	"strconv"
)

// recField names record i of a top-level array ("values", "nodes") in
// errors; the name is only built when an error needs it (a million
// records' names cost a tenth of a large file's reading).
type recField struct {
	key string
	i   int
}

// at returns the record's name followed by sub (".dtype", "").
func (r recField) at(sub string) string {
	return r.key + "[" + strconv.Itoa(r.i) + "]" + sub
}

// refs checks the value IDs of a record's list sub (".inputs").
func (d *decoder) refs(off int64, rec recField, sub string, ids []int64, n int) ([]ValueID, error) {
	if ids == nil {
		return nil, nil
	}
	out := make([]ValueID, len(ids))
	for i, id := range ids {
		if id < 0 || id >= int64(n) {
			return nil, d.errAt(off, fmt.Sprintf("%s[%d]", rec.at(sub), i), "value id %d out of range [0, %d): %w", id, n, ErrUndefined)
		}
		out[i] = ValueID(id)
	}
	return out, nil
}

func (d *decoder) value(i int, fv *fileValue, n int) (*Value, error) {
	off := d.valueAt[i]
	field := recField{"values", i}
	if fv.ID == nil {
		return nil, d.errAt(off, field.at(".id"), "missing: %w", ErrFormat)
	}
	if *fv.ID != int64(i) {
		return nil, d.errAt(off, field.at(".id"), "id %d at position %d (ids are dense, in order): %w", *fv.ID, i, ErrFormat)
	}
	v := &Value{ID: ValueID(i), Name: fv.Name, PinReason: fv.PinReason, Producer: NoNode}
	if fv.DType == nil {
		return nil, d.errAt(off, field.at(".dtype"), "missing: %w", ErrFormat)
	}
	dt, err := ParseDType(*fv.DType)
	if err != nil {
		return nil, &FormatError{Line: d.line(off), Field: field.at(".dtype"), Err: err}
	}
	v.DType = dt
	if fv.Shape == nil {
		return nil, d.errAt(off, field.at(".shape"), "missing (a scalar has shape []): %w", ErrFormat)
	}
	v.Shape = Shape(fv.Shape)
	size, err := ByteSize(dt, v.Shape)
	if err != nil {
		return nil, &FormatError{Line: d.line(off), Field: field.at(".shape"), Err: err}
	}
	for j, name := range fv.Flags {
		f, err := ParseFlag(name)
		if err != nil {
			return nil, &FormatError{Line: d.line(off), Field: fmt.Sprintf("%s.flags[%d]", field.at(""), j), Err: err}
		}
		if v.Flags&f != 0 {
			return nil, d.errAt(off, fmt.Sprintf("%s.flags[%d]", field.at(""), j), "flag %q repeated: %w", name, ErrFormat)
		}
		v.Flags |= f
	}
	if fv.View != nil {
		if fv.View.Base == nil {
			return nil, d.errAt(off, field.at(".view.base"), "missing: %w", ErrFormat)
		}
		base := *fv.View.Base
		if base < 0 || base >= int64(n) {
			return nil, d.errAt(off, field.at(".view.base"), "value id %d out of range [0, %d): %w", base, n, ErrUndefined)
		}
		v.View = &View{Base: ValueID(base), OffsetBytes: fv.View.Offset, StridesBytes: []int64(fv.View.Strides)}
	}
	if fv.Data != nil {
		// Bound the allocation by the value's size before decoding.
		if int64(base64.StdEncoding.DecodedLen(len(*fv.Data))) > size+2 {
			return nil, d.errAt(off, field.at(".data"), "%d base64 characters for a %d-byte value: %w", len(*fv.Data), size, ErrFormat)
		}
		b, err := base64.StdEncoding.DecodeString(*fv.Data)
		if err != nil {
			return nil, d.errAt(off, field.at(".data"), "%v: %w", err, ErrFormat)
		}
		if int64(len(b)) != size {
			return nil, d.errAt(off, field.at(".data"), "%d bytes of data for a %d-byte value: %w", len(b), size, ErrFormat)
		}
		v.Data = b
	}
	return v, nil
}

func (d *decoder) node(i int, fn *fileNode, nvals int) (*Node, error) {
	off := d.nodeAt[i]
	field := recField{"nodes", i}
	if fn.ID == nil {
		return nil, d.errAt(off, field.at(".id"), "missing: %w", ErrFormat)
	}
	if *fn.ID != int64(i) {
		return nil, d.errAt(off, field.at(".id"), "id %d at position %d (ids are dense, in order): %w", *fn.ID, i, ErrFormat)
	}
	if fn.Op == "" {
		return nil, d.errAt(off, field.at(".op"), "missing: %w", ErrFormat)
	}
	n := &Node{ID: NodeID(i), Name: fn.Name, Op: fn.Op, Opaque: fn.Opaque}
	var err error
	if fn.Inputs == nil {
		return nil, d.errAt(off, field.at(".inputs"), "missing (write [] for none): %w", ErrFormat)
	}
	if n.Inputs, err = d.refs(off, field, ".inputs", fn.Inputs, nvals); err != nil {
		return nil, err
	}
	if fn.Outputs == nil {
		return nil, d.errAt(off, field.at(".outputs"), "missing: %w", ErrFormat)
	}
	if n.Outputs, err = d.refs(off, field, ".outputs", fn.Outputs, nvals); err != nil {
		return nil, err
	}
	if len(fn.KeepAlive) > 0 {
		if n.KeepAlive, err = d.refs(off, field, ".keep_alive", fn.KeepAlive, nvals); err != nil {
			return nil, err
		}
	}
	if len(fn.Attrs) > 0 {
		n.Attrs = make(Attrs, len(fn.Attrs))
		for k, raw := range fn.Attrs {
			a, err := decodeAttr(raw)
			if err != nil {
				return nil, &FormatError{Line: d.line(off), Field: field.at(".attrs." + k), Err: err}
			}
			n.Attrs[k] = a
		}
	}
	return n, nil
}
