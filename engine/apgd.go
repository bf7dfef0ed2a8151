package engine

import (
	"fmt"
	"math"
)

// APGD is the accelerated projected gradient descent of Algorithm 1 of the
// APGD paper: Nesterov's method with an adaptive step size (the Lipschitz
// estimate L grows ×2 until the quadratic upper bound holds and shrinks
// ×0.9 after each iteration, though not below the curvature that the last
// rejected trial needed: APGDNextL), an adaptive restart when
// gᵀ(γ_{k+1} − γ_k) > 0,
// and a fall-back to the iterate of smallest residual r (eq. 25).
//
// With AntiRelax set it is the algorithm of section 2.3 of the
// anti-relaxation paper: after each iteration r is reset to r₀ plus
// μ_i‖u_i,T‖ on each normal row, with u = Nγ_{k+1} + r₀ the contact
// velocities Dᵀv of v = M⁻¹(k + Dγ_{k+1}) (since b has no tangential part),
// which removes the relaxation of eq. 10 and solves the De Saxcé problem.
// Its Residual is eq. 25 with the anti-relaxed r of the returned γ.
//
// Cost per iteration: one product with N, at the trial γ_{k+1} (reused by
// the line search, the residual and the anti-relaxation term), plus one per
// step-size halving. N y_k is not taken as a product: y_k is a combination
// of γ_k and γ_{k−1} (or γ_k after a restart), so N y_k is the same
// combination of Nγ_k and Nγ_{k−1}, which the iterations before computed.
// Each Nγ is a fresh product, so the two ways differ by a rounding of the
// combination and no error accumulates from iteration to iteration (the
// paper's listing takes both products: twice the work for the same
// iterates up to rounding).
//
// It keeps its work vectors from solve to solve (see ReuseVec), so an APGD
// must not run two solves at once.
type APGD struct {
	AntiRelax bool

	// paperStep runs Algorithm 1's step-size rule as the paper lists it
	// (no memory of rejected trials: APGDNextL with rej = 0) in this
	// type's own loop (not a DeviceAPGD's), for the test that compares
	// the two rules on FCLib's matrices (export_test.go).
	paperStep bool

	work [12]Vec // g, x, xNew, y, best, ny, nxNew, tmp, dn, nx; r, u (anti-relaxation)
}

// Name returns "apgd" or "apgd-ar".
func (a *APGD) Name() string {
	if a.AntiRelax {
		return "apgd-ar"
	}
	return "apgd"
}

// apgdFloor is the ratio of the floor under the Lipschitz estimate L to the
// first estimate L₀: ε = 2⁻⁵², float64's machine epsilon. Lines 28–29 of
// Algorithm 1 shrink L by 0.9 after every iteration and only the line
// search raises it again, so where the search never fails (a separating
// contact: γ_{k+1} = y_k = 0, Δ = 0) L falls geometrically; from L₀ = 1,
// 1/L overflows to Inf at iteration 6737 and y − t·g becomes NaN. The floor
// εL₀ is where L stops carrying information: ΔᵀNΔ is computed with an
// error of order ε‖N‖‖Δ‖², and L₀ = ‖N(γ₀ − 1)‖/‖γ₀ − 1‖ ≤ ‖N‖, so the line
// search test ΔᵀNΔ > L‖Δ‖² cannot tell curvatures below εL₀ from rounding.
// It keeps the step t = 1/L at most 1/ε times the first step 1/L₀ (finite
// whenever 1/L₀ is below 2⁻⁵² times float64's largest value). L is at least
// L₀·0.9ᵏ after k iterations, and 0.9ᵏ ≥ ε for k ≤ 342, so a solve of at
// most 343 iterations never meets the floor; in a longer one whose iterates
// move, the line search holds L near the curvature along them.
const apgdFloor = 0x1p-52

// APGDReject returns the Lipschitz estimate after a rejected line-search
// trial and its step 1/L: lines 10–12 of Algorithm 1, 2·L. It also returns
// the curvature that the trial needed, rej = ΔᵀNΔ/‖Δ‖² (> L), which
// APGDNextL keeps L above; where that ratio is not finite (‖Δ‖² = 0, NaN)
// the last one stays.
func APGDReject(L, rej, dNd, dd float64) (float64, float64, float64) {
	if q := dNd / dd; q < math.Inf(1) {
		rej = q
	}
	L *= 2
	return L, 1 / L, rej
}

