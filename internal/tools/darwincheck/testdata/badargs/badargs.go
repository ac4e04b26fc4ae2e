//go:build darwin && cgo

// Package badargs type-checks but sends selectors with the wrong number of
// arguments: darwincheck must report both calls.
package badargs

import (
	"github.com/progrium/darwinkit/macos/metal"
	"github.com/progrium/darwinkit/objc"
)

var selSetBuffer = objc.Sel("setBuffer:offset:atIndex:")

// Encode binds a buffer twice, wrongly both times, and once correctly.
func Encode(enc metal.ComputeCommandEncoderObject, buf metal.BufferObject) {
	objc.Call[objc.Void](enc, selSetBuffer, buf, uint(64))
	objc.Call[objc.Void](enc, objc.Sel("memoryBarrierWithScope:"))
	objc.Call[objc.Void](enc, selSetBuffer, buf, uint(64), uint(0))
}
