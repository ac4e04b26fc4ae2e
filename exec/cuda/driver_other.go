//go:build !linux

package cuda

import "fmt"

// openDriver: the CUDA backend loads libcuda.so.1 on Linux only.
func openDriver(dirs []string, ordinal int) (driver, error) {
	return nil, fmt.Errorf("%w: this platform has no libcuda.so.1", ErrNoDriver)
}
