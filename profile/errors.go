package profile

import "errors"

// Sentinel errors. Wrapped errors carry the offending value; test with
// errors.Is.
var (
	// ErrClock reports a clock snapshot pair that cannot calibrate a rate
	// (device ticks or host nanoseconds that do not advance).
	ErrClock = errors.New("profile: bad clock snapshot")
	// ErrWrite reports a failure to write a dump or export.
	ErrWrite = errors.New("profile: write failed")
)
