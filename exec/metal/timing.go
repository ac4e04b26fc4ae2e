package metal

import (
	"encoding/binary"

	"github.com/memplan/memplan/exec"
	"github.com/memplan/memplan/profile"
)

// dispatchSpans turns resolved timestamp samples (two per dispatch, GPU
// ticks) into host nanosecond spans: ticks scale by the CPU/GPU clock ratio
// measured around the run (profile.GPUClock; 1:1 when the pairs do not
// advance) and are placed so that the first sample falls at the command
// buffer's start.
func dispatchSpans(data []byte, n int, startNs int64, cpu0, gpu0, cpu1, gpu1 uint64) []exec.Span {
	var clk profile.GPUClock
	_ = clk.Sync(int64(cpu0), int64(gpu0)) // the first pair is always taken
	_ = clk.Sync(int64(cpu1), int64(gpu1)) // rejected (rate stays 1) unless both clocks advanced
	n = max(n, 0)
	ts := make([]uint64, 0, n)
	for i := 0; i+8 <= len(data) && len(ts) < n; i += 8 {
		ts = append(ts, binary.LittleEndian.Uint64(data[i:]))
	}
	var first uint64
	for _, t := range ts {
		if t != 0 && (first == 0 || t < first) {
			first = t
		}
	}
	spans := make([]exec.Span, (n+1)/2)
	for i := range spans {
		if 2*i+1 >= len(ts) || ts[2*i] == 0 || ts[2*i+1] < ts[2*i] {
			continue
		}
		spans[i] = exec.Span{
			StartNs: startNs + clk.DurationNs(int64(ts[2*i]-first)),
			EndNs:   startNs + clk.DurationNs(int64(ts[2*i+1]-first)),
		}
	}
	return spans
}
