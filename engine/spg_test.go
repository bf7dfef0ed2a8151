package engine_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpusim/gpusim/engine"
)

// spgHistory runs SPG with History from γ = 0 on p and returns γ, the
// stats and f(x₀) = 0 prepended to the objectives.
func spgHistory(t *testing.T, p engine.Problem, opt engine.SolveOptions) ([]float64, engine.SolveStats, []float64) {
	t.Helper()
	opt.History = true
	g, st := runSolver(t, "spg", p, opt)
	f := []float64{0} // x₀ = Π(0) = 0
	for _, h := range st.History {
		f = append(f, h.Objective)
	}
	return g, st, f
}

// TestSPGLineSearchGLL: every accepted iterate satisfies line 14 of
// P-SPG-FB, f(x_{j+1}) ≤ max_{i=0…min(j,10)} f(x_{j−i}) + γλ⟨d_j, g_j⟩,
// whose last term is ≤ 0, so f(x_{j+1}) is at most the largest of the
// last 11 objective values; and the iteration is non-monotone at times (so
// the window matters: a monotone search would reject those steps).
func TestSPGLineSearchGLL(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	nonMonotone := 0
	for range 6 {
		nc := 5 + rng.IntN(16)
		p := randomProblem(t, rng, nc, 3*nc/2, 0.01)
		_, st, f := spgHistory(t, p, engine.SolveOptions{Tol: 1e-9, MaxIter: 2000, Gd: confGd})
		for j := 1; j < len(f); j++ {
			fMax := math.Inf(-1)
			for i := max(0, j-11); i < j; i++ {
				fMax = math.Max(fMax, f[i])
			}
			// Exact: the solver compares these very numbers.
			if f[j] > fMax {
				t.Fatalf("n_c = %d: f(x_%d) = %.17g above the maximum %.17g of the 11 before", nc, j, f[j], fMax)
			}
			if f[j] > f[j-1] {
				nonMonotone++
			}
		}
		if !st.Converged {
			t.Errorf("n_c = %d: not converged: %+v", nc, st.Residual)
		}
	}
	t.Logf("%d non-monotone steps", nonMonotone)
	if nonMonotone == 0 {
		t.Error("no non-monotone step: the test does not exercise the GLL window")
	}
}

// TestSPGFallback: a truncated run returns x_FB, the iterate of smallest
// residual r (eq. 25) among x₀ … x_k, not the last one, and reports its r
// and f.
func TestSPGFallback(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	p := randomProblem(t, rng, 12, 18, 0.01)
	r0 := residualOf(p, make([]float64, 36), confGd)
	notLast := 0
	for k := 1; k <= 60; k++ {
		g, st, _ := spgHistory(t, p, engine.SolveOptions{MaxIter: k, Gd: confGd})
		best := r0
		for _, h := range st.History {
			best = math.Min(best, h.Residual)
		}
		if st.Residual != best {
			t.Fatalf("MaxIter %d: reported r = %g, smallest %g", k, st.Residual, best)
		}
		// Recomputed with the same operations on the same γ: equal bits.
		if r := residualOf(p, g, confGd); r != best {
			t.Fatalf("MaxIter %d: r(γ) = %g, smallest %g", k, r, best)
		}
		checkStats(t, p, g, st)
		checkCones(t, p, g, confCone)
		if st.History[k-1].Residual > best {
			notLast++
		}
	}
	t.Logf("%d of 60 truncations end on an iterate worse than the best", notLast)
	if notLast == 0 {
		t.Error("every truncation ends on its best iterate: the test does not exercise the fall-back")
	}
}

// TestSPGOneStepIsotropic: with N = diag(g_i I), P⁻¹N = I and the first
// step (α̂₀ = 1, λ = 1) lands on the optimum Π_i(−r_i/g_i).
func TestSPGOneStepIsotropic(t *testing.T) {
	p, want := uncoupled(t)
	g, st := runSolver(t, "spg", p, engine.SolveOptions{MaxIter: 1, Gd: confGd})
	for k := range want {
		// As in TestOneIterationUncoupled.
		if math.Abs(g[k]-want[k]) > 1e-15 {
			t.Fatalf("γ = %v, want %v", g, want)
		}
	}
	// As in TestOneIterationUncoupled.
	if st.Residual > 1e-10 {
		t.Errorf("r = %g", st.Residual)
	}
}

