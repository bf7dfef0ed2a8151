package tests

import (
	"os"
	"slices"
	"testing"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/engine/enginetest"
	"github.com/gpusim/gpusim/gpu"
)

// The analytic rolling and spinning friction checks of cpuref's
// rolling_test.go (TestRollingFrictionBallStops, TestSpinningFrictionStops)
// on the Vulkan backend, with the same models, settings and tolerances
// (they skip without a Vulkan device unless GPUSIM_REQUIRE_VULKAN=1, and
// in -short mode).
//
// A problem with rolling rows runs the engine's host-driven iterations on
// the device's LinAlg (engine.RollingRows): a submit per dot product. On a
// CPU Vulkan device (lavapipe, about 1 to 3 ms a submit on the loaded
// 16-core test machine) the rolling-ball check took 156 s (apgd), 173 s
// (apgd-ar), 44 s (gs) and 141 s (jacobi), the spinning check 36, 25, 12
// and 26 s, and spg, which runs to its 50-iteration cap in every step of
// a rolling contact (see cpuref's rollingSettings), 518 s for the spinning
// check alone. On a CPU device the rolling ball therefore runs with gs
// only, the spinning check without spg, unless GPUSIM_VULKAN_ROLLING_ALL=1;
// every solver is bit for bit cpuref's on rolling rows over several steps
// in gpu's TestRollingMatchCPU, and runs here on a GPU.

// vulkanBackend returns the Vulkan backend of backends for solver, or
// skips: in -short mode, and on a CPU device for the solvers not in cpu
// (see above).
func vulkanBackend(t *testing.T, solver string, cpu ...string) engine.Backend {
	t.Helper()
	if testing.Short() {
		t.Skip("the analytic rolling checks on the Vulkan backend take minutes (-short)")
	}
	for _, b := range backends {
		if b.name != "vulkan" {
			continue
		}
		be := b.new(t)
		if g, ok := be.(interface{ DeviceInfo() gpu.DeviceInfo }); ok && g.DeviceInfo().Type == gpu.CPUDevice && !slices.Contains(cpu, solver) && os.Getenv("GPUSIM_VULKAN_ROLLING_ALL") != "1" {
			be.Close()
			t.Skipf("%s on a CPU Vulkan device (%s): minutes of host-driven iterations; GPUSIM_VULKAN_ROLLING_ALL=1 runs it", solver, g.DeviceInfo().Name)
		}
		return be
	}
	t.Fatal("no vulkan entry in backends")
	return nil
}

// TestRollingFrictionBallStopsVulkan and TestSpinningFrictionStopsVulkan
// run enginetest's analytic checks (RollingBallStops, SpinningBallStops,
// which cpuref's tests run too) on the Vulkan backend, same models and
// tolerances.
func TestRollingFrictionBallStopsVulkan(t *testing.T) {
	for _, solver := range enginetest.RollingSolvers {
		t.Run(solver, func(t *testing.T) {
			enginetest.RollingBallStops(t, solver, vulkanBackend(t, solver, "gs"))
		})
	}
}

func TestSpinningFrictionStopsVulkan(t *testing.T) {
	for _, solver := range enginetest.RollingSolvers {
		t.Run(solver, func(t *testing.T) {
			enginetest.SpinningBallStops(t, solver, vulkanBackend(t, solver, "apgd", "apgd-ar", "gs", "jacobi"))
		})
	}
}
