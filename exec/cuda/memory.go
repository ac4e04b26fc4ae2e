package cuda

// Device memory: exactly one cuMemAlloc per program buffer (the arena,
// then one per external input, weight or constant), zeroed, and every
// binding addressed as that buffer's base + the plan's byte offset, like
// Metal's setBuffer:offset:atIndex:. A zero-byte buffer gets no allocation
// (the driver refuses zero-byte allocations) and address 0; nothing can
// address it.

import (
	"errors"
	"fmt"
	"sync"

	"github.com/memplan/memplan/exec"
)

// memory is the exec.Memory of one program on the device.
type memory struct {
	drv   driver
	specs []exec.BufferSpec
	base  []devPtr

	mu     sync.Mutex
	graphs *graphCache // the instantiated graph of this program's runs
}

// Alloc allocates and zeroes one device buffer per non-empty spec.
func (b *Backend) Alloc(specs []exec.BufferSpec) (exec.Memory, error) {
	m := &memory{drv: b.drv, specs: append([]exec.BufferSpec(nil), specs...), base: make([]devPtr, len(specs))}
	for i, s := range specs {
		if s.Bytes < 0 {
			_ = m.Release()
			return nil, fmt.Errorf("cuda: buffer %d: %d bytes: %w", i, s.Bytes, exec.ErrProgram)
		}
		if s.Bytes == 0 {
			continue
		}
		p, err := b.drv.memAlloc(s.Bytes)
		if err != nil {
			_ = m.Release()
			return nil, fmt.Errorf("cuda: buffer %d (%d bytes): %w", i, s.Bytes, err)
		}
		m.base[i] = p
		if err := b.drv.memZero(p, s.Bytes); err != nil {
			_ = m.Release()
			return nil, fmt.Errorf("cuda: buffer %d: %w", i, err)
		}
	}
	return m, nil
}

// AllocatedBytes returns how many device allocations mem holds and their
// total size: the arena plus the external buffers of its program.
func AllocatedBytes(mem exec.Memory) (allocs int, bytes int64, err error) {
	m, ok := mem.(*memory)
	if !ok {
		return 0, 0, fmt.Errorf("%w: memory %T", ErrBadHandle, mem)
	}
	for i, p := range m.base {
		if p != 0 {
			allocs++
			bytes += m.specs[i].Bytes
		}
	}
	return allocs, bytes, nil
}

// addr returns the device address of byte off of buffer buf, checking that
// [off, off+n) lies inside the buffer.
func (m *memory) addr(buf int, off, n int64) (devPtr, error) {
	if buf < 0 || buf >= len(m.specs) {
		return 0, fmt.Errorf("%w: buffer %d of %d", ErrRange, buf, len(m.specs))
	}
	if off < 0 || n < 0 || off+n > m.specs[buf].Bytes {
		return 0, fmt.Errorf("%w: buffer %d: [%d, %d) of %d bytes", ErrRange, buf, off, off+n, m.specs[buf].Bytes)
	}
	return m.base[buf] + devPtr(off), nil
}

// Write copies src into buffer buf at byte offset off.
func (m *memory) Write(buf int, off int64, src []byte) error {
	p, err := m.addr(buf, off, int64(len(src)))
	if err != nil || len(src) == 0 {
		return err
	}
	return m.drv.copyHtoD(p, src)
}

// Read copies len(dst) bytes from buffer buf at byte offset off.
func (m *memory) Read(buf int, off int64, dst []byte) error {
	p, err := m.addr(buf, off, int64(len(dst)))
	if err != nil || len(dst) == 0 {
		return err
	}
	return m.drv.copyDtoH(dst, p)
}

// Release frees the graph built for the program and every buffer.
func (m *memory) Release() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	var errs []error
	if m.graphs != nil {
		errs = append(errs, m.graphs.destroy(m.drv))
		m.graphs = nil
	}
	for i, p := range m.base {
		if p != 0 {
			errs = append(errs, m.drv.memFree(p))
			m.base[i] = 0
		}
	}
	return errors.Join(errs...)
}
