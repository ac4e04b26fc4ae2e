//go:build race

package metal

// raceEnabled drops the model zoo from the emulated and recorded runs
// under the race detector: those runs are sequential and would take
// minutes there without testing any concurrency.
const raceEnabled = true
