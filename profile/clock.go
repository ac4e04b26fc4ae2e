package profile

// Device clocks.
//
// A GPU stamps its work in ticks of its own counter; the host measures in
// nanoseconds of its own clock. A driver can sample both at (nearly) the
// same moment, for example Metal's sampleTimestamps, giving a snapshot pair
// (cpuNs, gpuTicks). One pair fixes the offset between the clocks; a second
// pair taken later fixes the rate:
//
//	ns(t) = cpu0 + (t - gpu0) * (cpu1 - cpu0) / (gpu1 - gpu0)
//
// Example: pairs (1000 ns, 50 ticks) and (3000 ns, 150 ticks) give a rate of
// 20 ns per tick, so tick 100 maps to 1000 + 50*20 = 2000 ns. With a single
// pair the rate is 1 ns per tick; with none, ticks are nanoseconds.

import (
	"fmt"
	"math"
)

// GPUClock converts device ticks to host nanoseconds. The zero value maps
// ticks to nanoseconds 1:1; Sync calibrates it. A GPUClock is a small value
// with no locking: calibrate it before sharing it.
type GPUClock struct {
	n          int   // pairs taken, capped at 2
	cpu0, gpu0 int64 // first pair
	cpu1, gpu1 int64 // latest pair
	nsPerTick  float64
}

// Sync records a (host ns, device ticks) snapshot pair taken at the same
// moment. The first pair sets the offset; each later pair re-estimates the
// rate from the first pair to it. A later pair whose ticks or nanoseconds
// do not advance past the first pair is rejected with ErrClock and leaves
// the clock unchanged.
func (c *GPUClock) Sync(cpuNs, gpuTicks int64) error {
	if c.n == 0 {
		c.n, c.cpu0, c.gpu0, c.cpu1, c.gpu1, c.nsPerTick = 1, cpuNs, gpuTicks, cpuNs, gpuTicks, 1
		return nil
	}
	if gpuTicks <= c.gpu0 || cpuNs <= c.cpu0 {
		return fmt.Errorf("profile: clock pair (cpu %d ns, gpu %d ticks) does not advance past (cpu %d ns, gpu %d ticks): %w",
			cpuNs, gpuTicks, c.cpu0, c.gpu0, ErrClock)
	}
	c.n, c.cpu1, c.gpu1 = 2, cpuNs, gpuTicks
	c.nsPerTick = diff(cpuNs, c.cpu0) / diff(gpuTicks, c.gpu0)
	return nil
}

// diff is a-b as a float64: exact while a-b fits in int64 and in 53 bits,
// and still correct in sign and magnitude when a-b overflows int64.
func diff(a, b int64) float64 {
	if d := a - b; (a >= b) == (d >= 0) {
		return float64(d)
	}
	return float64(a) - float64(b)
}

// Calibrated reports whether two pairs fixed the rate.
func (c GPUClock) Calibrated() bool { return c.n >= 2 }

// NsPerTick is the calibrated rate (1 before two pairs were taken).
func (c GPUClock) NsPerTick() float64 {
	if c.n < 2 {
		return 1
	}
	return c.nsPerTick
}

// Ns converts a device tick count to host nanoseconds, rounding to the
// nearest nanosecond and saturating at the int64 range.
func (c GPUClock) Ns(ticks int64) int64 {
	switch c.n {
	case 0:
		return ticks
	case 1:
		if d := ticks - c.gpu0; (ticks >= c.gpu0) == (d >= 0) {
			return addSat(c.cpu0, d)
		}
		return addSatF(c.cpu0, diff(ticks, c.gpu0))
	}
	// The offset from the first pair is computed in float64 (exact for
	// whole-number rates and offsets below 2^53 ns, about 104 days); the
	// base stays an integer so epoch-sized host times keep every digit.
	return addSatF(c.cpu0, math.Round(diff(ticks, c.gpu0)*c.nsPerTick))
}

// addSat is base+d, saturating at the int64 range.
func addSat(base, d int64) int64 {
	r := base + d
	switch {
	case d > 0 && r < base:
		return math.MaxInt64
	case d < 0 && r > base:
		return math.MinInt64
	}
	return r
}

// addSatF is base+off for a whole-number off, saturating at the int64 range.
func addSatF(base int64, off float64) int64 {
	switch {
	case off >= math.MaxInt64:
		return math.MaxInt64
	case off <= math.MinInt64:
		return math.MinInt64
	}
	return addSat(base, int64(off))
}

// DurationNs converts a tick interval to nanoseconds at the calibrated
// rate (no offset), saturating at the int64 range.
func (c GPUClock) DurationNs(ticks int64) int64 {
	return addSatF(0, math.Round(float64(ticks)*c.NsPerTick()))
}
