package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// atomicFile is an output file written in full or not at all: the bytes go
// to a temporary file beside the destination (same folder, so the rename
// cannot cross file systems), and Commit renames it over the destination
// only when the whole run succeeded; Abort removes it. A failed run leaves
// an existing destination untouched. -o, -profile and -trace use it.
type atomicFile struct {
	*os.File
	path string
	done bool
}

// createAtomic opens the temporary file for path. The destination's
// folder must exist and be writable; that is checked here, before any work.
func createAtomic(path string) (*atomicFile, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &atomicFile{File: f, path: path}, nil
}

// Commit closes the temporary file and renames it to the destination,
// keeping the mode of a file it replaces (0644 for a new one).
func (a *atomicFile) Commit() error {
	if a.done {
		return nil
	}
	a.done = true
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(a.path); err == nil {
		mode = st.Mode().Perm()
	}
	err := errors.Join(a.File.Chmod(mode), a.File.Close())
	if err == nil {
		err = os.Rename(a.File.Name(), a.path)
	}
	if err != nil {
		os.Remove(a.File.Name())
		return fmt.Errorf("%s: %w", a.path, err)
	}
	return nil
}

// Abort closes and removes the temporary file (after Commit it does nothing).
func (a *atomicFile) Abort() {
	if a.done {
		return
	}
	a.done = true
	a.File.Close()
	os.Remove(a.File.Name())
}
