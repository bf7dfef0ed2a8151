package gpu

import (
	"fmt"

	"github.com/gpusim/gpusim/engine"
)

// Options choose the device.
type Options struct {
	// Device selects a device by index ("0") or by a substring of its
	// name; empty picks the best (discrete, integrated, virtual, CPU).
	Device string
	// Validation turns on the Vulkan validation layers.
	Validation bool
}

// New returns the Vulkan backend, or an error wrapping
// engine.ErrUnavailable when it cannot run here.
func New(opt Options) (engine.Backend, error) {
	return nil, fmt.Errorf("gpu: the Vulkan backend is not implemented yet: %w", engine.ErrUnavailable)
}
