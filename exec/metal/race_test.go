//go:build race

package metal

// raceEnabled trims the sequential emulated and recorded runs under the
// race detector (no zoo, no emulation, one configuration): they would take
// minutes there without testing any concurrency.
const raceEnabled = true
