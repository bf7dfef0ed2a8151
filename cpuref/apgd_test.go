package cpuref

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/engine/enginetest"
)

// hostOnly hides SolveAPGD, so that engine.APGD runs its own iterations
// on the problem's LinAlg.
type hostOnly struct{ engine.Problem }

// TestSolveAPGDBits: the fused SolveAPGD returns bit for bit what
// engine.APGD computes with the problem's LinAlg and Problem methods (γ,
// iterations, residual, objective, history with its step sizes and
// restarts), plain and anti-relaxed, run to a tolerance and to a fixed
// count, on random bodies and contacts (whose first secant estimate of L
// is far off, so step-size halvings happen; 5000 bodies and 9000 contacts,
// enough for every loop to run on the workers) and on a settling pile, for
// 1 and 3 workers, which give the same bits; with runs short enough that
// some end past their best iterate, on both problems.
func TestSolveAPGDBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	random := randomSystem(t, rng, 5000, 9000)
	if _, err := random.Build(0.01); err != nil {
		t.Fatal(err)
	}
	pile := settledSim(t, 300, 40, true).Backend().(*Backend)
	earlier := map[string]int{} // solves whose best iterate is not their last, by problem
	defer func() {
		for _, name := range []string{"random", "pile"} {
			if earlier[name] == 0 && !t.Failed() {
				t.Errorf("%s: every solve ended at its best iterate: no case checks that an earlier one is kept", name)
			}
		}
	}()
	for _, c := range []struct {
		name string
		b    *Backend
	}{{"random", random}, {"pile", pile}} {
		first := map[string]Vec{} // γ of workers = 1 by case
		for _, workers := range []int{1, 3} {
			for _, ar := range []bool{false, true} {
				for _, opt := range []engine.SolveOptions{
					{Tol: 0, MaxIter: 60, Gd: 1e-6, History: true},
					{Tol: 1e-6, MaxIter: 400, Gd: 1e-6, History: true},
					// Short runs, some of which end past their best iterate
					// (the residual is not monotone): γ is then an earlier
					// iterate, which the fused solve must have kept.
					{Tol: 0, MaxIter: 10, Gd: 1e-6, History: true},
					{Tol: 0, MaxIter: 27, Gd: 1e-6, History: true},
					{Tol: 0, MaxIter: 44, Gd: 1e-6, History: true},
					{Tol: 0, MaxIter: 86, Gd: 1e-6, History: true},
				} {
					key := fmt.Sprintf("ar=%v/tol=%g/iter=%d", ar, opt.Tol, opt.MaxIter)
					t.Run(fmt.Sprintf("%s/workers=%d/%s", c.name, workers, key), func(t *testing.T) {
						b := c.b
						b.pool = newPool(workers)
						p := &b.prob
						n := 3 * b.con.Len()
						guess := make(Vec, n)
						gr := rand.New(rand.NewPCG(uint64(n), 1)) // the same guess for every worker count
						for i := range guess {
							if gr.IntN(3) > 0 {
								guess[i] = 0.01 * gr.NormFloat64()
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
						if g1, ok := first[key]; !ok {
							first[key] = fg
						} else {
							for i := range g1 {
								if math.Float64bits(fg[i]) != math.Float64bits(g1[i]) {
									t.Fatalf("γ[%d] = %v with %d workers, %v with 1", i, fg[i], workers, g1[i])
								}
							}
						}
						halvings := 0
						for i := 1; i < len(hst.History); i++ {
							if hst.History[i].Step < hst.History[i-1].Step {
								halvings++
							}
						}
						least := 0
						for i, h := range hst.History {
							if h.Residual < hst.History[least].Residual {
								least = i
							}
						}
						if least < len(hst.History)-1 {
							earlier[c.name]++
						}
						t.Logf("%d iterations, residual %.3g, %d iterations with a smaller step than the last, the best iterate %d", hst.Iterations, hst.Residual, halvings, least+1)
					})
				}
			}
		}
	}
}

// separatingPair returns the problem of enginetest.SeparatingPair with
// unit masses.
func separatingPair(t *testing.T, b *Backend) engine.Problem {
	t.Helper()
	m, set := enginetest.SeparatingPair(1)
	if err := b.Load(m, &set); err != nil {
		t.Fatal(err)
	}
	if nc, err := b.Collide(); err != nil || nc != 1 {
		t.Fatalf("%d contacts (%v), want the 1 separating one", nc, err)
	}
	p, err := b.Build(set.Dt)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSolveAPGDLongSeparating: the fused SolveAPGD, plain and
// anti-relaxed, runs 7000 iterations with tolerance 0 on a separating
// contact and returns engine.APGD's result bit for bit. The iterates stay
// at 0, so the line search never raises L and it shrinks by 0.9 per
// iteration: without engine.APGD's floor εL₀ under L, 1/L overflowed after
// about 6750 iterations (L₀ ≈ 5.8 here) and the solve failed with
// "objective is NaN".
func TestSolveAPGDLongSeparating(t *testing.T) {
	b := New(1)
	p := separatingPair(t, b)
	opt := engine.SolveOptions{Tol: 0, MaxIter: 7000, Gd: 1e-6, History: true}
	for _, ar := range []bool{false, true} {
		solve := func(p engine.Problem) (Vec, engine.SolveStats) {
			g := make(Vec, 3)
			st, err := (&engine.APGD{AntiRelax: ar}).Solve(p, g, opt)
			if err != nil {
				t.Fatalf("anti-relaxed %v: %v", ar, err)
			}
			return g, st
		}
		fg, fst := solve(p)
		hg, hst := solve(hostOnly{p})
		if !reflect.DeepEqual(fst, hst) || !reflect.DeepEqual(fg, hg) {
			t.Fatalf("anti-relaxed %v: fused γ %v, %d iterations; engine.APGD γ %v, %d iterations", ar, fg, fst.Iterations, hg, hst.Iterations)
		}
		if fg[0] != 0 || fg[1] != 0 || fg[2] != 0 || fst.Iterations != 7000 {
			t.Errorf("anti-relaxed %v: γ = %v after %d iterations, want 0 after 7000", ar, fg, fst.Iterations)
		}
		// The case reaches the overflow: 1/(L₀·0.9ᵏ) is Inf for the last k
		// (t₀ = 1/L₀ is the first step, no halving at Δ = 0).
		t0 := fst.History[0].Step
		if l := 1 / t0 * math.Pow(0.9, float64(opt.MaxIter-1)); !math.IsInf(1/l, 1) {
			t.Errorf("L₀·0.9^%d = %g: the case no longer reaches the overflow of 1/L", opt.MaxIter-1, l)
		}
		// Every step is within the floor: t ≤ t₀/ε.
		for _, r := range fst.History {
			if !(r.Step <= t0*0x1p52) {
				t.Fatalf("anti-relaxed %v, iteration %d: step %v, over t₀/ε = %v", ar, r.Iter, r.Step, t0*0x1p52)
			}
		}
	}
}