// APGDNextL returns the Lipschitz estimate of APGD's next iteration, its
// step 1/L and the curvature memory rej of APGDReject aged by one
// iteration. Lines 28–29 of Algorithm 1 shrink L to 0.9·L after every
// iteration; here L shrinks so, but not below 1.1·rej, the curvature the
// last rejected trial needed with a tenth to spare, and never grows:
//
//	L' = max(0.9·L, min(1.1·rej, L)), at least lmin = εL₀ (apgdFloor);
//	rej' = 0.99·rej.
//
// Algorithm 1's rule runs L down by 0.9 per iteration until a trial fails
// and doubles it, about once in 6.6 iterations while L is steady
// (ln 2 / ln(1/0.9)), each failure a product with N more. With the memory
// a step of the settle scene at 100 iterations takes 108 products
// (BenchmarkStep's products/op) where the rule's failures alone would add
// about 15 to 102, and its residual is 1–8 % larger (docs/bench.md,
// "APGD's step size"). To tolerances 1e-6 and 1e-8 on the FCLib problems
// it takes 0.88–0.95 of the rule's products in the geometric mean over the
// problems (apgd and apgd-ar; TestAPGDStepRule, docs/solvers.md). The
// memory fades (0.99 per iteration, 0.37 over 100) so that L follows a
// curvature that falls. Until the first rejection rej is 0 and the rule
// is Algorithm 1's, bit for bit.
func APGDNextL(L, lmin, rej float64) (float64, float64, float64) {
	next := 0.9 * L
	if f := 1.1 * rej; f > next {
		next = L
		if f < L {
			next = f
		}
	}
	if next < lmin {
		next = lmin
	}
	return next, 1 / next, 0.99 * rej
}

// apgdMaxBacktrack bounds the step-size halvings of one iteration. L doubles
// each time, so 200 halvings move L by 2^200 ≈ 1e60: only a problem with
// NaN or Inf in it gets there.
const apgdMaxBacktrack = 200

// Solve runs the algorithm from the guess in gamma and leaves the best
// iterate there. A Problem that implements DeviceAPGD runs it itself
// (unless MaxIter is 0); the code below is the host's.
func (a *APGD) Solve(p Problem, gamma Vec, opt SolveOptions) (SolveStats, error) {
	n := Rows(p)
	var st SolveStats
	if n == 0 {
		return st, nil
	}
	if gamma.Len() != n {
		return st, fmt.Errorf("%s: gamma has length %d, want %d", a.Name(), gamma.Len(), n)
	}
	if d, ok := p.(DeviceAPGD); ok && opt.MaxIter > 0 && deviceTakes(p) {
		// The backend runs the same iterations on the device.
		return d.SolveAPGD(gamma, opt, a.AntiRelax)
	}
	w := a.work[:10]
	if a.AntiRelax {
		w = a.work[:]
	}
	for i := range w {
		w[i] = ReuseVec(p, w[i], n)
	}
	r0 := p.R()
	r := r0
	if a.AntiRelax {
		r = w[10]
		p.Copy(r, r0)
	}
	g := w[0]     // gradient N y + r
	x := w[1]     // γ_k
	xNew := w[2]  // γ_{k+1}
	y := w[3]     // y_k
	best := w[4]  // γ̂
	ny := w[5]    // N y_k
	nxNew := w[6] // N γ_{k+1}
	tmp := w[7]   // scratch
	dn := w[8]    // N(γ_{k+1} − y_k)
	nx := w[9]    // N γ_k
	var u Vec     // the anti-relaxation velocities
	if a.AntiRelax {
		u = w[11]
	}

	// Lines 1–5: γ̂₀ = 1, y₀ = γ₀, θ₀ = 1, L from the secant between γ₀ and γ̂₀.
	p.Project(x, gamma)
	p.Copy(y, x)
	p.Fill(best, 1)
	p.Axpby(tmp, 1, x, -1, best)
	p.Schur(g, tmp)
	st.Products = 1
	den := math.Sqrt(p.Dot(tmp, tmp))
	L := math.Sqrt(p.Dot(g, g)) / den
	if !(L > 0) || math.IsInf(L, 0) {
		// N(γ₀ − 1) = 0 (for example no coupling at all) or not finite:
		// start from unit curvature; the line search corrects it.
		L = 1
	}
	if math.IsNaN(L) {
		return st, fmt.Errorf("%s: N or γ₀ is not finite", a.Name())
	}
	lmin := L * apgdFloor
	t := 1 / L
	rej := 0.0 // the curvature the last rejected trial needed (APGDReject)
	theta := 1.0
	rmin := math.Inf(1)
	fBest := math.NaN()
	if opt.MaxIter > 0 {
		// N γ₀, and N y₀ = N γ₀.
		p.Schur(nx, x)
		p.Copy(ny, nx)
		st.Products++
	}

	for k := 0; k < opt.MaxIter; k++ {
		// Line 7: g = N y_k + r.
		p.Axpby(g, 1, ny, 1, r)
		// Line 8: γ_{k+1} = Π(y_k − t g).
		var fx float64
		for bt := 0; ; bt++ {
			p.Axpby(xNew, 1, y, -t, g)
			p.Project(xNew, xNew)
			p.Schur(nxNew, xNew)
			st.Products++
			fx = 0.5*p.Dot(xNew, nxNew) + p.Dot(r, xNew)
			// Line 9: f(γ_{k+1}) ≥ f(y_k) + gᵀΔ + ½L‖Δ‖², Δ = γ_{k+1} − y_k.
			// f is quadratic, so f(γ_{k+1}) − f(y_k) − gᵀΔ = ½ΔᵀNΔ exactly;
			// the test is taken in that form, ΔᵀNΔ = Δ·(Nγ_{k+1} − Ny_k),
			// which does not cancel large objective values near the
			// solution (where the literal form lets rounding double L
			// spuriously and stall the iteration).
			p.Axpby(tmp, 1, xNew, -1, y)
			p.Axpby(dn, 1, nxNew, -1, ny)
			dNd, dd := p.Dot(tmp, dn), p.Dot(tmp, tmp)
			if !(dNd > L*dd) {
				break
			}
			if bt == apgdMaxBacktrack {
				return st, fmt.Errorf("%s: step size search did not end at iteration %d (L = %g): N or r is not finite", a.Name(), k, L)
			}
			// Lines 10–12.
			L, t, rej = APGDReject(L, rej, dNd, dd)
		}
		if math.IsNaN(fx) {
			return st, fmt.Errorf("%s: objective is NaN at iteration %d", a.Name(), k)
		}
		// Lines 14–15.
		thetaNew := (-theta*theta + theta*math.Sqrt(theta*theta+4)) / 2
		beta := theta * (1 - theta) / (theta*theta + thetaNew)
		// Line 16: r(γ_{k+1}), eq. 25, with N γ_{k+1} already at hand.
		if a.AntiRelax {
			// Lines 33–37: r = r₀ + a(v_k), v_k = M⁻¹(k + Dγ_{k+1}),
			// taken before the residual so that convergence is judged on
			// the anti-relaxed problem of γ_{k+1}: a small residual then
			// means γ_{k+1} solves the De Saxcé problem, not only the
			// relaxed one (the algorithm's listing updates r after the
			// test, which can stop at the relaxed solution).
			p.Axpby(u, 1, nxNew, 1, r0)
			p.AntiRelax(r, u)
		}
		res := residual(p, xNew, nxNew, r, tmp, opt.Gd)
		st.Iterations = k + 1
		// Lines 17–20: keep the best iterate.
		if res < rmin {
			rmin = res
			p.Copy(best, xNew)
			fBest = fx
		}
		// Line 24: adaptive restart; else line 16: y_{k+1}, and N y_{k+1}
		// as the same combination of Nγ_{k+1} and Nγ_k.
		p.Axpby(tmp, 1, xNew, -1, x)
		restart := p.Dot(g, tmp) > 0
		if restart {
			p.Copy(y, xNew)
			p.Copy(ny, nxNew)
			thetaNew = 1
		} else {
			p.Axpby(y, 1+beta, xNew, -beta, x)
			p.Axpby(ny, 1+beta, nxNew, -beta, nx)
		}
		st.Record(opt, IterRecord{Iter: k + 1, Residual: res, Objective: fx, Step: t, Restart: restart})
		// Lines 21–23.
		if res < opt.Tol {
			break
		}
		if a.paperStep {
			rej = 0
		}
		L, t, rej = APGDNextL(L, lmin, rej)
		theta = thetaNew
		// γ_k ← γ_{k+1} and Nγ_k ← Nγ_{k+1}: the vectors trade places
		// (xNew and nxNew are overwritten by the next trial).
		x, xNew = xNew, x
		nx, nxNew = nxNew, nx
	}
	if st.Iterations == 0 {
		// MaxIter = 0: return the projected guess.
		p.Copy(best, x)
		rmin = Residual(p, x, opt.Gd)
		fBest = Objective(p, x)
		st.Products += 2
	}
	p.Copy(gamma, best)
	st.Residual = rmin
	st.ProjGrad = rmin * float64(n)
	st.Converged = rmin < opt.Tol
	st.Objective = fBest
	if a.AntiRelax {
		// Report the objective with the problem's own r, so that solvers
		// compare on the same function.
		p.Schur(tmp, best)
		st.Products++
		st.Objective = 0.5*p.Dot(best, tmp) + p.Dot(r0, best)
	}
	return st, nil
}

