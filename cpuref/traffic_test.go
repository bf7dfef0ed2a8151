package cpuref

import (
	"math"
	"testing"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/scene"
)

// TestTrafficModelLayout checks the CPU traffic model against the arrays
// an APGD step of a settling pile builds: the Jacobian's bytes per
// contact and the solver vectors the iteration streams (three float64 per
// contact each), so that a change of layout shows here until the model
// follows it; and the model's sum at 1/3 body per contact; for both
// layouts of the Jacobian.
func TestTrafficModelLayout(t *testing.T) {
	for _, compact := range []bool{false, true} {
		from := math.MaxInt
		if compact {
			from = 0
		}
		withCompactFrom(from, func() { trafficModelLayout(t, compact) })
	}
}

func trafficModelLayout(t *testing.T, compact bool) {
	sc, err := scene.LoadBuiltin("settle", []string{"n=200"})
	if err != nil {
		t.Fatal(err)
	}
	b := New(1)
	sim, err := engine.NewSim(&sc.Model, sc.Settings, b)
	if err != nil {
		t.Fatal(err)
	}
	stepUntilContacts(t, sim, b)
	model := TrafficFor(&sc.Model, float64(b.con.Len()))
	if b.compact != compact || model.Compact != compact {
		t.Fatalf("compact layout %v (TrafficFor %v), want %v", b.compact, model.Compact, compact)
	}
	if model.Materials || len(b.mu) != 1 || len(b.coh) != 1 {
		t.Fatalf("settle's one material: μ of %d values and cohesion of %d, model %+v", len(b.mu), len(b.coh), model)
	}
	nc := float64(b.con.Len())
	per := func(n int) float64 { return 8 * float64(n) / nc }
	jacBytes := jacobianPerContact
	if compact {
		jacBytes = compactPerContact
	}
	if got := per(len(b.jac)); got != float64(jacBytes) {
		t.Errorf("compact %v: the Jacobian holds %g bytes per contact, the model counts %d", compact, got, jacBytes)
	}
	w := &b.apgd
	for _, v := range [][]float64{w.x, w.xNew, w.y, w.best, w.ny, w.nx, w.nxNew} {
		if got := per(len(v)); got != 24 {
			t.Errorf("a solver vector holds %g bytes per contact, the model counts 24", got)
		}
	}
	// The terms: 120 + 16 + 72 (trial) + 8 + 24 + 96 + 93/3 (body
	// impulses: each contact's A, B, γ' and Jacobian once; per body its
	// list's bounds and first entry, flags, masses, dv) + 8 + 96 + 96 +
	// 24 (velocities) + 120 + 16 (then the dot products and the residual
	// vector, which read Nγ' where the velocities left it, in cache);
	// the 8-value layout reads 64 bytes of Jacobian in each of the two
	// passes instead of 96, and a model of one material no μ and
	// cohesion (16 bytes in the trial and in the dot products).
	want := 208 + 128 + 93.0/3 + 224 + 136
	if compact {
		want -= 2 * 32
	}
	// 1e-12 relative: the model sums its terms in another order.
	if got := (APGDTraffic{Compact: compact, Materials: true}).BytesPerContactIteration(1.0 / 3); math.Abs(got-want) > 1e-12*want {
		t.Errorf("compact %v: bytes per contact-iteration %g, want %g", compact, got, want)
	}
	want -= 2 * 16
	if got := model.BytesPerContactIteration(1.0 / 3); math.Abs(got-want) > 1e-12*want {
		t.Errorf("compact %v, one material: bytes per contact-iteration %g, want %g", compact, got, want)
	}
}
