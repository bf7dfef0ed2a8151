package main

import (
	"errors"
	"io"
	"math"
	"os"
	"testing"

	"github.com/gpusim/gpusim/engine"
)

// TestMechanism runs the example on each backend (Vulkan when a device is
// there; GPUSIM_REQUIRE_VULKAN=1 makes its absence a failure) and checks
// what it prints against physics: the paddle turns at its motor's speed,
// +3 rad/s and, after SetMotor, −3 rad/s (the motor row is solved to
// 1e-8: 1e-6 rad/s); the chain hanging at rest weighs on its anchor with
// its whole weight (1e-6 relative, the same tolerance); once the plate
// stops shaking and slides at constant speed the dumbbell resting on it
// bears on it with its weight (1e-3 relative: 0.3 s after the change,
// friction has long matched the bell to the plate's speed, but the
// bell's last rocking is not quite gone).
func TestMechanism(t *testing.T) {
	for _, be := range []string{"cpu", "vulkan"} {
		t.Run(be, func(t *testing.T) {
			res, err := run(io.Discard, be, 600)
			if be == "vulkan" && errors.Is(err, engine.ErrUnavailable) && os.Getenv("GPUSIM_REQUIRE_VULKAN") != "1" {
				t.Skipf("no Vulkan: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(res.Spin[0]-3) > 1e-6 || math.Abs(res.Spin[1]+3) > 1e-6 {
				t.Errorf("paddle spins %v rad/s, want +3 then -3", res.Spin)
			}
			for half, a := range res.Anchor {
				if math.Abs(a-res.ChainWeight) > 1e-6*res.ChainWeight {
					t.Errorf("half %d: the anchor holds %.9f N, the chain weighs %.9f N", half, a, res.ChainWeight)
				}
			}
			if math.Abs(res.Load[1]-res.BellWeight) > 1e-3*res.BellWeight {
				t.Errorf("the plate bears %.6f N at the end, the dumbbell weighs %.6f N", res.Load[1], res.BellWeight)
			}
		})
	}
}
