package engine_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
)

// pdipGd is g_d of eq. 25 in these tests: the APGD paper's value and the
// default setting.
const pdipGd = 1e-6

// pdipCheck fails unless γ lies in its cones (up to tol), the stats
// describe γ, and the history is that of a PDIP run.
func pdipCheck(t testing.TB, p engine.Problem, g []float64, st engine.SolveStats, tol float64) {
	t.Helper()
	checkCones(t, p, g, tol)
	nc := p.Contacts()
	mu, coh := make([]float64, nc), make([]float64, nc)
	p.Cones(mu, coh)
	for i := range nc {
		if tu, tw := g[3*i+1], g[3*i+2]; mu[i] == 0 && (tu != 0 || tw != 0) {
			t.Errorf("frictionless contact %d: γ_t = (%g, %g), want exactly 0", i, tu, tw)
		}
	}
	v := p.NewVec(len(g))
	p.Write(v, g)
	// The same operations on the same γ: equal up to the last roundings.
	if r := engine.Residual(p, v, pdipGd); math.Abs(r-st.Residual) > 1e-12*r {
		t.Errorf("Residual = %g, r(γ) = %g", st.Residual, r)
	}
	if f := engine.Objective(p, v); math.Abs(f-st.Objective) > 1e-12*math.Max(1, math.Abs(f)) {
		t.Errorf("Objective = %.17g, f(γ) = %.17g", st.Objective, f)
	}
	if want := st.Residual * float64(len(g)); math.Abs(st.ProjGrad-want) > 1e-14*want {
		t.Errorf("ProjGrad = %g, want 3n_c·Residual = %g", st.ProjGrad, want)
	}
	if len(st.History) != 0 {
		if len(st.History) != st.Iterations {
			t.Errorf("%d records for %d iterations", len(st.History), st.Iterations)
		}
		for k, h := range st.History {
			// The returned point has the smallest residual of all, up
			// to the rounding of its final projection.
			if h.Iter != k+1 || h.Restart || !(h.Step > 0 && h.Step <= 1) || !(h.Residual >= st.Residual*(1-1e-9)) {
				t.Errorf("record %d: %+v (returned r = %g)", k, h, st.Residual)
			}
		}
	}
}

// Single contacts with N = diag(1, 3.5, 3.5) (a sphere of unit mass and
// radius: N_tt = 1/m + R²/I) unless stated, solutions in closed form.
func TestPdipSingleContact(t *testing.T) {
	a := [][]float64{{1, 0, 0}, {0, 3.5, 0}, {0, 0, 3.5}}
	// Sliding: on the boundary γ_u = −μγ_n, ½(1 + 3.5μ²)γ_n² − (0.0981 + 2μ)γ_n
	// is minimal at γ_n = 0.4981/1.14 (the 2-D example of the
	// anti-relaxation paper, section 3.1).
	gs := (0.0981 + 2*0.2) / (1 + 3.5*0.2*0.2)
	cases := []struct {
		name       string
		n          [][]float64
		r, mu, coh []float64
		want       []float64
	}{
		// γ = −N⁻¹r inside the cone: |γ_u| = 0.029 < μγ_n = 0.5.
		{"sticking", a, []float64{-1, 0.1, 0}, []float64{0.5}, nil, []float64{1, -0.1 / 3.5, 0}},
		{"sliding", a, []float64{-0.0981, 2, 0}, []float64{0.2}, nil, []float64{gs, -0.2 * gs, 0}},
		// μ = 0: γ_t = 0, then γ_n = −r_n/N_nn = 0.5 although N couples n
		// and u.
		{"frictionless", [][]float64{{2, 0.5, 0}, {0.5, 3, 0}, {0, 0, 3}}, []float64{-1, 0.7, -0.3}, []float64{0}, nil, []float64{0.5, 0, 0}},
		// Cohesion c = 0.4 holds the pull: γ = −N⁻¹r = (−0.2, −0.05/3.5, 0)
		// inside ‖γ_t‖ ≤ μ(γ_n + c) = 0.1.
		{"cohesive-kept", a, []float64{0.2, 0.05, 0}, []float64{0.5}, []float64{0.4}, []float64{-0.2, -0.05 / 3.5, 0}},
		// The pull exceeds the cohesion: γ_n is capped at −c, the apex; there
		// g = (0.6, 0.3, 0), μ‖g_t‖ = 0.15 ≤ g_n, −g in the polar cone.
		{"cohesive-capped", a, []float64{1, 0.3, 0}, []float64{0.5}, []float64{0.4}, []float64{-0.4, 0, 0}},
		// The bodies separate: at γ = 0, μ‖r_t‖ = 0.18 ≤ r_n = 0.5.
		{"separating", a, []float64{0.5, 0.3, -0.2}, []float64{0.5}, nil, []float64{0, 0, 0}},
		// Frictionless and separating, with cohesion: γ_n = −c.
		{"frictionless-capped", a, []float64{1, 0.3, 0}, []float64{0}, []float64{0.25}, []float64{-0.25, 0, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := matrixProblem(t, c.n, c.r, c.mu, c.coh)
			// 1e-10: above the rounding floor of r for one contact with
			// |γ| ≤ 1, 2⁻⁵³/(3·g_d) ≈ 4e-11 (measured: 0 to 4e-11).
			const tol = 1e-10
			g, st := runSolver(t, "pdip", p, engine.SolveOptions{Tol: tol, MaxIter: 50, Gd: pdipGd, History: true})
			t.Logf("%d Newton iterations, r = %.3g, γ = %v", st.Iterations, st.Residual, g)
			// 1e-12: interior iterates, projected once (a few ulps).
			pdipCheck(t, p, g, st, 1e-12)
			if !st.Converged {
				t.Fatalf("not converged in %d iterations: r = %g", st.Iterations, st.Residual)
			}
			for k := range c.want {
				// ‖γ − γ*‖ ≤ (1 + g_d L)·3n_c·r/λ_min(N) (projected
				// gradient bound; λ_min ≥ 1, L ≤ 3.5): 3e-10; 1e-9.
				if math.Abs(g[k]-c.want[k]) > 1e-9 {
					t.Fatalf("γ = %v, want %v", g, c.want)
				}
			}
		})
	}
}

