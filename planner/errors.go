package planner

import "errors"

// Sentinel errors. Every error the package returns wraps one of them, so
// callers can test the class with errors.Is.
var (
	// ErrInvalidBuffer: a buffer with End <= Start, a negative size or
	// alignment, or a fixed offset that is negative or misaligned.
	ErrInvalidBuffer = errors.New("invalid buffer")
	// ErrOverlap: two buffers live at the same step share bytes.
	ErrOverlap = errors.New("buffers overlap in time and memory")
	// ErrMisaligned: an offset is not a multiple of the buffer's alignment.
	ErrMisaligned = errors.New("misaligned offset")
	// ErrFixedMoved: a Fixed buffer is not at its pre-placed offset.
	ErrFixedMoved = errors.New("fixed buffer moved")
	// ErrNegativeOffset: an offset below zero.
	ErrNegativeOffset = errors.New("negative offset")
	// ErrOutsideArena: a buffer or slot reaches past the arena.
	ErrOutsideArena = errors.New("outside the arena")
	// ErrViewOutsideRoot: a value's bytes are not inside its root's buffer.
	ErrViewOutsideRoot = errors.New("view outside its root")
	// ErrPinnedShared: a pinned value shares its bytes with another value.
	ErrPinnedShared = errors.New("pinned value shared")
	// ErrLiveness: a buffer is not live at a step that uses it, or a slot
	// disagrees with the graph.
	ErrLiveness = errors.New("liveness violated")
	// ErrSlot: a value's slot disagrees with the place the graph and its
	// root's buffer give it (a view shifted inside its root, a value moved
	// to another buffer).
	ErrSlot = errors.New("slot disagrees with the graph")
	// ErrLength: offsets and buffers differ in length.
	ErrLength = errors.New("length mismatch")
	// ErrCSV: a malformed DSA CSV file.
	ErrCSV = errors.New("malformed DSA CSV")
	// ErrInputLimit: an input passes a limit (rows, line length, a value
	// or a total too large to plan without overflow); always with ErrCSV.
	ErrInputLimit = errors.New("input limit exceeded")
	// ErrUnknownStrategy: no placer is registered under the name.
	ErrUnknownStrategy = errors.New("unknown strategy")
	// ErrGraph: the graph or its schedule cannot be planned.
	ErrGraph = errors.New("graph cannot be planned")
	// ErrFixedConflict: two Fixed buffers overlap, so no placement exists.
	ErrFixedConflict = errors.New("fixed buffers conflict")
	// ErrGroups: a grouping of the schedule is malformed or puts a
	// dispatch in the group of one it depends on.
	ErrGroups = errors.New("invalid grouping")
	// ErrObjective: Options.Objective names no objective.
	ErrObjective = errors.New("unknown objective")
)
