//go:build darwin && cgo

// Package brokentest is correct; its darwin test file is not, which only
// a check with Config.Tests sees.
package brokentest

import "github.com/progrium/darwinkit/macos/metal"

// Barrier encodes a buffer barrier.
func Barrier(enc metal.ComputeCommandEncoderObject) {
	enc.MemoryBarrierWithScope(metal.BarrierScopeBuffers)
}