// residual returns r = ‖γ − Π(γ − g_d(Nγ + r))‖ / (n·g_d), n = Rows(p), eq. 25 of the
// APGD paper, given nx = Nγ. It overwrites tmp.
func residual(p Problem, x, nx, r, tmp Vec, gd float64) float64 {
	p.Axpby(tmp, 1, nx, 1, r)
	p.Axpby(tmp, 1, x, -gd, tmp)
	p.Project(tmp, tmp)
	p.Axpby(tmp, 1, x, -1, tmp)
	return math.Sqrt(p.Dot(tmp, tmp)) / (float64(x.Len()) * gd)
}

// Residual returns r of eq. 25 for γ; it costs one product with N.
func Residual(p Problem, gamma Vec, gd float64) float64 {
	n := gamma.Len()
	nx, tmp := p.NewVec(n), p.NewVec(n)
	p.Schur(nx, gamma)
	return residual(p, gamma, nx, p.R(), tmp, gd)
}

// Objective returns ½γᵀNγ + rᵀγ; it costs one product with N.
func Objective(p Problem, gamma Vec) float64 {
	nx := p.NewVec(gamma.Len())
	p.Schur(nx, gamma)
	return 0.5*p.Dot(gamma, nx) + p.Dot(p.R(), gamma)
}