// TestSPGSpectralSteps: the step lengths alternate BB2 (after even j) and
// BB1 (after odd j), preconditioned by P = diag(g_i) (lines 18–19, eqs. 10
// and 11). One sticking contact, N = diag(1, 3.5, 3.5), P = (8/3)I; the
// iterates x₁ and x₂ are those of runs truncated after 1 and 2 iterations
// (the residual falls, so x_FB is the last one), and with λ = 1 accepted
// History's Step is α̂_j.
func TestSPGSpectralSteps(t *testing.T) {
	p := matrixProblem(t, diag3(1, 3.5, 3.5), []float64{-1, 0.1, 0}, []float64{0.5}, nil)
	nd := []float64{1, 3.5, 3.5}
	const pd = 8.0 / 3
	x := [][]float64{{0, 0, 0}}
	for k := 1; k <= 2; k++ {
		g, _, _ := spgHistory(t, p, engine.SolveOptions{MaxIter: k, Gd: confGd})
		x = append(x, g)
	}
	_, st, _ := spgHistory(t, p, engine.SolveOptions{MaxIter: 3, Gd: confGd})
	if r := st.History; !(r[1].Residual < r[0].Residual && r[0].Residual < residualOf(p, x[0], confGd)) {
		t.Fatalf("the residual rose: x_FB of a truncated run is not its last iterate: %+v", r)
	}
	// s_j = x_{j+1} − x_j, y_j = N s_j.
	dot := func(a, b []float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
	sy := func(j int) ([]float64, []float64) {
		s, y := make([]float64, 3), make([]float64, 3)
		for k := range s {
			s[k] = x[j+1][k] - x[j][k]
			y[k] = nd[k] * s[k]
		}
		return s, y
	}
	s0, y0 := sy(0)
	s1, y1 := sy(1)
	want := []float64{
		1,                                // α̂₀
		dot(s0, y0) / (dot(y0, y0) / pd), // j = 0 even: BB2 = ⟨s,y⟩/⟨y,P⁻¹y⟩
		pd * dot(s1, s1) / dot(s1, y1),   // j = 1 odd: BB1 = ⟨s,Ps⟩/⟨s,y⟩
	}
	for j, w := range want {
		// The same formulas evaluated in another order: a few ulps.
		if got := st.History[j].Step; math.Abs(got-w) > 1e-14*w {
			t.Errorf("iteration %d: step %.17g, want %.17g (history %+v)", j+1, got, w, st.History)
		}
	}
	if want[1] == want[2] {
		t.Errorf("BB1 = BB2 = %g: the test cannot tell them apart", want[1])
	}
}

// biasSchur adds a constant b to every product with N: a broken backend
// whose gradient Nγ + b + r is not that of the objective it reports,
// ½γᵀ(Nγ + b) + rᵀγ (off by ½b).
type biasSchur struct {
	engine.Problem
	b engine.Vec
}

func (p *biasSchur) Schur(dst, x engine.Vec) {
	p.Problem.Schur(dst, x)
	p.Axpby(dst, 1, dst, 1, p.b)
}

// TestSPGLineSearchFailureStops: one frictionless contact, N = I, r_n = ½,
// and b_n = −1. At γ = 0 the reported gradient −½ asks for a larger γ_n,
// but the reported objective ½γ_n² increases along that direction for
// every λ > 0, and γ_n = λ/2 never rounds back to 0: line 14 cannot hold.
// SPG must give up after spgMaxBacktrack reductions and return x_FB = x₀,
// with no error.
func TestSPGLineSearchFailureStops(t *testing.T) {
	mp := matrixProblem(t, isotropic(1), []float64{0.5, 0, 0}, []float64{0}, nil)
	b := mp.NewVec(3)
	mp.Write(b, []float64{-1, 0, 0})
	p := &biasSchur{Problem: mp, b: b}
	g := p.NewVec(3)
	st, err := (&engine.SPG{}).Solve(p, g, engine.SolveOptions{Tol: 1e-9, MaxIter: 100, Gd: confGd})
	if err != nil {
		t.Fatal(err)
	}
	got := make([]float64, 3)
	p.Read(got, g)
	if st.Iterations != 0 || st.Converged || got[0] != 0 || got[1] != 0 || got[2] != 0 {
		t.Errorf("%d iterations, γ = %v, stats %+v; want 0 iterations, γ = 0", st.Iterations, got, st)
	}
}
