package brokentest

import (
	"testing"

	"github.com/progrium/darwinkit/macos/metal"
)

func TestBarrier(t *testing.T) {
	Barrier(metal.BufferObject{})
}
