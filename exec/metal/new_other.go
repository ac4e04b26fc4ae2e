//go:build !darwin || !cgo

package metal

// New reports ErrNoDevice: Metal exists only on darwin with cgo. The
// platform-neutral planning and encoding in this package still build and
// are tested everywhere.
func New(opts Options) (*Backend, error) {
	return nil, ErrNoDevice
}
