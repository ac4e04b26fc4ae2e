package planner

import "context"

// Buffer is one block of memory to place in the arena: live during the
// half-open step range [Start, End), Size bytes long, at an offset that is a
// multiple of Align. Two buffers whose lifespans intersect must not overlap
// in [Offset, Offset+Size).
type Buffer struct {
	ID    int64  // the caller's identifier (DSA id, value id); reports print it
	Name  string // optional label (a non-numeric DSA id, a value name); reports print it
	Start int64  // first step the buffer is live
	End   int64  // first step after the last one it is live (End > Start)
	Size  int64  // bytes
	Align int64  // required offset alignment in bytes; 0 or 1 means any
	// Fixed buffers are pre-placed at Offset; placers never move them.
	Fixed  bool
	Offset int64
}

// Placer assigns an offset to every buffer. The result is index-aligned with
// bufs. A Placer never mutates bufs, honours Fixed offsets and alignment, and
// returns the best valid placement it has when ctx is cancelled.
type Placer interface {
	Name() string
	Place(ctx context.Context, bufs []Buffer) ([]int64, error)
}
