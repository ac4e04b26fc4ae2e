package profile

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestGPUClock(t *testing.T) {
	type pair struct{ cpu, gpu int64 }
	cases := []struct {
		name    string
		pairs   []pair
		ticks   int64
		want    int64
		rate    float64
		calib   bool
		wantErr bool // the last pair is rejected
	}{
		{"no pair: 1:1", nil, 12345, 12345, 1, false, false},
		{"one pair: offset only", []pair{{1000, 50}}, 80, 1030, 1, false, false},
		{"two pairs: doc example", []pair{{1000, 50}, {3000, 150}}, 100, 2000, 20, true, false},
		{"fractional rate", []pair{{0, 0}, {125, 3}}, 3000, 125000, 125.0 / 3, true, false},
		{"before the first pair", []pair{{1000, 50}, {3000, 150}}, 0, 0, 20, true, false},
		{"epoch-sized host time keeps digits", []pair{{1_700_000_000_123_456_789, 0}, {1_700_000_000_123_457_789, 24}}, 24, 1_700_000_000_123_457_789, 1000.0 / 24, true, false},
		{"ticks not advancing rejected", []pair{{1000, 50}, {3000, 50}}, 80, 1030, 1, false, true},
		{"host time going back rejected", []pair{{1000, 50}, {900, 60}}, 80, 1030, 1, false, true},
		{"saturates", []pair{{0, 0}, {1 << 40, 1}}, 1 << 40, math.MaxInt64, 1 << 40, true, false},
		{"one pair: tick span overflows, saturates", []pair{{0, math.MinInt64}}, math.MaxInt64, math.MaxInt64, 1, false, false},
		{"one pair: host sum overflows, saturates", []pair{{math.MaxInt64 - 10, 0}}, 100, math.MaxInt64, 1, false, false},
		{"one pair: saturates below", []pair{{math.MinInt64 + 10, 100}}, 0, math.MinInt64, 1, false, false},
		{"two pairs: tick span overflows int64, rate stays positive", []pair{{0, math.MinInt64}, {1 << 62, math.MaxInt64}}, math.MaxInt64, 1 << 62, 0.25, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var clk GPUClock
			var err error
			for _, p := range c.pairs {
				err = clk.Sync(p.cpu, p.gpu)
			}
			require.Equalf(t, c.wantErr, err != nil, "Sync error %v, want error %v", err, c.wantErr)
			require.Falsef(t, err != nil && !errors.Is(err, ErrClock), "error %v is not ErrClock", err)
			eq(t, clk.Ns(c.ticks), c.want, "Ns")
			eq(t, clk.NsPerTick(), c.rate, "NsPerTick")
			eq(t, clk.Calibrated(), c.calib, "Calibrated")
		})
	}
	var clk GPUClock
	noErr(t, clk.Sync(0, 0))
	noErr(t, clk.Sync(2000, 100))
	eq(t, clk.DurationNs(7), int64(140), "DurationNs")
	eq(t, clk.DurationNs(math.MaxInt64), int64(math.MaxInt64), "DurationNs saturates")
	eq(t, clk.DurationNs(math.MinInt64), int64(math.MinInt64), "DurationNs saturates below")
}
