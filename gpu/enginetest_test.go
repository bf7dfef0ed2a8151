//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"testing"

	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/engine/enginetest"
)

// TestEngineConformance runs the backend conformance suite on the Vulkan
// backend (on the shared test device: skipped without one unless
// GPUSIM_REQUIRE_VULKAN=1), with cpuref in the GPU's dot order as the twin
// it matches bit for bit (where Go does not fuse multiply-adds) and the
// submit count of its device solvers.
func TestEngineConformance(t *testing.T) {
	impl := enginetest.Impl{
		Name: "vulkan",
		New: func(t *testing.T) engine.Backend {
			t.Helper()
			return newTestBackend(t)
		},
		Fused: []string{"apgd", "apgd-ar", "jacobi", "spg"},
		Submits: func(t *testing.T, b engine.Backend) int {
			t.Helper()
			gb := b.(*Backend)
			if err := gb.sync(); err != nil {
				t.Fatal(err)
			}
			return gb.Submits()
		},
	}
	if goFusesMultiplyAdd {
		t.Log("no twin: bit-identity with cpuref needs Go code without fused multiply-adds")
	} else {
		impl.Twin = func(*testing.T) (engine.Backend, func(engine.Problem) engine.Problem) {
			return cpuref.New(0), func(p engine.Problem) engine.Problem { return gpuOrder{p} }
		}
	}
	enginetest.Run(t, impl)
}
