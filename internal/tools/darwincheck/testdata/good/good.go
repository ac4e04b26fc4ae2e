//go:build darwin && cgo

// Package good uses darwinkit's metal bindings correctly; darwincheck must
// report nothing for it.
package good

import (
	"github.com/progrium/darwinkit/macos/metal"
	"github.com/progrium/darwinkit/objc"
)

// Encode sets a buffer and a barrier.
func Encode(enc metal.ComputeCommandEncoderObject, buf metal.BufferObject) {
	objc.Call[objc.Void](enc, objc.Sel("setBuffer:offset:atIndex:"), buf, uint(64), uint(0))
	enc.MemoryBarrierWithScope(metal.BarrierScopeBuffers)
	enc.DispatchThreadgroupsThreadsPerThreadgroup(metal.Size{Width: 4, Height: 1, Depth: 1}, metal.Size{Width: 64, Height: 1, Depth: 1})
}
