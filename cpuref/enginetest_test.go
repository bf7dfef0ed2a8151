package cpuref_test

import (
	"testing"

	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/engine/enginetest"
)

// TestEngineConformance runs the backend conformance suite on cpuref with
// three workers (the results do not depend on the count): its fused APGD
// against engine.APGD, its kernels against the dense reference.
func TestEngineConformance(t *testing.T) {
	enginetest.Run(t, enginetest.Impl{
		Name:  "cpu",
		New:   func(*testing.T) engine.Backend { return cpuref.New(3) },
		Fused: []string{"apgd", "apgd-ar"},
	})
}
