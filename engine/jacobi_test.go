package engine_test

import (
	"math"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/engine/enginetest"
)

// isotropic returns the block-diagonal N = diag(g_1 I₃, g_2 I₃, …).
func isotropic(g ...float64) [][]float64 {
	n := make([][]float64, 3*len(g))
	for i := range n {
		n[i] = make([]float64, 3*len(g))
		n[i][i] = g[i/3]
	}
	return n
}

// uncoupled is four independent contacts with N_ii = g_i I: the optimum of
// each is Π_i(−r_i/g_i), the projection of its unconstrained optimum
// (with a multiple of the identity for Hessian the metric is Euclidean).
func uncoupled(t *testing.T) (*cpuref.MatrixProblem, []float64) {
	t.Helper()
	g := []float64{2, 0.5, 4, 1}
	r := []float64{
		-2, 0.2, 0.1, // sticking: (1, −0.1, −0.05) inside μ = 0.5
		-0.5, 1, 0, // sliding: (1, −2, 0) projected onto μ = 0.2
		1, 0.4, 0, // separating
		0.5, 0, 0.1, // pulling, held by cohesion 1: (−0.5, 0, −0.1)
	}
	mu := []float64{0.5, 0.2, 0.5, 0.5}
	coh := []float64{0, 0, 0, 1}
	want := make([]float64, len(r))
	for i := range g {
		want[3*i], want[3*i+1], want[3*i+2] = cpuref.ProjectCone(-r[3*i]/g[i], -r[3*i+1]/g[i], -r[3*i+2]/g[i], mu[i], coh[i])
	}
	return matrixProblem(t, isotropic(g...), r, mu, coh), want
}

// TestOneIterationUncoupled: with N = diag(g_i I) and ω = λ = 1 one step of
// Jacobi or one sweep of Gauss–Seidel lands on Π_i(−r_i/g_i), the optimum.
func TestOneIterationUncoupled(t *testing.T) {
	for _, s := range []engine.Solver{&engine.GaussSeidel{Omega: 1, Lambda: 1}, &engine.Jacobi{Omega: 1, Lambda: 1}} {
		p, want := uncoupled(t)
		g := p.NewVec(12)
		st, err := s.Solve(p, g, engine.SolveOptions{MaxIter: 1, Gd: confGd})
		if err != nil {
			t.Fatal(err)
		}
		got := make([]float64, 12)
		p.Read(got, g)
		for k := range want {
			// The same arithmetic as want's up to the rounding of r_i·(1/g_i)
			// against r_i/g_i, an ulp of values ≤ 2 (4.4e-16), carried
			// through one projection: 1e-15.
			if math.Abs(got[k]-want[k]) > 1e-15 {
				t.Fatalf("%s: after one iteration γ = %v, want %v", s.Name(), got, want)
			}
		}
		// r after the single iteration: at most the rounding of the sliding
		// contact's projection, ulp(2)/(3n_c·g_d) ≈ 4.4e-16/1.2e-5 ≈ 4e-11.
		if st.Iterations != 1 || st.Residual > 1e-10 {
			t.Errorf("%s: %d iterations, r = %g", s.Name(), st.Iterations, st.Residual)
		}
	}
}

// redundantIsotropic is the redundant case with A = I: B N = [[I, I], [I, I]]
// has ρ = 2, the edge of Jacobi's condition ω ρ(BN) < 2 at ω = 1.
func redundantIsotropic(t *testing.T) *cpuref.MatrixProblem {
	t.Helper()
	n := make([][]float64, 6)
	for i := range n {
		n[i] = make([]float64, 6)
		n[i][i%3], n[i][3+i%3] = 1, 1
	}
	return matrixProblem(t, n, []float64{-1, 0.1, 0, -1, 0.1, 0}, []float64{0.5, 0.5}, nil)
}

