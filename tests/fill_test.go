package tests

import (
	"math"
	"testing"

	"github.com/gpusim/gpusim/engine"
)

// TestFill is the filling test of section 3.2 of the anti-relaxation
// paper: 1000 spheres (r = 1 m, 1 kg, μ = 0.25) fall into a container for
// 5 s at h = 0.01 s; the normal force on the container converges to the
// total weight (Fig. 8a).
func TestFill(t *testing.T) {
	if testing.Short() {
		t.Skip("the fill scene takes about a minute and a half")
	}
	forEachBackend(t, func(t *testing.T, newBackend func() engine.Backend) {
		sc := loadScene(t, "fill")
		sim := newSim(t, &sc.Model, sc.Settings, newBackend())
		weight := 0.0
		for _, b := range sc.Model.Bodies {
			if !b.Fixed {
				weight += b.Mass * sc.Model.Gravity.Len()
			}
		}
		steps := int(math.Round(sc.Duration / sc.Settings.Dt))
		var last engine.StepStats
		tail, tailN := 0.0, 0
		for k := 0; k < steps; k++ {
			last = step(t, sim)
			if k >= steps-50 { // the last 0.5 s
				tail -= last.FixedForce[2]
				tailN++
			}
		}
		fz := -last.FixedForce[2]
		mean := tail / float64(tailN)
		t.Logf("t = %.2f s: container force %.1f N (mean of the last 0.5 s %.1f N), weight %.1f N, %d contacts",
			last.Time, fz, mean, weight, last.Contacts)
		// The bound: 2% of the weight at the end. Gravity is along
		// −z: the spheres push the container down with their weight.
		if math.Abs(fz-weight) > 0.02*weight {
			t.Errorf("container force %.1f N at the end, want %.1f N ± 2%%", fz, weight)
		}
		if math.Abs(mean-weight) > 0.02*weight {
			t.Errorf("mean container force %.1f N over the last 0.5 s, want %.1f N ± 2%%", mean, weight)
		}
		// Horizontal force: the walls' pushes cancel by symmetry of the
		// pile, up to its random fluctuations: 2% of the weight.
		if h := math.Hypot(last.FixedForce[0], last.FixedForce[1]); h > 0.02*weight {
			t.Errorf("net horizontal container force %.1f N", h)
		}
	})
}
