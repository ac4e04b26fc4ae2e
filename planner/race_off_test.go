//go:build !race

package planner

// raceEnabled reports whether the test binary runs under the race detector.
const raceEnabled = false
