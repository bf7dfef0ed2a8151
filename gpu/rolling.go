package gpu

import (
	"fmt"

	"github.com/gpusim/gpusim/engine"
)

// refuseRolling refuses a model with rolling or spinning friction
// (engine.Model.HasRolling): the device kernels build, solve and
// integrate contact rows and joint rows only. The error wraps
// engine.ErrUnsupported, so that --backend auto falls back to the CPU
// backend, which takes them.
func refuseRolling(m *engine.Model) error {
	if m.HasRolling() {
		return fmt.Errorf("gpu: %w: the vulkan backend does not take rolling friction yet; use --backend cpu", engine.ErrUnsupported)
	}
	return nil
}
