package cpuref

import (
	"fmt"
	"testing"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/scene"
)

// settledSim returns a Sim on the CPU path of the built-in settle scene
// with n spheres (bench/settle.md), run for steps steps of 0.01 s with APGD
// at a fixed 100 iterations (the benchmark's settings), with warm start as
// given: after 200 steps (2 s) the pile is at rest.
func settledSim(tb testing.TB, n, steps int, warm bool) *engine.Sim {
	tb.Helper()
	sc, err := scene.LoadBuiltin("settle", []string{fmt.Sprintf("n=%d", n)})
	if err != nil {
		tb.Fatal(err)
	}
	set := sc.Settings
	set.Solver, set.Tol, set.MaxIter, set.WarmStart = "apgd", 0, 100, warm
	sim, err := engine.NewSim(&sc.Model, set, New(0))
	if err != nil {
		tb.Fatal(err)
	}
	for range steps {
		if _, err := sim.Step(); err != nil {
			tb.Fatal(err)
		}
	}
	return sim
}

// settledSims caches the settled piles across the -count repetitions of
// BenchmarkStep (settling n = 8000 takes about a minute).
var settledSims = map[int]*engine.Sim{}

// BenchmarkStep measures whole steps (collide, build, APGD at 100
// iterations, integrate) of the settle scene after 2 s, at the settle.md
// benchmark's settings (h = 0.01 s, tol 0, no warm start).
func BenchmarkStep(b *testing.B) {
	for _, n := range []int{1000, 8000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			sim, ok := settledSims[n]
			if !ok {
				sim = settledSim(b, n, 200, false)
				settledSims[n] = sim
			}
			b.ReportAllocs()
			var nc int
			for b.Loop() {
				st, err := sim.Step()
				if err != nil {
					b.Fatal(err)
				}
				nc = st.Contacts
			}
			b.ReportMetric(float64(nc), "contacts")
		})
	}
}
