package metal

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/memplan/memplan/exec"
	"github.com/stretchr/testify/assert"
)

func TestDispatchSpans(t *testing.T) {
	samples := func(ts ...uint64) []byte {
		b := make([]byte, 8*len(ts))
		for i, v := range ts {
			binary.LittleEndian.PutUint64(b[8*i:], v)
		}
		return b
	}
	tests := []struct {
		name                   string
		data                   []byte
		n                      int
		cpu0, gpu0, cpu1, gpu1 uint64
		want                   []exec.Span
	}{
		{"same clock", samples(100, 110, 120, 150), 4, 0, 0, 1000, 1000,
			[]exec.Span{{StartNs: 5000, EndNs: 5010}, {StartNs: 5020, EndNs: 5050}}},
		{"gpu ticks at half the rate", samples(10, 20), 2, 0, 0, 2000, 1000,
			[]exec.Span{{StartNs: 5000, EndNs: 5020}}},
		{"unsampled dispatch left zero", samples(0, 0, 40, 50), 4, 0, 0, 1, 1,
			[]exec.Span{{}, {StartNs: 5000, EndNs: 5010}}},
		{"end before start dropped", samples(50, 40), 2, 0, 0, 1, 1,
			[]exec.Span{{}}},
		{"short data", samples(10), 2, 0, 0, 1, 1, []exec.Span{{}}},
		{"clocks not advancing: 1:1", samples(10, 20), 2, 100, 100, 100, 50,
			[]exec.Span{{StartNs: 5000, EndNs: 5010}}},
		{"fractional rate rounds", samples(0+1, 3+1), 2, 0, 0, 125, 3,
			[]exec.Span{{StartNs: 5000, EndNs: 5125}}},
		{"negative count", samples(10, 20), -1, 0, 0, 1, 1, []exec.Span{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := dispatchSpans(tc.data, tc.n, 5000, tc.cpu0, tc.gpu0, tc.cpu1, tc.gpu1)
			assert.Equalf(t, fmt.Sprint(tc.want), fmt.Sprint(got), "spans %v, want %v", got, tc.want)
		})
	}
}
