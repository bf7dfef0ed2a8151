package cpuref

import (
	"fmt"
	"syscall"
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
// benchmark's settings (h = 0.01 s, tol 0, no warm start), with the
// products with N a step's solve took (engine.SolveStats.Products: 100
// iterations, the step-size halvings and the start's two).
func BenchmarkStep(b *testing.B) {
	for _, n := range []int{1000, 8000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			sim, ok := settledSims[n]
			if !ok {
				sim = settledSim(b, n, 200, false)
				settledSims[n] = sim
			}
			b.ReportAllocs()
			var nc, products int
			cpu0 := cpuSeconds(b)
			for b.Loop() {
				st, err := sim.Step()
				if err != nil {
					b.Fatal(err)
				}
				nc = st.Contacts
				products += st.Solve.Products
			}
			b.ReportMetric(float64(nc), "contacts")
			b.ReportMetric(float64(products)/float64(b.N), "products/op")
			b.ReportMetric((cpuSeconds(b)-cpu0)*1e3/float64(b.N), "cpu-ms/op")
		})
	}
}

// cpuSeconds returns the user and system CPU time of the process so far:
// on a machine shared with other jobs, CPU time per step varies less than
// wall time (it still includes the GC's and the idle workers' spinning).
func cpuSeconds(b *testing.B) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkLatticeStep measures a step without the integration (collide,
// build, APGD at 100 iterations from zero) on latticeBackend's piles of
// n = 1000, 8000 and 64 000 spheres (about 3 contacts per body), repeated
// from the same state: the series for the scaling of time per step with
// the number of contacts.
func BenchmarkLatticeStep(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			be, _ := latticeBackend(b, n)
			solver := &engine.APGD{}
			opt := engine.SolveOptions{MaxIter: 100, Gd: 1e-6}
			var gamma engine.Vec
			cpu0 := cpuSeconds(b)
			for b.Loop() {
				nc, err := be.Collide()
				if err != nil {
					b.Fatal(err)
				}
				p, err := be.Build(0.01)
				if err != nil {
					b.Fatal(err)
				}
				gamma = engine.ReuseVec(p, gamma, 3*nc)
				p.Fill(gamma, 0)
				if _, err := solver.Solve(p, gamma, opt); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(be.con.Len()), "contacts")
			b.ReportMetric((cpuSeconds(b)-cpu0)*1e3/float64(b.N), "cpu-ms/op")
		})
	}
}
