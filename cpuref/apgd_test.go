package cpuref

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/gpusim/gpusim/engine"
)

// hostOnly hides SolveAPGD, so that engine.APGD runs its own iterations
// on the problem's LinAlg.
type hostOnly struct{ engine.Problem }

// TestSolveAPGDBits: the fused SolveAPGD returns bit for bit what
// engine.APGD computes with the problem's LinAlg and Problem methods (γ,
// iterations, residual, objective, history with its step sizes and
// restarts), plain and anti-relaxed, run to a tolerance and to a fixed
// count, on random bodies and contacts (whose first secant estimate of L
// is far off, so step-size halvings happen) and on a settling pile, for 1
// and 3 workers.
func TestSolveAPGDBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	random := randomSystem(t, rng, 500, 2500)
	if _, err := random.Build(0.01); err != nil {
		t.Fatal(err)
	}
	pile := settledSim(t, 300, 40, true).Backend().(*Backend)
	for _, c := range []struct {
		name string
		b    *Backend
	}{{"random", random}, {"pile", pile}} {
		for _, workers := range []int{1, 3} {
			for _, ar := range []bool{false, true} {
				for _, opt := range []engine.SolveOptions{
					{Tol: 0, MaxIter: 60, Gd: 1e-6, History: true},
					{Tol: 1e-6, MaxIter: 400, Gd: 1e-6, History: true},
				} {
					t.Run(fmt.Sprintf("%s/workers=%d/ar=%v/tol=%g", c.name, workers, ar, opt.Tol), func(t *testing.T) {
						b := c.b
						b.pool = newPool(workers)
						p := &b.prob
						n := 3 * b.con.Len()
						guess := make(Vec, n)
						for i := range guess {
							if rng.IntN(3) > 0 {
								guess[i] = 0.01 * rng.NormFloat64()
							}
						}
						solve := func(p engine.Problem) (Vec, engine.SolveStats) {
							g := append(Vec(nil), guess...)
							st, err := (&engine.APGD{AntiRelax: ar}).Solve(p, g, opt)
							if err != nil {
								t.Fatal(err)
							}
							return g, st
						}
						fg, fst := solve(p)
						hg, hst := solve(hostOnly{p})
						for i := range hg {
							if math.Float64bits(fg[i]) != math.Float64bits(hg[i]) {
								t.Fatalf("γ[%d] = %v fused, %v on engine.APGD", i, fg[i], hg[i])
							}
						}
						if !reflect.DeepEqual(fst, hst) {
							t.Fatalf("stats differ:\nfused  %+v\nengine %+v", fst, hst)
						}
						halvings := 0
						for i := 1; i < len(hst.History); i++ {
							if hst.History[i].Step < hst.History[i-1].Step {
								halvings++
							}
						}
						t.Logf("%d iterations, residual %.3g, %d iterations with a smaller step than the last", hst.Iterations, hst.Residual, halvings)
					})
				}
			}
		}
	}
}
