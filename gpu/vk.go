//go:build linux && cgo && (amd64 || arm64)

package gpu

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "vkshim.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"
)

// libvulkan is loaded once per process: dlopen and vulkan-go's entry
// points are process-wide by nature, so this is the package's only shared
// state.
var libvulkan struct {
	once sync.Once
	gipa unsafe.Pointer // vkGetInstanceProcAddr
	err  error
	// mu serialises vk.InitInstance, which rewrites vulkan-go's entry
	// points, and the queries that go through them.
	mu sync.Mutex
}

// loadVulkan loads libvulkan.so.1 (not libvulkan.so, which only the -dev
// package provides) and hands its vkGetInstanceProcAddr to vulkan-go.
func loadVulkan() (unsafe.Pointer, error) {
	libvulkan.once.Do(func() {
		name := C.CString("libvulkan.so.1")
		defer C.free(unsafe.Pointer(name))
		var msg *C.char
		p := C.gs_load(name, &msg)
		if p == nil {
			libvulkan.err = fmt.Errorf("gpu: %w: %s (the Vulkan loader; Debian and Ubuntu: apt-get install libvulkan1)", ErrNoDevice, C.GoString(msg))
			return
		}
		vk.SetGetInstanceProcAddr(p)
		if err := vk.Init(); err != nil {
			libvulkan.err = fmt.Errorf("gpu: %w: vulkan-go: %v", ErrNoDevice, err)
			return
		}
		libvulkan.gipa = p
	})
	return libvulkan.gipa, libvulkan.err
}

// initInstance points vulkan-go's entry points at instance; the caller
// holds libvulkan.mu while it uses them.
func initInstance(instance C.gs_obj) error {
	if err := vk.InitInstance(vk.Instance(unsafe.Pointer(instance))); err != nil {
		return fmt.Errorf("gpu: vulkan-go: %v", err)
	}
	return nil
}

// Result is a VkResult that is not VK_SUCCESS.
type Result int32

var resultNames = map[Result]string{
	1:           "VK_NOT_READY",
	2:           "VK_TIMEOUT",
	3:           "VK_EVENT_SET",
	4:           "VK_EVENT_RESET",
	5:           "VK_INCOMPLETE",
	-1:          "VK_ERROR_OUT_OF_HOST_MEMORY",
	-2:          "VK_ERROR_OUT_OF_DEVICE_MEMORY",
	-3:          "VK_ERROR_INITIALIZATION_FAILED",
	-4:          "VK_ERROR_DEVICE_LOST",
	-5:          "VK_ERROR_MEMORY_MAP_FAILED",
	-6:          "VK_ERROR_LAYER_NOT_PRESENT",
	-7:          "VK_ERROR_EXTENSION_NOT_PRESENT",
	-8:          "VK_ERROR_FEATURE_NOT_PRESENT",
	-9:          "VK_ERROR_INCOMPATIBLE_DRIVER",
	-10:         "VK_ERROR_TOO_MANY_OBJECTS",
	-11:         "VK_ERROR_FORMAT_NOT_SUPPORTED",
	-12:         "VK_ERROR_FRAGMENTED_POOL",
	-13:         "VK_ERROR_UNKNOWN",
	-1000069000: "VK_ERROR_OUT_OF_POOL_MEMORY",
	-100000:     "a Vulkan entry point is missing from the loader or driver",
}

func (r Result) Error() string {
	if s, ok := resultNames[r]; ok {
		return s
	}
	return fmt.Sprintf("VkResult %d", int32(r))
}

// check turns a VkResult into an error for op, wrapping ErrDeviceLost
// where the device is gone and ErrOutOfMemory where memory ran out.
func check(op string, r C.int32_t) error { return checkResult(op, Result(r)) }

// checkResult maps a VkResult to nil, ErrDeviceLost, ErrOutOfMemory or a
// Result error, each wrapped with op.
func checkResult(op string, r Result) error {
	switch r {
	case 0: // VK_SUCCESS
		return nil
	case -4: // VK_ERROR_DEVICE_LOST
		return fmt.Errorf("gpu: %s: %w (%v)", op, ErrDeviceLost, r)
	case -1, -2: // VK_ERROR_OUT_OF_HOST_MEMORY, VK_ERROR_OUT_OF_DEVICE_MEMORY
		return fmt.Errorf("gpu: %s: %w (%v)", op, ErrOutOfMemory, r)
	}
	return fmt.Errorf("gpu: %s: %w", op, r)
}

// vkVersion formats a Vulkan API version.
func vkVersion(v uint32) string {
	return fmt.Sprintf("%d.%d.%d", v>>22&0x7f, v>>12&0x3ff, v&0xfff)
}
