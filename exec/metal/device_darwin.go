//go:build darwin && cgo

package metal

// MTLCreateSystemDefaultDevice has no darwinkit binding; these few lines
// of cgo return the device, already retained (the Create rule), for
// objc.ObjectFrom to wrap.

/*
#cgo CFLAGS: -x objective-c
#cgo LDFLAGS: -framework Metal -framework CoreGraphics -framework Foundation
#import <Metal/Metal.h>

static void* memplan_default_device(void) {
	return (void*)MTLCreateSystemDefaultDevice();
}
*/
import "C"

import "unsafe"

func defaultDevicePtr() unsafe.Pointer {
	return unsafe.Pointer(C.memplan_default_device())
}
