package arenamap

import "errors"

// Sentinel errors; test with errors.Is.
var (
	// ErrMap reports a Map that cannot be drawn (a block with no lifespan,
	// a negative offset, a duplicate id); the message names the block.
	ErrMap = errors.New("arenamap: bad map")
	// ErrWrite reports a failure of the destination writer.
	ErrWrite = errors.New("arenamap: write failed")
)