// TestPdipRedundant: two identical contacts, N = [[A, A], [A, A]] singular;
// f depends only on Γ = γ₁ + γ₂, which must be the single contact's optimum
// (sticking: Γ = −A⁻¹r₁ inside the cone, f = ½r₁ᵀΓ) however the load is
// split.
func TestPdipRedundant(t *testing.T) {
	for _, mu := range []float64{0.5, 0} {
		n := [][]float64{
			{1, 0, 0, 1, 0, 0}, {0, 3.5, 0, 0, 3.5, 0}, {0, 0, 3.5, 0, 0, 3.5},
			{1, 0, 0, 1, 0, 0}, {0, 3.5, 0, 0, 3.5, 0}, {0, 0, 3.5, 0, 0, 3.5},
		}
		r := []float64{-1, 0.1, 0, -1, 0.1, 0}
		total, f := []float64{1, -0.1 / 3.5, 0}, -0.5*(1+0.01/3.5)
		if mu == 0 {
			total, f = []float64{1, 0, 0}, -0.5
		}
		p := matrixProblem(t, n, r, []float64{mu, mu}, nil)
		g, st := runSolver(t, "pdip", p, engine.SolveOptions{Tol: 1e-10, MaxIter: 50, Gd: pdipGd, History: true})
		t.Logf("μ = %g: %d Newton iterations, r = %.3g, γ = %v", mu, st.Iterations, st.Residual, g)
		pdipCheck(t, p, g, st, 1e-12)
		if !st.Converged {
			t.Fatalf("μ = %g: not converged in %d iterations: r = %g", mu, st.Iterations, st.Residual)
		}
		for k := range 3 {
			// The bound of TestPdipSingleContact on Γ, whose problem has
			// λ_min = 1: 1e-9.
			if math.Abs(g[k]+g[3+k]-total[k]) > 1e-9 {
				t.Fatalf("μ = %g: γ₁ + γ₂ = %v, want %v (γ = %v)", mu, []float64{g[0] + g[3], g[1] + g[4], g[2] + g[5]}, total, g)
			}
		}
		// f − f* ≤ g_d‖∇f‖‖G‖ + ‖G‖(‖Γ − Γ*‖ + g_d‖G‖) with ‖G‖ = 6r ≤ 6e-10
		// and ‖∇f‖ ≤ 2: below 1e-18, plus the rounding of f (1e-16).
		if got := engine.Objective(p, pdipVec(p, g)); math.Abs(got-f) > 1e-14 {
			t.Errorf("μ = %g: f = %.17g, want %.17g", mu, got, f)
		}
		// Both contacts carry load: the barrier splits it (evenly, by
		// symmetry), it does not put it all on one.
		if !(g[0] > 0.25 && g[3] > 0.25) {
			t.Errorf("μ = %g: γ_n = %g, %g: the load is not shared", mu, g[0], g[3])
		}
	}
}

