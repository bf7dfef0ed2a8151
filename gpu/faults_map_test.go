//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"errors"
	"strings"
	"testing"
)

// TestCheckResult checks how Vulkan results become errors: a lost device
// and exhausted memory map to the sentinels callers act on (ErrDeviceLost
// ends the run with its outputs; ErrOutOfMemory at load makes --backend
// auto fall back to the CPU path), each naming the operation and the
// VkResult; other failures name theirs.
func TestCheckResult(t *testing.T) {
	if err := checkResult("submit", 0); err != nil {
		t.Errorf("VK_SUCCESS: %v", err)
	}
	for _, c := range []struct {
		r        Result
		sentinel error
		name     string
	}{
		{-4, ErrDeviceLost, "VK_ERROR_DEVICE_LOST"},
		{-1, ErrOutOfMemory, "VK_ERROR_OUT_OF_HOST_MEMORY"},
		{-2, ErrOutOfMemory, "VK_ERROR_OUT_OF_DEVICE_MEMORY"},
		{-3, nil, "VK_ERROR_INITIALIZATION_FAILED"},
	} {
		err := checkResult("vkQueueSubmit", c.r)
		if err == nil || !strings.Contains(err.Error(), "vkQueueSubmit") || !strings.Contains(err.Error(), c.name) {
			t.Errorf("%d: %v, want an error naming vkQueueSubmit and %s", c.r, err, c.name)
		}
		for _, s := range []error{ErrDeviceLost, ErrOutOfMemory} {
			if errors.Is(err, s) != (s == c.sentinel) {
				t.Errorf("%s: errors.Is(%v, %v) = %v", c.name, err, s, errors.Is(err, s))
			}
		}
	}
}
