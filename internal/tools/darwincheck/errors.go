package main

import "errors"

// Sentinel errors of darwincheck; wrapped with %w so callers can test them
// with errors.Is.
var (
	// ErrGoMod reports a go.mod that is missing or cannot be parsed.
	ErrGoMod = errors.New("darwincheck: bad go.mod")
	// ErrResolve reports an import path that maps to no directory in the
	// main module, a required module in the cache, or GOROOT.
	ErrResolve = errors.New("darwincheck: cannot resolve import")
	// ErrLoad reports a directory go/build cannot load under the darwin
	// build context (no buildable Go files, unreadable files).
	ErrLoad = errors.New("darwincheck: cannot load package")
	// ErrCycle reports an import cycle met while loading from source.
	ErrCycle = errors.New("darwincheck: import cycle")
)