func pdipVec(p engine.Problem, g []float64) engine.Vec {
	v := p.NewVec(len(g))
	p.Write(v, g)
	return v
}

// pdipRandom is randomProblem with about a fifth of the contacts
// frictionless (μ = 0), which PDIP treats apart; it returns N too.
func pdipRandom(t testing.TB, rng *rand.Rand, nc, cols int, eps float64) (*cpuref.MatrixProblem, [][]float64) {
	t.Helper()
	return randomCCP(t, rng, nc, cols, eps, true)
}

// pdipObjectiveBound bounds f(γ) − f* from the projected gradient
// G = (γ − Π(γ − t∇f))/t, ‖G‖ = ProjGrad, t = g_d: by convexity and the
// variational inequality of the projection,
//
//	f(γ) − f* ≤ ⟨∇f, γ − γ*⟩ ≤ t‖∇f‖‖G‖ + ‖G‖(‖γ − γ*‖ + t‖G‖),
//
// and ‖γ − γ*‖ ≤ (1 + tL)‖G‖/λ_min for f λ_min-strongly convex and L-smooth.
func pdipObjectiveBound(p engine.Problem, g []float64, st engine.SolveStats, lmin, lmax float64) float64 {
	v := pdipVec(p, g)
	grad := p.NewVec(len(g))
	p.Schur(grad, v)
	p.Axpby(grad, 1, grad, 1, p.R())
	gn := math.Sqrt(p.Dot(grad, grad))
	G := st.ProjGrad
	return pdipGd*gn*G + G*((1+pdipGd*lmax)*G/lmin+pdipGd*G)
}

// TestPdipRandom: on random SPD problems with 5–30 contacts and mixed μ
// (frictionless ones included), asked for r < 1e-10 with 50 Newton
// iterations, PDIP ends below 1e-10, or below twice the rounding floor of r
// where that is higher, at the objective of APGD run to r < 1e-12.
//
// Two families: "full", B square and ε = 0.1 (λ_min(N) ≥ 0.1, κ(N) ≲ 60),
// and "rank-deficient", B with 3n_c/2 columns (more contact rows than
// degrees of freedom, as in a packing) and ε = 0.01 (κ(N) ≈ 500), whose
// solutions reach |γ| ≈ 100.
func TestPdipRandom(t *testing.T) {
	// Measured: r < 1e-10 after at most 27 Newton iterations on every
	// "full" trial and 6 of the 8 "rank-deficient" ones (at most 30); the
	// other two, whose floor is 4e-10, end at 1.6e-10 and 1.4e-10 (39 and
	// 50 iterations).
	const budget = 50
	for _, fam := range []struct {
		name string
		cols func(n int) int
		eps  float64
	}{{"full", func(n int) int { return n }, 0.1}, {"rank-deficient", func(n int) int { return n / 2 }, 0.01}} {
		t.Run(fam.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 8))
			for trial := range 8 {
				nc := 5 + rng.IntN(26)
				p, m := pdipRandom(t, rng, nc, fam.cols(3*nc), fam.eps)
				ga, ref := runSolver(t, "apgd", p, engine.SolveOptions{Tol: 1e-12, MaxIter: 20000, Gd: pdipGd})
				// The rounding floor of r: γ − g_d(Nγ + r) rounds each
				// component by up to half an ulp, which eq. 25 divides by
				// 3n_c g_d: 2⁻⁵³‖γ‖/(3n_c g_d), 2e-11 to 2e-9 here.
				norm := 0.0
				for _, v := range ga {
					norm += v * v
				}
				tol := math.Max(1e-10, 2*0x1p-53*math.Sqrt(norm)/(float64(len(ga))*pdipGd))
				g, st := runSolver(t, "pdip", p, engine.SolveOptions{Tol: 1e-10, MaxIter: budget, Gd: pdipGd, History: true})
				t.Logf("trial %d (n_c = %d): %d Newton iterations, r = %.3g (< %.3g), f = %.15g (apgd: %d iterations, r = %.3g, f = %.15g)",
					trial, nc, st.Iterations, st.Residual, tol, st.Objective, ref.Iterations, ref.Residual, ref.Objective)
				pdipCheck(t, p, g, st, 1e-12)
				if !(st.Residual < tol) {
					t.Errorf("trial %d: r = %g ≥ %g after %d Newton iterations", trial, st.Residual, tol, st.Iterations)
				}
				// |f − f_apgd| is at most the larger of the two bounds
				// (both are ≥ f*), with λ_min ≥ ε and L ≤ the largest row
				// sum of |N|; plus the rounding of f, 1e-14·|f|.
				lmax := 0.0
				for _, row := range m {
					s := 0.0
					for _, v := range row {
						s += math.Abs(v)
					}
					lmax = math.Max(lmax, s)
				}
				bound := math.Max(pdipObjectiveBound(p, g, st, fam.eps, lmax), pdipObjectiveBound(p, ga, ref, fam.eps, lmax)) + 1e-14*math.Max(1, math.Abs(ref.Objective))
				if d := math.Abs(st.Objective - ref.Objective); d > bound {
					t.Errorf("trial %d: f = %.15g, apgd: %.15g, |Δf| = %.3g > bound %.3g", trial, st.Objective, ref.Objective, d, bound)
				}
			}
		})
	}
}

