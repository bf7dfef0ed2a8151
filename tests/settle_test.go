package tests

import (
	"testing"

	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/run"
)

// TestSettleBenchmark runs the settle benchmark scene of
// shared/bench/settle.md at N = 8000 for its full 2 s on the CPU path (the
// built-in's settings: h = 0.01 s, APGD at a fixed 100 iterations) and
// checks its physical sanity figures: no sphere escapes the container
// (settle.md: must be 0), no contact penetrates deeper than a tenth of a
// radius (measured 2.2e-4 m at commit ef180af; a contact dropped by the
// collision stage shows up as centimetres: a change that filtered
// speculative contacts by the bodies' free-flight motion gave 4 cm after 20
// steps and 24 escaped spheres after 200), and the mean height is that of
// a pile (measured 1.826 m at 2 s; settle.md: ≈ 1.7 m once fully settled;
// the 1.5–2.1 m band holds a pile that is still settling and rejects one
// that has sunk or been blown apart). About a minute on two cores.
func TestSettleBenchmark(t *testing.T) {
	if testing.Short() {
		t.Skip("200 steps of 8000 spheres: about a minute; skipped with -short")
	}
	sc := loadScene(t, "settle", "n=8000")
	sim := newSim(t, &sc.Model, sc.Settings, cpuref.New(0))
	var last engine.StepStats
	for range run.Steps(sc) {
		last = step(t, sim)
	}
	var s engine.State
	var c engine.Contacts
	readState(t, sim, &s)
	if err := sim.Backend().ReadContacts(&c); err != nil {
		t.Fatal(err)
	}
	f := run.FinalFigures(sc, &s, &c, last)
	if f.Escaped == nil {
		t.Fatal("no escaped count: the scene has no box container")
	}
	t.Logf("settle n=8000 at 2 s: %d contacts, max penetration %.3g m, mean height %.4g m, escaped %d", f.Contacts, f.MaxPenetration, f.MeanHeight, *f.Escaped)
	if *f.Escaped != 0 {
		t.Errorf("%d spheres escaped, want 0", *f.Escaped)
	}
	if f.MaxPenetration > 0.01 {
		t.Errorf("max penetration %.3g m, want ≤ 0.01 m (a tenth of a radius)", f.MaxPenetration)
	}
	if f.MeanHeight < 1.5 || f.MeanHeight > 2.1 {
		t.Errorf("mean height %.4g m, want 1.5–2.1 m", f.MeanHeight)
	}
}
