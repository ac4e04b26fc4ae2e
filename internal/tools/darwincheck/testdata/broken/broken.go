//go:build darwin && cgo

// Package broken is exec/metal's encoding code with two deliberate
// mistakes that only a darwin type check can catch on Linux: a method name
// darwinkit does not have, and an argument of the wrong type.
package broken

import (
	"github.com/progrium/darwinkit/macos/metal"
	"github.com/progrium/darwinkit/objc"
)

// Encode sets a buffer and a barrier.
func Encode(enc metal.ComputeCommandEncoderObject, buf metal.BufferObject) {
	objc.Call[objc.Void](enc, objc.Sel("setBuffer:offset:atIndex:"), buf, uint(64), uint(0))
	enc.MemoryBarrierWithScopes(metal.BarrierScopeBuffers)
	enc.DispatchThreadgroupsThreadsPerThreadgroup(metal.Size{Width: 4, Height: 1, Depth: 1}, 64)
}