// TestPdipBadlyScaled: N·s_N and r·s_r (other mass and velocity units)
// have the solution γ*·s_r/s_N and, with s_r² = s_N, the same objective.
// PDIP scales the problem by the mean block diagonal and ‖r‖_∞ before
// solving, so it takes much the same Newton steps at every scale.
func TestPdipBadlyScaled(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const eps = 0.1
	p, m := pdipRandom(t, rng, 12, 36, eps)
	n := len(m)
	r := make([]float64, n)
	p.Read(r, p.R())
	mu, coh := make([]float64, 12), make([]float64, 12)
	p.Cones(mu, coh)
	lmax := 0.0 // L ≤ the largest row sum of |N|
	for _, row := range m {
		s := 0.0
		for _, v := range row {
			s += math.Abs(v)
		}
		lmax = math.Max(lmax, s)
	}
	g, st := runSolver(t, "pdip", p, engine.SolveOptions{Tol: 1e-10, MaxIter: 50, Gd: pdipGd})
	if !st.Converged {
		t.Fatalf("unscaled: r = %g after %d Newton iterations", st.Residual, st.Iterations)
	}
	// The distance bound of TestPdipSingleContact: ‖γ − γ*‖ ≤
	// (1 + g_d L)·ProjGrad/λ_min, in the units of each problem.
	dist := (1 + pdipGd*lmax) * st.ProjGrad / eps
	norm := 0.0
	for _, v := range g {
		norm += v * v
	}
	for _, sc := range []struct{ n, r float64 }{{1e6, 1e3}, {1e-4, 1e-2}, {1e2, 1e1}} {
		ms := make([][]float64, n)
		rs := make([]float64, n)
		for i := range m {
			ms[i] = make([]float64, n)
			for j := range m[i] {
				ms[i][j] = sc.n * m[i][j]
			}
			rs[i] = sc.r * r[i]
		}
		cs := make([]float64, len(coh))
		for i := range coh {
			cs[i] = sc.r / sc.n * coh[i]
		}
		ps := matrixProblem(t, ms, rs, mu, cs)
		// The rounding floor of r (see TestPdipRandom) for |γ| scaled by
		// s_r/s_N: 1e-9 at s_N = 1e-4; 4× for margin.
		tol := math.Max(1e-10, 4*0x1p-53*math.Sqrt(norm)*sc.r/sc.n/(float64(n)*pdipGd))
		gs, sts := runSolver(t, "pdip", ps, engine.SolveOptions{Tol: tol, MaxIter: 50, Gd: pdipGd})
		t.Logf("N·%g, r·%g: %d Newton iterations (unscaled %d), r = %.3g < %.3g, f = %.15g (unscaled %.15g)",
			sc.n, sc.r, sts.Iterations, st.Iterations, sts.Residual, tol, sts.Objective, st.Objective)
		pdipCheck(t, ps, gs, sts, 1e-12*sc.r/sc.n)
		if !sts.Converged {
			t.Fatalf("N·%g, r·%g: r = %g after %d Newton iterations", sc.n, sc.r, sts.Residual, sts.Iterations)
		}
		// Both objectives are within their bounds of f* (see
		// pdipObjectiveBound; the scaled problem has λ_min·s_N and L·s_N),
		// plus the rounding of f (1e-14·|f|).
		bound := math.Max(pdipObjectiveBound(p, g, st, eps, lmax), pdipObjectiveBound(ps, gs, sts, eps*sc.n, lmax*sc.n)) + 1e-14*math.Abs(st.Objective)
		if d := math.Abs(sts.Objective - st.Objective); d > bound {
			t.Errorf("N·%g, r·%g: f = %.15g, unscaled %.15g: |Δf| = %.3g > %.3g", sc.n, sc.r, sts.Objective, st.Objective, d, bound)
		}
		ds := (1 + pdipGd*lmax*sc.n) * sts.ProjGrad / (eps * sc.n) * sc.n / sc.r // in unscaled units
		for k := range g {
			if d := math.Abs(sc.n/sc.r*gs[k] - g[k]); d > dist+ds {
				t.Fatalf("N·%g, r·%g: γ[%d]·s_N/s_r = %g, unscaled %g: |Δγ| = %.3g > %.3g", sc.n, sc.r, k, sc.n/sc.r*gs[k], g[k], d, dist+ds)
			}
		}
	}
}

