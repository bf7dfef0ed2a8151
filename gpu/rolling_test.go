package gpu

import (
	"errors"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/engine"
)

// TestRefuseRolling: a model with rolling or spinning friction is refused
// with engine.ErrUnsupported and a message that says what to do; one
// without is not. (Load calls refuseRolling before it touches the device.)
func TestRefuseRolling(t *testing.T) {
	m := &engine.Model{Materials: []engine.Material{{Name: "a", Friction: 0.3}, {Name: "b", Friction: 0.3}}}
	if err := refuseRolling(m); err != nil {
		t.Fatalf("no rolling friction: %v", err)
	}
	for _, mt := range []engine.Material{{RollingFriction: 0.01}, {SpinningFriction: 0.01}} {
		m.Materials[1].RollingFriction, m.Materials[1].SpinningFriction = mt.RollingFriction, mt.SpinningFriction
		err := refuseRolling(m)
		if !errors.Is(err, engine.ErrUnsupported) || !strings.Contains(err.Error(), "the vulkan backend does not take rolling friction yet; use --backend cpu") {
			t.Errorf("%+v: %v", mt, err)
		}
	}
}
