package memranges

import "errors"

// Sentinel errors. Every error the package returns wraps one of them, so
// callers can test the class with errors.Is.
var (
	// ErrRange marks a malformed byte range: a negative buffer, offset or
	// length, or an end that overflows int64.
	ErrRange = errors.New("invalid byte range")
	// ErrPlan marks a plan that does not fit the graph it claims to plan.
	ErrPlan = errors.New("plan does not match graph")
	// ErrOrder marks a schedule that is not a permutation of the dispatches,
	// or one that reverses a conflicting pair.
	ErrOrder = errors.New("invalid dispatch order")
	// ErrBarrier marks a barrier list that is malformed or leaves a
	// conflicting pair in one concurrent group.
	ErrBarrier = errors.New("missing or invalid barrier")
	// ErrEdge marks a dependency edge list that is malformed or leaves a
	// conflicting pair unordered.
	ErrEdge = errors.New("missing or invalid dependency edge")
	// ErrOptions marks an invalid option value.
	ErrOptions = errors.New("invalid options")
)
