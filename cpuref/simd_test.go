package cpuref

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/scene"
)

// needSIMD skips a test of the vector loops in a build without them (a
// build without GOEXPERIMENT=simd, or a processor without AVX-512); the
// Makefile's builds have them on this project's machines.
func needSIMD(t *testing.T) {
	t.Helper()
	if !haveSIMD {
		t.Skip("no AVX-512 loops in this build (GOEXPERIMENT=simd on amd64 with AVX-512)")
	}
}

// withSIMD runs f with useSIMD set to on, and restores it.
func withSIMD(on bool, f func()) {
	old := useSIMD
	useSIMD = on
	defer func() { useSIMD = old }()
	f()
}

// sameBits reports whether a and b hold the same bits, NaN matching any
// NaN (the solvers stop on NaN; its payload is not a value).
func sameBits(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}

// sameRuns fails t unless two runs (named by runs, as in "without the
// vector loops" and "with") ended with the same bits of the body state
// and of the impulses.
func sameRuns(t *testing.T, runs [2]string, states *[2]engine.State, imps *[2][]float64) {
	t.Helper()
	cmp := func(what string, a, b []float64) {
		if len(a) != len(b) {
			t.Fatalf("%s: %d values %s, %d %s", what, len(a), runs[0], len(b), runs[1])
		}
		for i := range a {
			if !sameBits(a[i], b[i]) {
				t.Fatalf("%s[%d]: %v %s, %v %s", what, i, a[i], runs[0], b[i], runs[1])
			}
		}
	}
	cmp("pos", states[0].Pos, states[1].Pos)
	cmp("rot", states[0].Rot, states[1].Rot)
	cmp("vel", states[0].Vel, states[1].Vel)
	cmp("omega", states[0].Omega, states[1].Omega)
	cmp("impulses", imps[0], imps[1])
}

// settleRun is a run of the settle scene of 400 spheres (or of the
// built-in scene with its parameters, where scene is set) on this backend
// with APGD's and the other solvers' iterations fixed at 40 (tol 0):
// edit changes the scene before the Sim is made, prep the backend after,
// and each is called after every step (each may be nil).
type settleRun struct {
	scene             string
	params            []string
	solver, precision string
	workers, steps    int
	edit              func(*scene.Scene)
	prep, each        func(*Backend)
}

// run runs r and returns the end state and impulses.
func (r settleRun) run(t *testing.T) (engine.State, []float64) {
	t.Helper()
	name, params := "settle", []string{"n=400"}
	if r.scene != "" {
		name, params = r.scene, r.params
	}
	sc, err := scene.LoadBuiltin(name, params)
	if err != nil {
		t.Fatal(err)
	}
	if r.edit != nil {
		r.edit(sc)
	}
	set := sc.Settings
	set.Solver, set.Precision, set.Tol, set.MaxIter = r.solver, r.precision, 0, 40
	b := New(r.workers)
	sim, err := engine.NewSim(&sc.Model, set, b)
	if err != nil {
		t.Fatal(err)
	}
	if r.prep != nil {
		r.prep(b)
	}
	for range r.steps {
		if _, err := sim.Step(); err != nil {
			t.Fatal(err)
		}
		if r.each != nil {
			r.each(b)
		}
	}
	var st engine.State
	if err := b.ReadState(&st); err != nil {
		t.Fatal(err)
	}
	imps := sim.Impulses(nil)
	if len(imps) == 0 {
		t.Fatalf("no contacts after %d steps", r.steps)
	}
	return st, imps
}