// TestJacobiRedundant: two identical contacts. Jacobi with ω = 1 gives both
// contacts the whole load, then both nothing, for ever: every iterate has
// f = 0, no better than γ = 0. Fixed ω = 0.2 (ω ρ(BN) = 0.4), the default
// ω = 1/ρ(BN) = ½ and ω = 1 with λ = ½ (the average of the oscillation)
// converge, the last two in one step from γ = 0; so does Gauss–Seidel, with
// ω = 1 in one sweep (the second contact sees the first's update and takes
// nothing).
func TestJacobiRedundant(t *testing.T) {
	const fStar = -0.5 * 1.01 // Γ* = (1, −0.1, 0): f* = −½ Γ*ᵀΓ*
	p := redundantIsotropic(t)
	g := p.NewVec(6)
	st, err := (&engine.Jacobi{Omega: 1}).Solve(p, g, engine.SolveOptions{Tol: confTol, MaxIter: 1000, Gd: confGd, History: true})
	if err != nil {
		t.Fatal(err)
	}
	if st.Converged {
		t.Errorf("jacobi ω = 1 converged: %+v", st)
	}
	for _, h := range st.History {
		// f alternates between f(0) = 0 and f(2Γ*) = 2·1.01 − 2·1.01 = 0,
		// the latter up to the rounding of 2.02 (ulp 4.4e-16).
		if math.Abs(h.Objective) > 1e-15 {
			t.Fatalf("jacobi ω = 1: iteration %d has f = %g, want 0", h.Iter, h.Objective)
		}
	}
	for _, s := range []engine.Solver{&engine.Jacobi{Omega: 0.2}, &engine.Jacobi{}, &engine.Jacobi{Omega: 1, Lambda: 0.5}, &engine.GaussSeidel{}, &engine.GaussSeidel{Omega: 1}} {
		p.Fill(g, 0)
		st, err := s.Solve(p, g, engine.SolveOptions{Tol: confTol, MaxIter: 1000, Gd: confGd})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s %+v: %d iterations", s.Name(), s, st.Iterations)
		// confObjective: see solvers_test.go.
		if !st.Converged || math.Abs(st.Objective-fStar) > confObjective {
			t.Errorf("%s %+v: %d iterations, r = %g, f = %.15g, want %.15g", s.Name(), s, st.Iterations, st.Residual, st.Objective, fStar)
		}
		if j, ok := s.(*engine.Jacobi); ok && j.Omega != 0.2 && st.Iterations != 1 {
			t.Errorf("jacobi %+v: %d iterations, want 1", j, st.Iterations)
		}
		if gs, ok := s.(*engine.GaussSeidel); ok && gs.Omega == 1 && st.Iterations != 1 {
			t.Errorf("gs ω = 1: %d sweeps, want 1", st.Iterations)
		}
	}
}

