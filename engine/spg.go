package engine

import (
	"fmt"
	"math"
)

// SPG is the preconditioned spectral projected gradient method with
// fall-back, P-SPG-FB of the SPG paper (Tasora, "Efficient simulation of
// contacts, friction and constraints using a modified spectral projected
// gradient method"). Its listing, with A = N, b = r, H the product of the
// cones and the lines numbered here from the first:
//
//	 1  x₀ := Π(x₀), x_FB = x₀
//	 2  α̂₀ ∈ [α_min, α_max]
//	 3  g₀ := Ax₀ + b, f(x₀), w₀ = 10²⁹
//	 4  for j := 0 to N_max
//	 5    p_j = P⁻¹g_j
//	 6    d_j = Π(x_j − α̂_j p_j) − x_j
//	 7    if ⟨d_j, g_j⟩ ≥ 0
//	 8      d_j = Π(x_j − α̂_j g_j) − x_j
//	 9    λ := 1
//	10    while line search
//	11      x_{j+1} := x_j + λd_j
//	12      g_{j+1} := Ax_{j+1} + b
//	13      f(x_{j+1})
//	14      if f(x_{j+1}) > max_{i=0…min(j,N_GLL)} f(x_{j−i}) + γλ⟨d_j, g_j⟩
//	15        λ_new ∈ [σ_min λ, σ_max λ], repeat the line search
//	16      else terminate the line search
//	17    s_j = x_{j+1} − x_j, y_j = g_{j+1} − g_j
//	18    if j is odd: α̂_{j+1} = ⟨s_j, Ps_j⟩/⟨s_j, y_j⟩         (BB1, eq. 10)
//	19    else:        α̂_{j+1} = ⟨s_j, y_j⟩/⟨y_j, P⁻¹y_j⟩       (BB2, eq. 11)
//	20    α̂_{j+1} = min(α_max, max(α_min, α̂_{j+1}))
//	21    w_{j+1} = ‖(x_{j+1} − Π(x_{j+1} − τ_g g_{j+1}))/τ_g‖
//	22    if w_{j+1} ≤ min_{k≤j} w_k: x_FB = x_{j+1}
//	23  return x_FB
//
// P is the paper's "diagonal preconditioner where the diagonal elements
// relative to the same sub-set are averaged": the diagonal of N averaged
// over each contact's three rows, g_i = tr(N_ii)/3, exactly BlockDiag (eq.
// 27 of the APGD paper). Because P is a multiple of the identity on each
// contact, the Euclidean projection is also the projection in the P-norm,
// so the preconditioned direction of line 6 is always a descent direction
// (⟨d_j, g_j⟩ ≤ −‖d_j‖²_P/α̂_j) and line 8 acts only where d_j = 0.
//
// Parameters: α_min = 10⁻⁹ and α_max = 10⁹ (the paper's tests), N_GLL = 10
// (the paper: "about 10 works well"; the maximum of line 14 then runs over
// up to 11 values), γ = 10⁻⁴, σ_min = 0.1 and σ_max = 0.9 (the values of
// the paper's reference [BMR99] for its SPG2, and of Chrono's ChSolverBB),
// α̂₀ = 1: with P = diag(g_i), α̂ = 1 is the step of a Jacobi iteration with
// ω = 1, the natural scale of the preconditioned problem.
//
// Choices the listing leaves open, or where this code departs from it:
//   - λ_new (line 15) is the minimiser of the quadratic through f(x_j),
//     its slope ⟨d_j, g_j⟩ and f(x_j + λd_j), clipped to
//     [σ_min λ, σ_max λ] ([BMR99]); f being quadratic, that is the exact
//     minimiser along d_j whenever it lies in the interval.
//   - ⟨s_j, y_j⟩ ≤ 0 (no curvature along s_j: s_j = 0, or s_j in the null
//     space of a singular N) gives α̂_{j+1} = α_max ([BMR99]) instead of
//     dividing by it.
//   - w is r of eq. 25, that is line 21 with τ_g = g_d divided by 3n_c (the
//     same order), and w₀ is r(x₀) rather than 10²⁹, so that a warm start
//     better than every iterate is returned (g₀ is at hand: no product).
//   - The iteration stops when r < opt.Tol (the listing runs N_max
//     iterations), including at x₀ (zero iterations), and when a line
//     search fails to satisfy line 14 after spgMaxBacktrack reductions of
//     λ: x_FB is returned without error. With Schur consistent with the
//     objective, d_j descends and a small enough λ passes (or x_j + λd_j
//     rounds to x_j, which passes too); the bound is for problems that
//     break that (a non-symmetric N, a biased product).
//
// Rolling rows (RollingRows) run through Project and Schur like the rest,
// but their projection, Project Chrono's (γ_n held while the rolling
// block is clamped), is not the Euclidean projection onto the composite
// cone, so its fixed points are not minimisers of the objective over that
// cone: the line search of line 14 keeps SPG from reaching them, the
// residual stalls above a tight tolerance, and SPG returns x_FB at
// MaxIter. The fall-back iterate is close at tight tolerances (the rolling
// ball of cpuref's TestRollingFrictionBallStops stops at the analytic
// time with 50 iterations and tolerance 1e-12) and drifts towards the
// relaxed solution at loose ones; apgd, gs and jacobi converge on such
// problems.
//
// Cost per iteration: one product with N per trial of the line search (one
// when the first trial is accepted); the residual and the objective reuse
// it.
//
// It keeps its work vectors from solve to solve (see ReuseVec), so an SPG
// must not run two solves at once.
type SPG struct {
	work [11]Vec // diag, inv, x, xNew, g, gNew, nx, d, y, tmp, best
}

