package cpuref

import (
	"fmt"
	"testing"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/scene"
)

// TestOneMaterialBits: a model of one friction and one cohesion holds μ
// and the cohesion impulse once (Backend.mu, coh), and whole steps of the
// settle scene (n = 400, with cohesion so that it counts) give the same
// bits of the state and the impulses as with them held per contact, for
// every solver (the projections, APGD's vector loops, anti-relaxation,
// Gauss–Seidel's relaxation, pdip's Cones), mixed precision, and with
// and without the vector loops.
func TestOneMaterialBits(t *testing.T) {
	if testing.Short() {
		t.Skip("short: 16 runs of up to 40 steps")
	}
	type run struct {
		solver, precision string
		simd              bool
		steps             int
	}
	runs := []run{
		{"apgd", "", true, 40}, {"apgd", "", false, 40}, {"apgd-ar", "", true, 40}, {"apgd", "mixed", true, 40},
		{"gs", "", true, 40}, {"jacobi", "", true, 40}, {"spg", "", true, 40}, {"pdip", "", true, 10},
	}
	for _, c := range runs {
		t.Run(fmt.Sprintf("%s-%s-simd=%v", c.solver, c.precision, c.simd), func(t *testing.T) {
			if c.simd {
				needSIMD(t)
			}
			var states [2]engine.State
			var imps [2][]float64
			for i, one := range []bool{false, true} {
				r := settleRun{solver: c.solver, precision: c.precision, workers: 1, steps: c.steps}
				r.edit = func(sc *scene.Scene) {
					for k := range sc.Model.Materials {
						sc.Model.Materials[k].Cohesion = 3
					}
				}
				r.prep = func(b *Backend) {
					if !b.oneMaterial {
						t.Fatal("the settle scene's materials are not one friction and one cohesion")
					}
					b.oneMaterial = one
				}
				r.each = func(b *Backend) {
					if nc := b.con.Len(); nc > 1 && (len(b.mu) == 1) != one {
						t.Fatalf("one material %v: μ of %d values for %d contacts", one, len(b.mu), nc)
					}
				}
				withSIMD(c.simd, func() { states[i], imps[i] = r.run(t) })
			}
			sameRuns(t, [2]string{"per contact", "held once"}, &states, &imps)
		})
	}
}
