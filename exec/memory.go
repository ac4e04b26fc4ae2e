package exec

import (
	"fmt"
	"math"

	"github.com/memplan/memplan/ir"
)

// Memory bounds
//
// A run allocates its program's buffers and the bytes of its inputs. A
// caller with a memory cap (planreport -run -max-bytes) asks for both sums
// before allocating anything, so a graph whose input has 2^40 elements is
// an error naming that input rather than a fatal out-of-memory.

// BufferBytes returns the sum of the program's buffer sizes, saturating at
// math.MaxInt64.
func (p *Program) BufferBytes() int64 {
	total := int64(0)
	for _, b := range p.Buffers {
		total = addSat(total, max(b.Bytes, 0))
	}
	return total
}

// InputBytes returns the bytes a run must be given (every value of
// NeedsData), saturating at math.MaxInt64, and the largest of those values
// (-1 when there is none).
func InputBytes(g *ir.Graph) (total int64, largest ir.ValueID, err error) {
	largest = -1
	big := int64(-1)
	for _, id := range NeedsData(g) {
		v := g.Values[id]
		n, err := v.Bytes()
		if err != nil {
			return 0, -1, fmt.Errorf("exec: value %d %q: %w", id, v.Name, err)
		}
		total = addSat(total, n)
		if n > big {
			big, largest = n, id
		}
	}
	return total, largest, nil
}

// addSat adds two non-negative sizes without wrapping.
func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
