package memranges

import (
	"fmt"
	"math"

	"github.com/memplan/memplan/ir"
)

// BufferID names one addressable buffer: the arena, or one external root
// (an input, weight or constant supplied by the caller). IDs are dense and
// small; [FromPlan] numbers the arena 0 and external roots from 1.
type BufferID int32

// Access says whether a dispatch reads or writes a range.
type Access uint8

// Access kinds.
const (
	Read Access = iota
	Write
)

// String returns "read" or "write".
func (a Access) String() string {
	if a == Write {
		return "write"
	}
	return "read"
}

// Range is the half-open byte window [Off, Off+Len) of buffer Buf.
//
// A zero-length range addresses no byte and never conflicts with anything,
// in either [Mode]; this is the one place the ggml-compatible mode departs
// from llama.cpp, whose test would flag an empty range that sits inside a
// recorded one.
type Range struct {
	Buf BufferID
	Off int64
	Len int64
}

// End returns Off+Len, the first byte after the range.
func (r Range) End() int64 { return r.Off + r.Len }

// Valid reports whether the range has a buffer in [0, MaxBufferID), a
// non-negative offset and length, and an end that does not overflow.
func (r Range) Valid() bool {
	return r.Buf >= 0 && r.Buf < MaxBufferID && r.Off >= 0 && r.Len >= 0 && r.Off <= math.MaxInt64-r.Len
}

// Overlaps reports whether r and o share at least one byte: same buffer and
// r.Off < o.End() && o.Off < r.End(). The test is symmetric, and ranges that
// merely touch ([0,64) and [64,128)) do not overlap.
func (r Range) Overlaps(o Range) bool {
	return r.Buf == o.Buf && r.Len > 0 && o.Len > 0 && r.Off < o.End() && o.Off < r.End()
}

// String prints the range as buf1[64,128).
func (r Range) String() string { return fmt.Sprintf("buf%d[%d,%d)", r.Buf, r.Off, r.End()) }

// Use is one access of a dispatch: a range, whether it is read or written,
// and the graph value whose window it is (-1 for synthetic streams), which
// reports print.
type Use struct {
	Range
	Access Access
	Value  ir.ValueID
}

// Hazard classifies a conflict between an earlier and a later access.
type Hazard uint8

// Hazard kinds. NoHazard means the two accesses may run concurrently.
const (
	NoHazard Hazard = iota
	RAW             // read after write: the later dispatch reads what the earlier one writes
	WAR             // write after read: the later dispatch overwrites what the earlier one reads
	WAW             // write after write: both write the same bytes
)

var hazardNames = [...]string{"none", "RAW", "WAR", "WAW"}

// String returns "RAW", "WAR", "WAW" or "none".
func (h Hazard) String() string {
	if int(h) < len(hazardNames) {
		return hazardNames[h]
	}
	return fmt.Sprintf("hazard(%d)", uint8(h))
}

// HazardOf returns the hazard kind of an earlier access followed by a later
// one, ignoring the ranges: NoHazard for read-read.
func HazardOf(earlier, later Access) Hazard {
	switch {
	case earlier == Write && later == Read:
		return RAW
	case earlier == Read && later == Write:
		return WAR
	case earlier == Write && later == Write:
		return WAW
	}
	return NoHazard
}

// Mode selects the overlap test.
type Mode uint8

// Modes.
const (
	// Exact uses the symmetric half-open test of [Range.Overlaps].
	Exact Mode = iota
	// GGML reproduces llama.cpp's ggml-metal-common.cpp test
	// new.p0 < old.p1 && new.p1 >= old.p0: asymmetric, and off by one, so a
	// new range that ends exactly where a recorded one starts is a (false)
	// conflict. Combine it with [BuildOptions].WholeRoot to reproduce ggml's
	// widening of every view to its whole root.
	GGML
)

// String returns "exact" or "ggml".
func (m Mode) String() string {
	if m == GGML {
		return "ggml"
	}
	return "exact"
}

// overlaps applies the mode's test to a recorded range old and a new one.
func (m Mode) overlaps(old, new Range) bool {
	if old.Buf != new.Buf || old.Len == 0 || new.Len == 0 {
		return false
	}
	if m == GGML {
		return new.Off < old.End() && new.End() >= old.Off
	}
	return new.Off < old.End() && old.Off < new.End()
}

// Conflict reports the hazard between an earlier use and a later one under
// mode m: NoHazard unless both touch a common byte (by the mode's test) of
// the same buffer and at least one writes. Invalid ranges conflict with
// everything that writes or is written, conservatively.
func Conflict(m Mode, earlier, later Use) Hazard {
	h := HazardOf(earlier.Access, later.Access)
	if h == NoHazard {
		return NoHazard
	}
	if !earlier.Valid() || !later.Valid() {
		return h
	}
	if !m.overlaps(earlier.Range, later.Range) {
		return NoHazard
	}
	return h
}
