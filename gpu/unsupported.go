package gpu

import (
	"fmt"

	"github.com/gpusim/gpusim/engine"
)

// checkSupported refuses a model with joints or compound bodies, which
// this backend does not run yet (issue 17: the CPU path does), with an
// error wrapping engine.ErrUnsupported so that callers may fall back.
// Kinematic bodies run (see kinematics).
func checkSupported(m *engine.Model) error {
	if len(m.Joints) > 0 {
		return fmt.Errorf("gpu: the Vulkan backend does not run joints yet (%d joints; use the CPU path): %w", len(m.Joints), engine.ErrUnsupported)
	}
	for i := range m.Bodies {
		if m.Bodies[i].Shape.Kind == engine.Compound {
			return fmt.Errorf("gpu: the Vulkan backend does not run compound bodies yet (body %d is one; use the CPU path): %w", i, engine.ErrUnsupported)
		}
	}
	return nil
}