// TestPdipNonsymmetric: N = BBᵀ + εI + S with S skew-symmetric, as the W
// of a θ-method with θ ≠ ½ (FCLib's Capsules problem). The cone
// complementarity problem is then a variational inequality with a strongly
// monotone operator (the symmetric part of N is BBᵀ + εI), whose solution
// is unique and where r of eq. 25 is zero. Conjugate gradients do not apply
// to the non-symmetric Newton systems; PDIP detects the asymmetry and uses
// BiCGSTAB. Measured: r < 1e-10 in 12 to 27 Newton iterations on every
// trial; with PCG forced on these problems all six stall at r ≈ 0.2–0.4.
func TestPdipNonsymmetric(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for trial := range 6 {
		nc := 5 + rng.IntN(16)
		_, m := pdipRandom(t, rng, nc, 3*nc, 0.1)
		n := len(m)
		// S with entries of the order of BBᵀ's off-diagonal ones (about
		// 1/√n), so that ‖N − Nᵀ‖ is comparable to ‖N‖.
		for i := range n {
			for j := range i {
				v := rng.NormFloat64() / math.Sqrt(float64(n))
				m[i][j] += v
				m[j][i] -= v
			}
		}
		r := randomR(rng, n)
		mu, coh := make([]float64, nc), make([]float64, nc)
		for i := range mu {
			mu[i] = 0.1 + 0.9*rng.Float64()
		}
		p := matrixProblem(t, m, r, mu, coh)
		g, st := runSolver(t, "pdip", p, engine.SolveOptions{Tol: 1e-10, MaxIter: 50, Gd: pdipGd, History: true})
		t.Logf("trial %d (n_c = %d): %d Newton iterations, r = %.3g", trial, nc, st.Iterations, st.Residual)
		pdipCheck(t, p, g, st, 1e-12)
		// The rounding floor of r is 2⁻⁵³‖γ‖/(3n_c g_d) (see
		// TestPdipRandom): below 1e-11 for these |γ| ≲ 10.
		if !st.Converged {
			t.Errorf("trial %d: r = %g ≥ 1e-10 after %d Newton iterations", trial, st.Residual, st.Iterations)
		}
	}
}

// TestPdipMaxIter: a run cut short returns a feasible point with the
// residual and objective of that point.
func TestPdipMaxIter(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	p, _ := pdipRandom(t, rng, 10, 30, 0.1)
	for _, it := range []int{0, 1, 3} {
		g, st := runSolver(t, "pdip", p, engine.SolveOptions{Tol: 1e-10, MaxIter: it, Gd: pdipGd, History: true})
		if st.Iterations != it || st.Converged {
			t.Errorf("MaxIter %d: %d iterations, converged %v", it, st.Iterations, st.Converged)
		}
		pdipCheck(t, p, g, st, 1e-12)
	}
}