// Parameters of P-SPG-FB (see SPG).
const (
	spgAlphaMin = 1e-9
	spgAlphaMax = 1e9
	spgAlpha0   = 1.0
	spgGLL      = 10
	spgGamma    = 1e-4
	spgSigmaMin = 0.1
	spgSigmaMax = 0.9
	// spgMaxBacktrack bounds the reductions of λ in one line search. Each
	// multiplies λ by at most σ_max, so 100 of them leave λ < 0.9^100 ≈
	// 3·10⁻⁵; with a quadratic f the interpolation of line 15 typically
	// ends the search in one or two.
	spgMaxBacktrack = 100
)

// Name returns "spg".
func (*SPG) Name() string { return "spg" }

// Solve runs P-SPG-FB from the guess in gamma and leaves x_FB there.
func (s *SPG) Solve(p Problem, gamma Vec, opt SolveOptions) (SolveStats, error) {
	var st SolveStats
	n, err := solveRows(s.Name(), p, gamma, opt)
	if n == 0 || err != nil {
		return st, err
	}
	r := p.R()
	ws := &s.work
	ws[0], ws[1] = ReuseVec(p, ws[0], n), ReuseVec(p, ws[1], n)
	diag := ws[0] // P = diag(g_i)
	inv := ws[1]  // P⁻¹
	if err := blockDiag(s.Name(), p, diag, inv); err != nil {
		return st, err
	}
	if d, ok := p.(DeviceSPG); ok && deviceTakes(p) {
		// The backend runs the same iterations on the device.
		return d.SolveSPG(gamma, diag, inv, opt)
	}
	for i := 2; i < len(ws); i++ {
		ws[i] = ReuseVec(p, ws[i], n)
	}
	x := ws[2]     // x_j
	xNew := ws[3]  // x_{j+1}
	g := ws[4]     // g_j
	gNew := ws[5]  // g_{j+1}
	nx := ws[6]    // N x_{j+1} (N x₀ at first)
	d := ws[7]     // d_j
	y := ws[8]     // p_j, then y_j
	tmp := ws[9]   // scratch
	best := ws[10] // x_FB

	// Lines 1–3.
	p.Project(x, gamma)
	p.Copy(best, x)
	p.Schur(nx, x)
	p.Axpby(g, 1, nx, 1, r)
	wMin, f, err := progress(s.Name(), p, x, nx, tmp, opt.Gd, 0)
	if err != nil {
		return st, err
	}
	fBest := f
	alpha := spgAlpha0
	// fHist holds f(x_{j−i}), i = 0…N_GLL, for the maximum of line 14.
	var fHist [spgGLL + 1]float64
	fHist[0] = f
	nHist := 1

	for j := 0; j < opt.MaxIter && wMin >= opt.Tol; j++ {
		// Lines 5–6.
		p.MulElem(y, inv, g)
		p.Axpby(d, 1, x, -alpha, y)
		p.Project(d, d)
		p.Axpby(d, 1, d, -1, x)
		dg := p.Dot(d, g)
		// Lines 7–8.
		if dg >= 0 {
			p.Axpby(d, 1, x, -alpha, g)
			p.Project(d, d)
			p.Axpby(d, 1, d, -1, x)
			dg = p.Dot(d, g)
		}
		fMax := fHist[0]
		for _, v := range fHist[1:nHist] {
			fMax = math.Max(fMax, v)
		}
		// Lines 9–16.
		lambda := 1.0
		var fNew float64
		stalled := false
		for bt := 0; ; bt++ {
			p.Axpby(xNew, 1, x, lambda, d)
			p.Schur(nx, xNew)
			fNew = 0.5*p.Dot(xNew, nx) + p.Dot(r, xNew)
			if math.IsNaN(fNew) || math.IsInf(fNew, 0) {
				return st, fmt.Errorf("%s: objective %v at iteration %d: N or r is not finite", s.Name(), fNew, j+1)
			}
			if fNew <= fMax+spgGamma*lambda*dg {
				break
			}
			if bt == spgMaxBacktrack {
				stalled = true
				break
			}
			// Line 15: the minimiser of the quadratic interpolant,
			// −½λ²⟨d,g⟩/den with den = ½λ²d_jᵀNd_j > 0 for a convex f;
			// clipped to [σ_min λ, σ_max λ], and σ_max λ if den ≤ 0.
			next := spgSigmaMax * lambda
			if den := fNew - f - lambda*dg; den > 0 {
				next = math.Min(next, math.Max(spgSigmaMin*lambda, -0.5*lambda*lambda*dg/den))
			}
			lambda = next
		}
		if stalled {
			break
		}
		p.Axpby(gNew, 1, nx, 1, r)
		step := lambda * alpha // the step taken along −p_j (or −g_j)
		// Lines 17–20, with s_j = λd_j.
		p.Axpby(y, 1, gNew, -1, g)
		sy := lambda * p.Dot(d, y)
		switch {
		case !(sy > 0):
			alpha = spgAlphaMax
		case j%2 == 1:
			p.MulElem(tmp, d, d)
			alpha = lambda * lambda * p.Dot(tmp, diag) / sy
		default:
			p.MulElem(tmp, y, y)
			alpha = sy / p.Dot(tmp, inv)
		}
		alpha = math.Min(spgAlphaMax, math.Max(spgAlphaMin, alpha))
		x, xNew = xNew, x
		g, gNew = gNew, g
		f = fNew
		copy(fHist[1:], fHist[:spgGLL])
		fHist[0] = f
		nHist = min(nHist+1, len(fHist))
		// Lines 21–22.
		w := residual(p, x, nx, r, tmp, opt.Gd)
		if math.IsNaN(w) || math.IsInf(w, 0) {
			return st, fmt.Errorf("%s: residual %v at iteration %d: N or r is not finite", s.Name(), w, j+1)
		}
		if w <= wMin {
			wMin = w
			fBest = f
			p.Copy(best, x)
		}
		st.Iterations = j + 1
		st.Record(opt, IterRecord{Iter: j + 1, Residual: w, Objective: f, Step: step})
	}
	// Line 23.
	p.Copy(gamma, best)
	finish(&st, wMin, fBest, n, opt.Tol)
	return st, nil
}
