package metal

import (
	"fmt"

	"github.com/memplan/memplan/exec"
)

// checkRange validates a Memory access of n bytes at off in buffer buf of
// the given sizes.
func checkRange(sizes []int64, buf int, off, n int64) error {
	if buf < 0 || buf >= len(sizes) {
		return fmt.Errorf("%w: buffer %d of %d", ErrRange, buf, len(sizes))
	}
	if off < 0 || n < 0 || off > sizes[buf] || n > sizes[buf]-off {
		return fmt.Errorf("%w: buffer %d: [%d, %d) outside [0, %d)", ErrRange, buf, off, off+n, sizes[buf])
	}
	return nil
}

// specSizes lists the byte sizes of specs, rejecting negative ones.
func specSizes(specs []exec.BufferSpec) ([]int64, error) {
	sizes := make([]int64, len(specs))
	for i, s := range specs {
		if s.Bytes < 0 {
			return nil, fmt.Errorf("%w: buffer %d has %d bytes", ErrRange, i, s.Bytes)
		}
		sizes[i] = s.Bytes
	}
	return sizes, nil
}