// TestPdipErrors: bad input and NaN during the solve give errors, not
// panics or NaN results.
func TestPdipErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	mp, _ := pdipRandom(t, rng, 6, 18, 0.1)
	s, _ := engine.NewSolver("pdip")
	for _, after := range []int{0, 1, 2, 5, 20} {
		p := &nanSchur{Problem: mp, after: after}
		if _, err := s.Solve(p, p.NewVec(18), engine.SolveOptions{Tol: 1e-10, MaxIter: 50, Gd: pdipGd}); err == nil || !strings.HasPrefix(err.Error(), "pdip: ") {
			t.Errorf("NaN after %d products: error %v", after, err)
		}
	}
	if _, err := s.Solve(mp, mp.NewVec(17), engine.SolveOptions{MaxIter: 5, Gd: pdipGd}); err == nil {
		t.Error("gamma of the wrong length: no error")
	}
	if _, err := s.Solve(mp, mp.NewVec(18), engine.SolveOptions{MaxIter: 5}); err == nil {
		t.Error("g_d = 0: no error")
	}
	empty, err := cpuref.NewMatrixProblem(0, nil, nil, nil, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := s.Solve(empty, empty.NewVec(0), engine.SolveOptions{MaxIter: 5, Gd: pdipGd}); err != nil || st.Iterations != 0 {
		t.Errorf("no contacts: %+v, %v", st, err)
	}
}

// TestPdipDegenerate: a problem whose solution has a degenerate contact
// (γ* = 0 and u* = Nγ* + r = 0 at once: strict complementarity fails),
// beside a sticking, a sliding and a separating one. An interior iterate
// approaches such a contact only as the square root of the duality gap;
// without the crossover pdip stalled here at r = 1.1e-10 after 82
// iterations (measured), FCLib's NESpheres_30_1 at 2.3e-7; with it one
// Newton step of the crossover reaches 1.3e-17. The solution is built
// first and r made from it, so γ* is known exactly (N is positive
// definite: it is the only one).
func TestPdipDegenerate(t *testing.T) {
	const mu = 0.5
	rng := rand.New(rand.NewPCG(11, 12))
	n := 12
	b := make([][]float64, n)
	for i := range b {
		b[i] = make([]float64, n)
		for j := range b[i] {
			b[i][j] = rng.NormFloat64()
		}
	}
	nm := make([][]float64, n)
	for i := range nm {
		nm[i] = make([]float64, n)
		for j := range nm[i] {
			for k := range n {
				nm[i][j] += b[i][k] * b[j][k] / float64(n)
			}
		}
		nm[i][i] += 0.1
	}
	gamma := []float64{1, 0.1, -0.1, 0, 0, 0, 1, mu, 0, 0, 0, 0} // sticking, degenerate, sliding, separating
	u := []float64{0, 0, 0, 0, 0, 0, mu, -1, 0, 1, 0.1, 0}       // u on K*'s surface normal to the sliding γ; inside K* where separating
	r := make([]float64, n)
	for i := range n {
		r[i] = u[i]
		for j := range n {
			r[i] -= nm[i][j] * gamma[j]
		}
	}
	p := matrixProblem(t, nm, r, []float64{mu, mu, mu, mu}, nil)
	const tol = 1e-12
	g, st := runSolver(t, "pdip", p, engine.SolveOptions{Tol: tol, MaxIter: 100, Gd: pdipGd, History: true})
	t.Logf("%d iterations, r = %.3g, γ = %v", st.Iterations, st.Residual, g)
	pdipCheck(t, p, g, st, 1e-12)
	if !st.Converged {
		t.Fatalf("not converged in %d iterations: r = %g", st.Iterations, st.Residual)
	}
	for k := range gamma {
		// ‖γ − γ*‖ ≤ (1 + g_d L)·n·r/λ_min(N) (projected gradient bound,
		// λ_min ≥ 0.1, L ≲ 5): 1.2e-10; 1e-9.
		if math.Abs(g[k]-gamma[k]) > 1e-9 {
			t.Fatalf("γ = %v, want %v", g, gamma)
		}
	}
}