// TestRelaxationDefaults: the zero value uses the documented defaults,
// which History reports as the step: ω = 0.6 for Gauss–Seidel and
// ω = 1/ρ(BN) for Jacobi, here with ρ(BN) known: 1 for uncoupled isotropic
// contacts (BN = I), 3.5/(8/3) for one contact with N = diag(1, 3.5, 3.5),
// and 2 for two identical isotropic contacts (BN = [[I, I], [I, I]]).
func TestRelaxationDefaults(t *testing.T) {
	for _, c := range []struct {
		s     engine.Solver
		p     engine.Problem
		omega float64
		tol   float64 // the estimate's error
	}{
		// Fixed values: exact.
		{&engine.GaussSeidel{}, coupledPair(t), 0.6, 0},
		{&engine.Jacobi{Omega: 0.7}, coupledPair(t), 0.7, 0},
		// BN = I: every Rayleigh quotient is 1, computed from equal
		// products (g·v_i both ways): exact.
		{&engine.Jacobi{}, isotropicPair(t), 1, 0},
		// Diagonal BN: the power iteration converges like
		// (λ₂/λ₁)^{2k} = (1/3.5)^{40} ≈ 1e-22, to rounding (1e-15).
		{&engine.Jacobi{}, matrixProblem(t, diag3(1, 3.5, 3.5), []float64{-1, 0.1, 0}, []float64{0.5}, nil), 8.0 / 3 / 3.5, 1e-15},
		// One step puts v in the top eigenspace (the other is the null
		// space): 2 up to rounding.
		{&engine.Jacobi{}, redundantIsotropic(t), 0.5, 1e-15},
	} {
		st, err := c.s.Solve(c.p, c.p.NewVec(3*c.p.Contacts()), engine.SolveOptions{MaxIter: 2, Gd: confGd, History: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(st.History) == 0 || math.Abs(st.History[0].Step-c.omega) > c.tol {
			t.Errorf("%s %+v: history %+v, want step %.17g", c.s.Name(), c.s, st.History, c.omega)
		}
	}
}

// isotropicPair is two uncoupled contacts with N = diag(2I, 0.5I).
func isotropicPair(t *testing.T) *cpuref.MatrixProblem {
	t.Helper()
	return matrixProblem(t, isotropic(2, 0.5), []float64{-1, 0.1, 0, -1, 0, 0.3}, []float64{0.5, 0.5}, nil)
}

// TestRelaxationInvalid: ω outside (0, 2) or λ outside (0, 1] is an error.
func TestRelaxationInvalid(t *testing.T) {
	for _, c := range []struct{ omega, lambda float64 }{
		{-1, 1}, {2, 1}, {2.5, 1}, {math.NaN(), 1}, {math.Inf(1), 1},
		{1, -0.1}, {1, 1.5}, {1, math.NaN()},
	} {
		for _, s := range []engine.Solver{&engine.Jacobi{Omega: c.omega, Lambda: c.lambda}, &engine.GaussSeidel{Omega: c.omega, Lambda: c.lambda}} {
			p, _ := uncoupled(t)
			if _, err := s.Solve(p, p.NewVec(12), engine.SolveOptions{MaxIter: 10, Gd: confGd}); err == nil {
				t.Errorf("%s ω = %v, λ = %v: no error", s.Name(), c.omega, c.lambda)
			}
		}
	}
}

// coupledPair is two coupled contacts, one sliding, that no solver
// finishes in a few iterations.
func coupledPair(t *testing.T) *cpuref.MatrixProblem {
	t.Helper()
	return matrixProblem(t, [][]float64{
		{2, 0.3, 0, 1, 0, 0}, {0.3, 3, 0, 0, 0.5, 0}, {0, 0, 3, 0, 0, 0.5},
		{1, 0, 0, 2, 0, 0}, {0, 0.5, 0, 0, 3, 0}, {0, 0, 0.5, 0, 0, 3},
	}, []float64{-1, 2, 0, -0.5, -0.3, 0.2}, []float64{0.3, 0.6}, nil)
}

// TestLastIterate: Jacobi and Gauss–Seidel return the last iterate
// (Algorithm 2, line 13) and report its residual and objective; History
// has one record per iteration.
func TestLastIterate(t *testing.T) {
	for _, name := range []string{"jacobi", "gs"} {
		p := coupledPair(t)
		g, st := runSolver(t, name, p, engine.SolveOptions{MaxIter: 7, Gd: confGd, History: true})
		if st.Iterations != 7 || len(st.History) != 7 {
			t.Fatalf("%s: %d iterations, %d records", name, st.Iterations, len(st.History))
		}
		last := st.History[6]
		if last.Iter != 7 || last.Residual != st.Residual || last.Objective != st.Objective {
			t.Errorf("%s: last record %+v, stats %+v", name, last, st)
		}
		// Recomputed with the same operations on the same γ: equal bits.
		if r := residualOf(p, g, confGd); r != st.Residual {
			t.Errorf("%s: r(γ) = %g, reported %g", name, r, st.Residual)
		}
		checkStats(t, p, g, st)
		checkCones(t, p, g, confCone)
	}
}

// TestWarmStartAtSolution: a guess that already meets Tol is returned
// after zero iterations (the residual is checked before the first).
func TestWarmStartAtSolution(t *testing.T) {
	for _, name := range []string{"jacobi", "gs", "spg"} {
		p, want := uncoupled(t)
		g := p.NewVec(12)
		p.Write(g, want)
		s, _ := engine.NewSolver(name)
		// 1e-10: above the rounding of the sliding contact's projection,
		// about 4e-11 (see TestOneIterationUncoupled).
		st, err := s.Solve(p, g, engine.SolveOptions{Tol: 1e-10, MaxIter: 100, Gd: confGd})
		if err != nil {
			t.Fatal(err)
		}
		if st.Iterations != 0 || !st.Converged {
			t.Errorf("%s: %d iterations from the solution, stats %+v", name, st.Iterations, st)
		}
	}
}

// nanSchur returns NaN from every product with N after the first after.
type nanSchur struct {
	engine.Problem
	calls, after int
}

func (p *nanSchur) Schur(dst, x engine.Vec) {
	p.Problem.Schur(dst, x)
	if p.calls++; p.calls > p.after {
		p.Fill(dst, math.NaN())
	}
}

// TestNonFinite: NaN or Inf in the guess or in a product with N is an
// error, not a panic and not a silent NaN result; so are a contact with
// g_i = 0, a wrong length and g_d ≤ 0.
func TestNonFinite(t *testing.T) {
	for _, name := range []string{"jacobi", "gs", "spg"} {
		s, _ := engine.NewSolver(name)
		opt := engine.SolveOptions{Tol: 1e-12, MaxIter: 100, Gd: confGd}
		for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
			p, _ := uncoupled(t)
			g := p.NewVec(12)
			// In a tangential row: the projection would map γ_n = −∞ to
			// the apex, a finite point.
			p.Write(g, []float64{1, 0, 0, 0, bad})
			if _, err := s.Solve(p, g, opt); err == nil || !strings.Contains(err.Error(), "initial guess") {
				t.Errorf("%s: guess with %v: error %v", name, bad, err)
			}
		}
		for _, after := range []int{0, 1, 5} {
			p := coupledPair(t)
			if _, err := s.Solve(&nanSchur{Problem: p, after: after}, p.NewVec(6), opt); err == nil {
				t.Errorf("%s: NaN from product %d: no error", name, after+1)
			}
		}
		zero := isotropic(1, 0)
		p := matrixProblem(t, zero, make([]float64, 6), []float64{0.5, 0.5}, nil)
		if _, err := s.Solve(p, p.NewVec(6), opt); err == nil || !strings.Contains(err.Error(), "contact 1") {
			t.Errorf("%s: g_1 = 0: error %v", name, err)
		}
		if _, err := s.Solve(p, p.NewVec(5), opt); err == nil {
			t.Errorf("%s: gamma of length 5: no error", name)
		}
		if _, err := s.Solve(p, p.NewVec(6), engine.SolveOptions{MaxIter: 10}); err == nil {
			t.Errorf("%s: g_d = 0: no error", name)
		}
	}
}

// countSchur counts the products with N.
type countSchur struct {
	engine.Problem
	calls int
}

func (p *countSchur) Schur(dst, x engine.Vec) {
	p.calls++
	p.Problem.Schur(dst, x)
}

// TestNoStoppingTest: with Tol = 0 and no history nothing reads the
// iterations' residuals, so Gauss–Seidel computes only the last one: the
// same iterate (equal bits), residual and objective as a solve that
// records every iteration, with 2 products with N (the guess's and the
// last iterate's) instead of 1 + MaxIter; a product that turns NaN is
// still an error, at the end. Jacobi, which needs Nγ every iteration,
// gives the same results either way.
func TestNoStoppingTest(t *testing.T) {
	const iters = 7
	for _, name := range []string{"jacobi", "gs"} {
		full := &countSchur{Problem: coupledPair(t)}
		gFull, stFull := runSolver(t, name, full, engine.SolveOptions{MaxIter: iters, Gd: confGd, History: true})
		bare := &countSchur{Problem: coupledPair(t)}
		gBare, stBare := runSolver(t, name, bare, engine.SolveOptions{MaxIter: iters, Gd: confGd})
		for i := range gFull {
			if math.Float64bits(gFull[i]) != math.Float64bits(gBare[i]) {
				t.Errorf("%s: γ[%d] = %v without the per-iteration residual, %v with it", name, i, gBare[i], gFull[i])
			}
		}
		if stBare.Iterations != iters || stBare.Residual != stFull.Residual || stBare.Objective != stFull.Objective || stBare.Converged {
			t.Errorf("%s: stats %+v, want those of %+v (less the history)", name, stBare, stFull)
		}
		t.Logf("%s: %d products with N with the history, %d without", name, full.calls, bare.calls)
		if name == "gs" && (full.calls != 1+iters || bare.calls != 2) {
			t.Errorf("gs: %d and %d products with N, want %d and 2", full.calls, bare.calls, 1+iters)
		}
		s, _ := engine.NewSolver(name)
		p := coupledPair(t)
		if _, err := s.Solve(&nanSchur{Problem: p, after: 1}, p.NewVec(6), engine.SolveOptions{MaxIter: iters, Gd: confGd}); err == nil {
			t.Errorf("%s: NaN from the second product, no stopping test: no error", name)
		}
	}
}

// carriedProblem is a hostProblem with engine.CarriedSweeps, whose Sweeps
// runs Sweep k times (a dense problem has no velocities to carry) and
// records each call's k; single counts the Sweep calls from outside it.
type carriedProblem struct {
	*hostProblem
	sweeps []int
	single int
}

func (p *carriedProblem) Sweep(gamma, diag engine.Vec, omega, lambda float64) {
	p.single++
	p.hostProblem.Sweep(gamma, diag, omega, lambda)
}

func (p *carriedProblem) Sweeps(gamma, diag engine.Vec, omega, lambda float64, k int) {
	p.sweeps = append(p.sweeps, k)
	for range k {
		p.hostProblem.Sweep(gamma, diag, omega, lambda)
	}
}

// TestGaussSeidelCarriedSweeps: without a stopping test or history,
// GaussSeidel.Solve hands all of its sweeps to a problem's Sweeps in one
// call (and none to Sweep); with either, it sweeps one at a time and reads
// the residual between. The iterates are those of the problem's sweeps
// either way: the same γ as on the problem without CarriedSweeps.
func TestGaussSeidelCarriedSweeps(t *testing.T) {
	host := randomHostProblem(t, 5, 6)
	n := 3 * host.Contacts()
	solve := func(p engine.Problem, opt engine.SolveOptions) []float64 {
		t.Helper()
		g := p.NewVec(n)
		if _, err := (&engine.GaussSeidel{}).Solve(p, g, opt); err != nil {
			t.Fatal(err)
		}
		out := make([]float64, n)
		p.Read(out, g)
		return out
	}
	for _, c := range []struct {
		name    string
		opt     engine.SolveOptions
		carried bool
	}{
		{"no stopping test", engine.SolveOptions{MaxIter: 7, Gd: confGd}, true},
		{"no iterations", engine.SolveOptions{MaxIter: 0, Gd: confGd}, false},
		{"tolerance", engine.SolveOptions{MaxIter: 7, Gd: confGd, Tol: 1e-300}, false},
		{"history", engine.SolveOptions{MaxIter: 7, Gd: confGd, History: true}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cp := &carriedProblem{hostProblem: host}
			got, want := solve(cp, c.opt), solve(host, c.opt)
			if i := enginetest.FirstDiff(got, want); i >= 0 {
				t.Errorf("γ[%d] = %v, %v without CarriedSweeps", i, got[i], want[i])
			}
			switch {
			case c.carried && (len(cp.sweeps) != 1 || cp.sweeps[0] != c.opt.MaxIter || cp.single != 0):
				t.Errorf("Sweeps calls %v and %d Sweep calls, want one Sweeps of %d and no Sweep", cp.sweeps, cp.single, c.opt.MaxIter)
			case !c.carried && (len(cp.sweeps) != 0 || cp.single != c.opt.MaxIter):
				t.Errorf("Sweeps calls %v and %d Sweep calls, want no Sweeps and %d Sweep", cp.sweeps, cp.single, c.opt.MaxIter)
			}
		})
	}
}
