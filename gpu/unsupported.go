package gpu

import (
	"fmt"

	"github.com/gpusim/gpusim/engine"
)

// checkSupported refuses a model with joints, which this backend does not
// run yet (issue 17: the CPU path does), with an error wrapping
// engine.ErrUnsupported so that callers may fall back. Kinematic bodies
// run (see kinematics), and compound bodies with the collision on the host
// (hasCompound).
func checkSupported(m *engine.Model) error {
	if len(m.Joints) > 0 {
		return fmt.Errorf("gpu: the Vulkan backend does not run joints yet (%d joints; use the CPU path): %w", len(m.Joints), engine.ErrUnsupported)
	}
	return nil
}

// hasCompound reports whether m has a compound body. The device's
// collision kernels know one shape per body; with compounds the host's
// collide.Collider, which collides their parts, finds the contacts each
// step (collideHost), and the rest of the step stays on the device.
func hasCompound(m *engine.Model) bool {
	for i := range m.Bodies {
		if m.Bodies[i].Shape.Kind == engine.Compound {
			return true
		}
	}
	return false
}
