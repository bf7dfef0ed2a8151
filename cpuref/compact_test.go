package cpuref

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/scene"
)

// withCompactFrom runs f with compactFrom set to n, and restores it.
func withCompactFrom(n int, f func()) {
	old := compactFrom
	compactFrom = n
	defer func() { compactFrom = old }()
	f()
}

// TestCompactJacobianBits: whole steps of the settle scene (n = 400,
// falling onto the floor and piling up) give the same bits of the body
// state and the impulses with the Jacobian in the 12-value layout and in
// the 8-value one (b.compact), for every solver, mixed precision, rolling
// friction, one and three workers, with and without the vector loops; and
// with the layout switched while the contacts form (compactFrom between
// the first steps' counts and the pile's). Each compact run must have
// held its Jacobian as 8 values per contact, so that the comparison is
// between the layouts.
func TestCompactJacobianBits(t *testing.T) {
	if testing.Short() {
		t.Skip("short: 20 runs of up to 50 steps")
	}
	type run struct {
		solver, precision string
		workers           int
		rolling, simd     bool
		from              int // compactFrom of the compact run
		steps             int
	}
	runs := []run{
		{"apgd", "", 1, false, true, 0, 50},
		{"apgd-ar", "", 3, false, true, 0, 50},
		{"apgd", "mixed", 1, false, true, 0, 50},
		{"apgd", "", 1, false, false, 0, 50},
		{"apgd", "", 2, true, true, 0, 50},
		{"gs", "", 1, false, true, 0, 50},
		{"jacobi", "", 1, false, true, 0, 50},
		{"spg", "", 1, false, true, 0, 50},
		{"pdip", "", 1, false, true, 0, 12},
		{"apgd", "", 1, false, true, 1000, 50}, // switched as the pile forms
	}
	for _, c := range runs {
		t.Run(fmt.Sprintf("%s-%s-w%d-rolling=%v-simd=%v-from=%d", c.solver, c.precision, c.workers, c.rolling, c.simd, c.from), func(t *testing.T) {
			if c.simd {
				needSIMD(t)
			}
			var states [2]engine.State
			var imps [2][]float64
			var compactSteps [2]int
			for i, from := range []int{math.MaxInt, c.from} {
				r := settleRun{solver: c.solver, precision: c.precision, workers: c.workers, steps: c.steps}
				if c.rolling {
					r.edit = func(sc *scene.Scene) {
						for k := range sc.Model.Materials {
							sc.Model.Materials[k].RollingFriction = 1e-3
							sc.Model.Materials[k].SpinningFriction = 1e-4
						}
					}
				}
				r.each = func(b *Backend) {
					if b.compact {
						compactSteps[i]++
						if len(b.jac) != 8*b.con.Len() {
							t.Fatalf("the compact layout holds %d values for %d contacts", len(b.jac), b.con.Len())
						}
					}
				}
				withSIMD(c.simd, func() {
					withCompactFrom(from, func() { states[i], imps[i] = r.run(t) })
				})
			}
			if compactSteps[0] != 0 {
				t.Fatalf("the 12-value run held the 8-value layout in %d steps", compactSteps[0])
			}
			// At compactFrom 0 every step with contacts is compact; at 1000
			// the falling lattice's first contacts are fewer, about 800 at
			// 0.1 s and 1100 at 0.5 s (the switch).
			if compactSteps[1] == 0 || c.from > 0 && compactSteps[1] == c.steps {
				t.Fatalf("the compact run held the 8-value layout in %d of %d steps", compactSteps[1], c.steps)
			}
			sameRuns(t, [2]string{"with 12 values per contact", "with 8"}, &states, &imps)
		})
	}
}

// TestCompactJacobianOnlyAlongNormals: a model whose contact points do not
// lie on the normals (the mixer's ellipsoids, cylinders and cubes, and its
// turning blades) keeps the 12 values at any contact count.
func TestCompactJacobianOnlyAlongNormals(t *testing.T) {
	sc, err := scene.LoadBuiltin("mixer", []string{"n=200"})
	if err != nil {
		t.Fatal(err)
	}
	if sc.Model.ArmsAlongNormal() {
		t.Fatal("the mixer's arms lie along its normals")
	}
	withCompactFrom(0, func() {
		b := New(1)
		sim, err := engine.NewSim(&sc.Model, sc.Settings, b)
		if err != nil {
			t.Fatal(err)
		}
		stepUntilContacts(t, sim, b)
		if b.compact || len(b.jac) != 12*b.con.Len() {
			t.Fatalf("compact %v, %d values for %d contacts", b.compact, len(b.jac), b.con.Len())
		}
	})
}

// TestCompactBodyImpulses: on the random spheres, tilted box and plane of
// armsSystem, M⁻¹Dγ and Dᵀv with the Jacobian as 8 values per contact
// equal those with 12, bit for bit, in every loop that computes them: the
// vector loops' scatter (contacts by body A) and gather (byA cleared, so
// that every contact, A's side too, is gathered), the scalar loops, on
// one worker and on two.
func TestCompactBodyImpulses(t *testing.T) {
	for _, workers := range []int{1, 2} {
		rng := rand.New(rand.NewPCG(5, 8))
		var b [2]*Backend
		for i, from := range []int{math.MaxInt, 0} {
			withCompactFrom(from, func() {
				b[i] = armsSystem(t, rng)
				b[i].pool = newPool(workers)
				if _, err := b[i].Build(0.01); err != nil {
					t.Fatal(err)
				}
			})
			rng = rand.New(rand.NewPCG(5, 8)) // the same system twice
		}
		if b[0].compact || !b[1].compact {
			t.Fatalf("compact %v and %v", b[0].compact, b[1].compact)
		}
		nc := b[0].con.Len()
		x := make(Vec, 3*nc)
		v := make([]float64, 6*b[0].n)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		want := make([]float64, 6*b[0].n, 6*b[0].n+2)
		b[0].bodyImpulse(x, want)
		wantRows := make([]float64, 3*nc)
		b[0].velocities(0, nc, v, wantRows)
		for _, c := range []struct {
			simd, byA bool
		}{{true, true}, {true, false}, {false, true}} {
			withSIMD(c.simd && useSIMD, func() {
				b[1].byA = c.byA && b[0].byA
				got := make([]float64, 6*b[1].n, 6*b[1].n+2)
				b[1].bodyImpulse(x, got)
				for i := range want {
					if !sameBits(got[i], want[i]) {
						t.Fatalf("workers %d, vector loops %v, byA %v: dv[%d] = %v with 8 values, %v with 12", workers, c.simd, b[1].byA, i, got[i], want[i])
					}
				}
			})
		}
		rows := make([]float64, 3*nc)
		b[1].velocities(0, nc, v, rows)
		for i := range rows {
			if !sameBits(rows[i], wantRows[i]) {
				t.Fatalf("Dᵀv[%d] = %v with 8 values, %v with 12", i, rows[i], wantRows[i])
			}
		}
	}
}
