//go:build !(linux && cgo && (amd64 || arm64))

package gpu

import (
	"fmt"

	"github.com/gpusim/gpusim/engine"
)

func errUnsupported() error {
	return fmt.Errorf("gpu: %w: this build has no Vulkan support (it needs linux/amd64 or linux/arm64 and cgo)", ErrNoDevice)
}

// Devices lists the Vulkan devices; this build has none.
func Devices() ([]DeviceInfo, error) { return nil, errUnsupported() }

// Choose returns the device Open would open; this build has none.
func Choose(string) (DeviceInfo, error) { return DeviceInfo{}, errUnsupported() }

// Backend is the Vulkan backend; this build cannot make one (New always
// fails).
type Backend struct{ engine.Backend }

func newBackend(Options) (*Backend, error) { return nil, errUnsupported() }
