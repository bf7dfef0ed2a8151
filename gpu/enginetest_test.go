//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"github.com/gpusim/gpusim/internal/testfile"
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
	enginetest.Run(t, conformanceImpl("vulkan", newTestBackend))
}

// TestEngineConformanceStaging runs the suite on the discrete-GPU path
// (device-local buffers, staging copies; requireStagingDevice), as an
// NVIDIA or AMD card takes it: the same results bit for bit, and the
// same submit bounds on the submits of recorded work (workSubmits: a
// staging copy of the caller's data is a submit of its own, and a new
// buffer's zero-fill rides on the next submit).
func TestEngineConformanceStaging(t *testing.T) {
	enginetest.Run(t, conformanceImpl("vulkan-staging", func(t testing.TB) *Backend {
		t.Helper()
		return newTestBackendOn(t, requireStagingDevice(t))
	}))
}

// conformanceImpl is the suite's description of the Vulkan backend made
// by newBackend.
func conformanceImpl(name string, newBackend func(testing.TB) *Backend) enginetest.Impl {
	impl := enginetest.Impl{
		Name: name,
		New: func(t *testing.T) engine.Backend {
			t.Helper()
			return newBackend(t)
		},
		Fused: []string{"apgd", "apgd-ar", "jacobi", "gs", "spg"},
		Submits: func(t *testing.T, b engine.Backend) int {
			t.Helper()
			gb := b.(*Backend)
			if err := gb.sync(); err != nil {
				t.Fatal(err)
			}
			return workSubmits(gb)
		},
	}
	if !testfile.GoFusesMultiplyAdd { // else no twin: bit-identity with cpuref needs Go code without fused multiply-adds
		impl.Twin = func(*testing.T) (engine.Backend, func(engine.Problem) engine.Problem) {
			return cpuref.New(0), func(p engine.Problem) engine.Problem { return gpuOrder{p} }
		}
	}
	return impl
}
