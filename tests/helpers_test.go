package tests

import (
	"errors"
	"os"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/gpu"
	"github.com/gpusim/gpusim/scene"
)

// backends lists the backends the validation runs on. Without a usable
// Vulkan device the vulkan subtests skip, unless GPUSIM_REQUIRE_VULKAN=1
// (CI on lavapipe), where they fail.
var backends = []struct {
	name string
	new  func(t *testing.T) engine.Backend
}{
	{"cpu", func(t *testing.T) engine.Backend { return cpuref.New(0) }},
	{"vulkan", func(t *testing.T) engine.Backend {
		b, err := gpu.New(gpu.Options{})
		if errors.Is(err, engine.ErrUnavailable) && os.Getenv("GPUSIM_REQUIRE_VULKAN") != "1" {
			t.Skipf("no Vulkan backend (%v); set GPUSIM_REQUIRE_VULKAN=1 to make this a failure", err)
		}
		if err != nil {
			t.Fatal(err)
		}
		return b
	}},
}

func forEachBackend(t *testing.T, f func(t *testing.T, newBackend func() engine.Backend)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { f(t, func() engine.Backend { return b.new(t) }) })
	}
}

func loadScene(t *testing.T, name string, sets ...string) *scene.Scene {
	t.Helper()
	sc, err := scene.Load(name, sets)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func newSim(t *testing.T, m *engine.Model, s engine.Settings, b engine.Backend) *engine.Sim {
	t.Helper()
	sim, err := engine.NewSim(m, s, b)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return sim
}

func step(t *testing.T, sim *engine.Sim) engine.StepStats {
	t.Helper()
	st, err := sim.Step()
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func readState(t *testing.T, sim *engine.Sim, s *engine.State) {
	t.Helper()
	if err := sim.Backend().ReadState(s); err != nil {
		t.Fatal(err)
	}
}

// stepFor takes n steps and returns the last one's stats and the state
// after it.
func stepFor(t *testing.T, sim *engine.Sim, n int) (engine.StepStats, engine.State) {
	t.Helper()
	var last engine.StepStats
	for k := 0; k < n; k++ {
		last = step(t, sim)
	}
	var st engine.State
	readState(t, sim, &st)
	return last, st
}

func vec3(s []float64, i int) mgl64.Vec3 { return mgl64.Vec3{s[3*i], s[3*i+1], s[3*i+2]} }

func quat(s []float64, i int) mgl64.Quat {
	return mgl64.Quat{W: s[4*i], V: mgl64.Vec3{s[4*i+1], s[4*i+2], s[4*i+3]}}
}