// stepUntilContacts steps sim until its backend b holds contacts, then
// once more.
func stepUntilContacts(t *testing.T, sim *engine.Sim, b *Backend) {
	t.Helper()
	for b.con.Len() == 0 {
		if _, err := sim.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := sim.Step(); err != nil {
		t.Fatal(err)
	}
}

// coneInput draws an impulse and its cone with every case of the
// projection often: inside, on the boundary, outside, in the polar cone,
// zero tangent, signed zeros, μ = 0, cohesion, tiny and huge scales and
// the odd infinity or NaN.
func coneInput(r *rand.Rand) (n, u, w, mu, c float64) {
	special := []float64{0, math.Copysign(0, -1), 1, -1, 1e-300, -1e-300, 5e-324, 1e300, math.Inf(1), math.Inf(-1), math.NaN()}
	pick := func() float64 {
		switch r.IntN(12) {
		case 0:
			return special[r.IntN(len(special))]
		case 1:
			return r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
		default:
			return r.NormFloat64()
		}
	}
	n, u, w = pick(), pick(), pick()
	if r.IntN(6) > 0 {
		mu = r.Float64()
	}
	if r.IntN(3) == 0 {
		c = r.Float64()
	}
	switch r.IntN(6) {
	case 0: // on the boundary ‖t‖ = μ(n + c), as nearly as it rounds
		t := math.Hypot(u, w)
		if mu > 0 {
			n = t/mu - c
		}
	case 1: // no tangent
		u, w = 0, 0
	}
	return
}

// TestProjectConesSIMD: the AVX-512 projection gives projectCones' scalar
// bits on every case, at every offset and tail length.
func TestProjectConesSIMD(t *testing.T) {
	needSIMD(t)
	r := rand.New(rand.NewPCG(7, 8))
	const nc = 20000
	x, mu, coh := make([]float64, 3*nc), make([]float64, nc), make([]float64, nc)
	for k := range nc {
		x[3*k], x[3*k+1], x[3*k+2], mu[k], coh[k] = coneInput(r)
	}
	for _, span := range [][2]int{{0, nc}, {3, nc - 5}, {1, 8}, {5, 12}, {0, 7}, {9, 9}} {
		lo, hi := span[0], span[1]
		want, got := make([]float64, 3*nc), make([]float64, 3*nc)
		withSIMD(false, func() { projectCones(want, x, mu, coh, lo, hi) })
		withSIMD(true, func() { projectCones(got, x, mu, coh, lo, hi) })
		for i := range want {
			if !sameBits(want[i], got[i]) {
				k := i / 3
				t.Fatalf("[%d, %d) contact %d (x %v %v %v, μ %v, c %v) row %d: vector %v (%#x), scalar %v (%#x)",
					lo, hi, k, x[3*k], x[3*k+1], x[3*k+2], mu[k], coh[k], i%3, got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
			}
		}
		// In place, as the solvers call it.
		in := append([]float64(nil), x...)
		withSIMD(true, func() { projectCones(in, in, mu, coh, lo, hi) })
		for i := 3 * lo; i < 3*hi; i++ {
			if !sameBits(want[i], in[i]) {
				t.Fatalf("in place [%d, %d) element %d: %v, scalar %v", lo, hi, i, in[i], want[i])
			}
		}
	}
}

// TestStepSIMDBits: whole steps of the settle scene (n = 1000, falling
// onto the floor and piling up: contacts in every state of the cone) give
// the same bits of the body state and the impulses with and without the
// vector loops, for apgd, apgd-ar and mixed precision, on one worker and
// on three (chunks cut differently).
func TestStepSIMDBits(t *testing.T) {
	needSIMD(t)
	if testing.Short() {
		t.Skip("short: 6 runs of 60 steps")
	}
	type run struct {
		solver, precision string
		workers           int
	}
	for _, c := range []run{{"apgd", "", 1}, {"apgd-ar", "", 3}, {"apgd", "mixed", 1}} {
		t.Run(fmt.Sprintf("%s-%s-%d", c.solver, c.precision, c.workers), func(t *testing.T) {
			var states [2]engine.State
			var imps [2][]float64
			for i, on := range []bool{false, true} {
				withSIMD(on, func() {
					sc, err := scene.LoadBuiltin("settle", []string{"n=1000"})
					if err != nil {
						t.Fatal(err)
					}
					set := sc.Settings
					set.Solver, set.Precision, set.Tol, set.MaxIter = c.solver, c.precision, 0, 100
					sim, err := engine.NewSim(&sc.Model, set, New(c.workers))
					if err != nil {
						t.Fatal(err)
					}
					for range 60 {
						if _, err := sim.Step(); err != nil {
							t.Fatal(err)
						}
					}
					if err := sim.Backend().ReadState(&states[i]); err != nil {
						t.Fatal(err)
					}
					imps[i] = sim.Impulses(nil)
				})
			}
			if len(imps[0]) == 0 {
				t.Fatal("no contacts after 60 steps")
			}
			sameRuns(t, [2]string{"without the vector loops", "with"}, &states, &imps)
		})
	}
}

// TestLaneTreeSIMD: laneTree with its vector steps (laneTree8) adds the
// 256 lanes in the scalar tree's order, bit for bit: lanes of every
// magnitude (sums that cancel, so another order gives other bits), signed
// zeros and zero tails (a chunk's unused lanes).
func TestLaneTreeSIMD(t *testing.T) {
	needSIMD(t)
	r := rand.New(rand.NewPCG(31, 32))
	differs := 0
	for k := range 20000 {
		var s [lanes]float64
		used := lanes
		if k%3 == 0 {
			used = 1 + r.IntN(lanes)
		}
		for l := range used {
			switch r.IntN(8) {
			case 0:
				s[l] = math.Copysign(0, -1)
			case 1:
				s[l] = 0
			default:
				s[l] = r.NormFloat64() * math.Pow(2, float64(r.IntN(120)-60))
			}
		}
		a, b := s, s
		var got, want float64
		withSIMD(true, func() { got = laneTree(&a) })
		withSIMD(false, func() { want = laneTree(&b) })
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("case %d: %v with the vector steps, %v without", k, got, want)
		}
		seq := 0.0
		for _, v := range s {
			seq += v
		}
		if math.Float64bits(seq) != math.Float64bits(want) {
			differs++
		}
	}
	if differs == 0 {
		t.Fatal("the tree's order gave the sequential sum's bits every time: the cases cannot tell orders apart")
	}
}
