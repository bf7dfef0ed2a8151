package enginetest

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpusim/gpusim/engine"
)

// Mixed checks settings.precision "mixed" (engine.PrecisionMixed) on the
// scene of Solvers: the backend takes it for a model without joints or
// rolling friction and has the fused APGD (an engine.DeviceAPGD: mixed
// precision lives there); apgd and apgd-ar, from a random guess, for a
// fixed number of iterations and to a tolerance, return a γ in every
// cone (Π(best): the stored iterate may lie an ulp off its cone; the
// test allows 1e-12 relative, the rounding of the projection's few
// operations), other than the float64 solve's; and, with a twin, the
// twin's γ, iterations, residual and objective bit for bit (cpuref
// rounds to float32 where the device stores: cpuref/precision.go).
func Mixed(t *testing.T, impl Impl) {
	if !impl.hasFused("apgd") {
		t.Skip("no fused APGD: mixed precision is the fused solve's")
	}
	m := RandomModel(solverSeed, solverScene)
	set := engine.DefaultSettings()
	set.Precision = engine.PrecisionMixed
	if !set.MixedFor(m) {
		t.Fatal("the scene has joints or rolling friction: mixed precision would not apply")
	}
	l := load(t, newBackend(t, impl.New), m, set, 2048)
	// The twin's own fused solve (not wrapped: a wrapper that makes
	// engine's loops run would leave out the emulated float32 storage).
	var tp engine.Problem
	if impl.Twin != nil {
		tb, _ := impl.Twin(t)
		tp = load(t, newBackend(t, func(*testing.T) engine.Backend { return tb }), m, set, l.nc).p
	}
	dbl := load(t, newBackend(t, impl.New), m, engine.DefaultSettings(), 2048)
	rng := rand.New(rand.NewPCG(solverSeed, 3))
	guess := make([]float64, 3*l.nc)
	for i := range guess {
		guess[i] = 1e-3 * rng.NormFloat64()
	}
	mu, coh := make([]float64, l.nc), make([]float64, l.nc)
	l.p.Cones(mu, coh)
	solve := func(t *testing.T, p engine.Problem, s engine.Solver, opt engine.SolveOptions) ([]float64, engine.SolveStats) {
		t.Helper()
		g := VecOf(p, guess)
		st, err := s.Solve(p, g, opt)
		if err != nil {
			t.Fatal(err)
		}
		return ReadVec(p, g), st
	}
	for _, ar := range []bool{false, true} {
		for _, opt := range []engine.SolveOptions{{MaxIter: 60, Gd: set.Gd}, {Tol: 1e-5, MaxIter: 300, Gd: set.Gd}} {
			name := "apgd"
			if ar {
				name = "apgd-ar"
			}
			if opt.Tol > 0 {
				name += "/tol"
			}
			t.Run(name, func(t *testing.T) {
				s := &engine.APGD{AntiRelax: ar}
				g, st := solve(t, l.p, s, opt)
				for k := 0; k < l.nc; k++ {
					n, tn := g[3*k]+coh[k], math.Hypot(g[3*k+1], g[3*k+2])
					if n < -1e-12*math.Abs(coh[k]) || tn > mu[k]*n+1e-12*math.Abs(n) {
						t.Fatalf("contact %d: γ = %v outside its cone (μ %v, cohesion %v)", k, g[3*k:3*k+3], mu[k], coh[k])
					}
				}
				if g64, _ := solve(t, dbl.p, s, opt); FirstDiff(g, g64) < 0 {
					t.Error("the mixed solve equals the float64 solve")
				}
				if tp != nil {
					tg, tst := solve(t, tp, s, opt)
					if i := FirstDiff(g, tg); i >= 0 {
						t.Errorf("γ[%d] = %v, %v on the twin", i, g[i], tg[i])
					}
					if st.Iterations != tst.Iterations || !sameBits(st.Residual, tst.Residual) || !sameBits(st.Objective, tst.Objective) {
						t.Errorf("stats %+v, %+v on the twin", st, tst)
					}
				}
				t.Logf("%d iterations, residual %.3g", st.Iterations, st.Residual)
			})
		}
	}
}
