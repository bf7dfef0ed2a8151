package gpu

import (
	"fmt"

	"github.com/gpusim/gpusim/engine"
)

// Options choose the device.
type Options struct {
	// Device selects a device by index ("0") or by a case-insensitive
	// substring of its name; empty picks the best with float64 arithmetic
	// (discrete, integrated, virtual, CPU; the lowest index among equals).
	Device string
	// Validation turns on the Vulkan validation layer
	// (VK_LAYER_KHRONOS_validation, with synchronization validation where
	// offered); its warnings and errors are collected (see
	// Device.ValidationMessages) and errors fail the submission they
	// occur in.
	Validation bool

	// forceStaging makes buffers device-local with staging copies even on
	// unified memory, so that tests run the discrete-GPU path on lavapipe.
	forceStaging bool
}

// New returns the Vulkan backend, or an error wrapping
// engine.ErrUnavailable when it cannot run here. It opens the device first,
// so that a missing driver or device is reported as ErrNoDevice; the
// backend's time step itself is not written yet.
func New(opt Options) (engine.Backend, error) {
	info, err := probe(opt)
	if err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("gpu: %s: the Vulkan backend's time step is not implemented yet: %w", info.Name, engine.ErrUnavailable)
}
