//go:build darwin && cgo

// Package badsel type-checks but sends a selector that exists nowhere:
// darwincheck must warn about it.
package badsel

import (
	"github.com/progrium/darwinkit/macos/metal"
	"github.com/progrium/darwinkit/objc"
)

// Encode sets a buffer with a misspelt selector.
func Encode(enc metal.ComputeCommandEncoderObject, buf metal.BufferObject) {
	objc.Call[objc.Void](enc, objc.Sel("setBuffer:offset:atIndexx:"), buf, uint(64), uint(0))
}
