package engine

import (
	"fmt"
	"math"
)

// Jacobi is the projected Jacobi method: Algorithm 2 of the APGD paper
// without the immediate update of its line 6, so that every contact sees
// the previous iterate and one iteration is
//
//	γ_{k+1} = λ Π(γ_k − ω B (Nγ_k + r)) + (1 − λ) γ_k,
//
// with B = diag(1/g_i) the block preconditioner of eq. 27 (g_i = tr(N_ii)/3
// on the three rows of contact i). It uses only Schur, Project and vector
// algebra, so it runs wherever the problem does, in parallel. It returns
// the last iterate, as Algorithm 2 does (line 13).
//
// Convergence. The fixed-point paper (Tasora, "An iterative fixed-point
// method for solving large complementarity problems in multibody systems")
// writes this iteration as γ^{r+1} = f₊(γ^r − B'(Nγ^r + r)) (its eq. 3, ω
// folded into the diagonal B' = ωB), asks that the spectral radius of B'N
// lie in (0, 1), and proves the map a contraction (Theorem 2.1) whose fixed
// point (eq. 5) solves the complementarity problem (Theorem 2.2); its proof
// needs N positive definite. Here: ω ρ(BN) < 1. A sharper bound holds
// because B is a multiple of the identity on each contact: in the units
// x = B^{-1/2}γ the cones are only rescaled, Π commutes with the change of
// units, and one iteration with λ = 1 is a projected gradient step of
// length ω on a problem whose gradient has Lipschitz constant ρ(BN). That
// step never increases the objective and converges to a minimiser when
// ω ρ(BN) < 2, also for a singular N (redundant contacts), where the
// paper's contraction argument does not apply. λ ∈ (0, 1] keeps that: the
// new iterate lies on the segment from γ_k to the projected step, along
// which the convex objective is at most its value at the ends.
//
// Jacobi does not see the coupling between contacts, and ρ(BN) grows with
// it: ρ(BN) ≥ max_i λ_max(N_ii)/g_i ≥ 1, and for k contacts between one
// body and fixed ones the nonzero spectrum of BN is that of the 6×6 matrix
// M^{-1/2} D B Dᵀ M^{-1/2}, of trace Σ tr(N_ii)/g_i = 3k, so k/2 ≤ ρ(BN) ≤ 3k:
// a box on four contacts already needs ω < 1, and two identical contacts
// (N = [[A, A], [A, A]]) with ω = 1 oscillate for ever.
//
// Defaults: λ = 1, and ω = 1/ρ̂ with ρ̂ an estimate of ρ(BN) made at the
// start of each solve by jacobiPowerIters steps of the power iteration
// v ← BNv, as the Rayleigh quotient vᵀNv / vᵀB⁻¹v (BN is similar to the
// symmetric B^{1/2}NB^{1/2}, so the quotient approaches ρ(BN) from below),
// and at least 1, since the mean eigenvalue of BN is tr(BN)/3n_c = 1. That
// is the step t = 1/L of the APGD paper's Algorithm 1 in the units above,
// ω ρ(BN) ≈ 1: the edge of the paper's condition and half the sharp bound,
// the margin covering the estimate's error (on six FCLib problems the
// estimate after 20 steps is within 7% of the one after 500; it could be
// off by more only if the fixed pseudo-random start vector were nearly
// orthogonal to the top eigenvectors). No fixed ω is safe, because ρ(BN)
// grows with the contacts per body: Chrono's ω = 0.2
// (ChSolverMulticoreJacobi hard-codes it; ChIterativeSolverVI calls it "a
// good value for Jacobi") converges while ρ(BN) < 10 and diverges on
// FCLib's KaplasTower-i1061-4 (570 contacts, ρ̂ ≈ 13), where ω = 1/ρ̂ ≈
// 0.077 converges. λ = 1 is Chrono's default sharpness (it recommends
// 0.8–1); λ < 1 only shortens the step.
//
// Cost per iteration: one product with N, which also gives the residual
// (eq. 25) and the objective of the new iterate; plus jacobiPowerIters
// products per solve when ω is estimated.
//
// It keeps its work vectors from solve to solve (see ReuseVec), so a
// Jacobi must not run two solves at once.
type Jacobi struct {
	// Omega is the step ω ∈ (0, 2); 0 means 1/ρ̂ (above).
	Omega float64
	// Lambda is the relaxation λ ∈ (0, 1] of line 5; 0 means 1.
	Lambda float64

	work  [4]Vec    // inv, nx, step, tmp
	start []float64 // the power iteration's start vector
}

const (
	jacobiLambda = 1.0
	gsOmega      = 0.6
	gsLambda     = 1.0
	// jacobiPowerIters is the number of power-iteration steps of the
	// estimate of ρ(BN): the Rayleigh quotient's error falls like
	// (λ₂/λ₁)^{2k}, and a cluster of eigenvalues near the top, which
	// slows it, leaves it within the cluster anyway.
	jacobiPowerIters = 20
)

// Name returns "jacobi".
func (*Jacobi) Name() string { return "jacobi" }

// Solve iterates from the guess in gamma (projected onto the cones first)
// and leaves the last iterate there.
func (j *Jacobi) Solve(p Problem, gamma Vec, opt SolveOptions) (SolveStats, error) {
	var st SolveStats
	// ω = 0 passes the check with the placeholder 1; it is estimated below.
	omega, lambda, err := relaxation(j.Name(), j.Omega, j.Lambda, 1, jacobiLambda)
	if err != nil {
		return st, err
	}
	n, err := solveRows(j.Name(), p, gamma, opt)
	if n == 0 || err != nil {
		return st, err
	}
	for i := range j.work {
		j.work[i] = ReuseVec(p, j.work[i], n)
	}
	inv := j.work[0]  // B: 1/g_i on the rows of contact i
	nx := j.work[1]   // N γ_k
	step := j.work[2] // Π(γ_k − ω B (Nγ_k + r))
	tmp := j.work[3]  // scratch
	// step holds g_i until the first iteration overwrites it.
	if err := blockDiag(j.Name(), p, step, inv); err != nil {
		return st, err
	}
	if j.Omega == 0 {
		if len(j.start) != n {
			j.start = powerStart(n)
		}
		rho, err := spectralRadius(p, step, inv, nx, tmp, j.start)
		if err != nil {
			return st, fmt.Errorf("%s: %w", j.Name(), err)
		}
		omega = 1 / rho
		if math.IsNaN(omega) {
			return st, fmt.Errorf("%s: the estimate of ρ(BN) is not a number (N not finite, or the start vector in its null space): set Omega", j.Name())
		}
	}
	if d, ok := p.(DeviceJacobi); ok && deviceTakes(p) {
		// The backend runs the same iterations on the device.
		return d.SolveJacobi(gamma, inv, omega, lambda, opt)
	}
	r := p.R()
	return iterate(j.Name(), p, gamma, nx, tmp, opt, omega, true, func() {
		// Line 4 for all contacts at once: Π(γ_k − ω B (Nγ_k + r)).
		p.Axpby(step, 1, nx, 1, r)
		p.MulElem(step, inv, step)
		p.Axpby(step, 1, gamma, -omega, step)
		p.Project(step, step)
		// Line 5: γ_{k+1} = λ γ̂ + (1 − λ) γ_k.
		p.Axpby(gamma, lambda, step, 1-lambda, gamma)
	}, nil)
}

// iterate is the loop of Jacobi and Gauss–Seidel from the guess in gamma:
// it projects gamma onto the cones, then, until opt.MaxIter iterations or
// a residual below opt.Tol, runs update (one iteration: gamma from gamma,
// with nx = N gamma on entry) and line 8, the product N γ_{k+1} into nx
// (the next update's too) and the residual and objective of γ_{k+1},
// recorded in the history with step omega. tmp is scratch. needNx says
// that update reads nx (Jacobi's does; Gauss–Seidel's sweep works from the
// bodies' velocities). updates, where not nil, runs k updates at once;
// iterate calls it instead of update k times when no residual is read
// between them.
func iterate(name string, p Problem, gamma, nx, tmp Vec, opt SolveOptions, omega float64, needNx bool, update func(), updates func(k int)) (SolveStats, error) {
	var st SolveStats
	p.Project(gamma, gamma)
	p.Schur(nx, gamma)
	res, f, err := progress(name, p, gamma, nx, tmp, opt.Gd, 0)
	if err != nil {
		return st, err
	}
	if !needNx && !(opt.Tol > 0) && !opt.History && res >= opt.Tol {
		// Gauss–Seidel with no stopping test and no history: the
		// iterations' residuals are never read, so only the last is
		// computed, which skips a product with N per sweep (about half a
		// sweep's work). The iterates are those of the loop below; a
		// non-finite one shows at the end. (Jacobi needs Nγ for its update
		// anyway, and its device iterations, DeviceJacobi, stop at the
		// first non-finite residual as the loop below does.)
		if updates != nil && opt.MaxIter > 0 {
			updates(opt.MaxIter)
			st.Iterations = opt.MaxIter
		}
		for k := st.Iterations; k < opt.MaxIter; k++ {
			update()
			st.Iterations = k + 1
		}
		if st.Iterations > 0 {
			p.Schur(nx, gamma)
			if res, f, err = progress(name, p, gamma, nx, tmp, opt.Gd, st.Iterations); err != nil {
				return st, err
			}
		}
		finish(&st, res, f, Rows(p), opt.Tol)
		return st, nil
	}
	for k := 0; k < opt.MaxIter && res >= opt.Tol; k++ {
		update()
		p.Schur(nx, gamma)
		if res, f, err = progress(name, p, gamma, nx, tmp, opt.Gd, k+1); err != nil {
			return st, err
		}
		st.Iterations = k + 1
		st.Record(opt, IterRecord{Iter: k + 1, Residual: res, Objective: f, Step: omega})
	}
	finish(&st, res, f, Rows(p), opt.Tol)
	return st, nil
}

// GaussSeidel is projected Gauss–Seidel, Algorithm 2 of the APGD paper: one
// Problem.Sweep per iteration updates the contacts in order (the
// backends' colour by colour: SweepOrder), each seeing the updates before
// it (line 6),
//
//	γ_i ← λ Π(γ_i − ω B_i (Nγ + r)_i) + (1 − λ) γ_i,   B_i = I/g_i (eq. 27),
//
// and the residual r of eq. 25 of the sweep's result (line 8) costs one
// product with N. It returns the last iterate (line 13).
//
// Convergence. The fixed-point paper (section 4) obtains this method from
// its Jacobi iteration by the immediate update of the unknowns and a speed
// parameter ω (its eq. 6 and Algorithm 4.1, a projected SOR), and states
// that with B the inverse diagonal of a positive definite N it always
// converges. With the 3×3 blocks of eq. 27 the update of contact i is a
// projected gradient step of length ω/g_i on the objective restricted to
// that contact (the others fixed), so it never increases the objective when
// ω λ_max(N_ii) < 2 g_i, and λ ∈ (0, 1] keeps that (convexity along the
// segment). Since g_i ≤ λ_max(N_ii) ≤ tr(N_ii) = 3 g_i, ω < 2/3 is enough
// for any contact and ω < 2 is necessary; a sphere on a fixed plane has
// N_ii = diag(1, 3.5, 3.5)/m, so ω < 2·(8/3)/3.5 ≈ 1.52. Unlike Jacobi the
// bound does not depend on how many contacts share a body, because each
// update sees the others' latest values; a singular N is no obstacle.
//
// Defaults: ω = 0.6, λ = 1. ω = 0.6 < 2/3 satisfies the per-contact bound
// for every contact whatever its N_ii, and keeps |1 − ω λ_k/g_i| ≤ 0.8 for
// every eigenvalue λ_k of every block. Chrono's default for its projected
// SOR, ω = 1 (ChIterativeSolverVI: "for other iterative solvers it can be
// up to 1.0"), needs λ_max(N_ii) < 2g_i, which fails on all four contacts
// of FCLib's Rover1039 (λ_max/g_i ≈ 2.6): Gauss–Seidel with ω = 1 diverges
// there, with ω = 0.6 it converges (515 sweeps to r < 1e-8). Elsewhere in
// FCLib ω = 1 needs 1.1–2× fewer sweeps than 0.6; ChSolverMulticoreGS
// hard-codes 0.2. λ = 1 is Chrono's default sharpness.
type GaussSeidel struct {
	// Omega is the step ω ∈ (0, 2); 0 means 0.6.
	Omega float64
	// Lambda is the relaxation λ ∈ (0, 1] of line 5; 0 means 1.
	Lambda float64
}

// Name returns "gs".
func (*GaussSeidel) Name() string { return "gs" }

// Solve sweeps from the guess in gamma (projected onto the cones first) and
// leaves the last iterate there. A Problem that implements DeviceGS runs
// the sweeps on its device when a residual is read after every sweep
// (opt.Tol > 0 or opt.History). Otherwise no residual is read until the
// last sweep, and a Problem that implements CarriedSweeps runs all the
// sweeps in one call, each starting from the velocities the last one
// left instead of from M⁻¹Dγ formed anew, as sequential-impulse solvers
// do: the same updates, whose velocities differ from a fresh M⁻¹Dγ by the
// rounding of the updates added to them; each sweep saves a pass that
// forms M⁻¹Dγ over all the contacts.
func (g *GaussSeidel) Solve(p Problem, gamma Vec, opt SolveOptions) (SolveStats, error) {
	var st SolveStats
	omega, lambda, err := relaxation(g.Name(), g.Omega, g.Lambda, gsOmega, gsLambda)
	if err != nil {
		return st, err
	}
	n, err := solveRows(g.Name(), p, gamma, opt)
	if n == 0 || err != nil {
		return st, err
	}
	diag := p.NewVec(n) // g_i on the rows of contact i
	if err := blockDiag(g.Name(), p, diag, nil); err != nil {
		return st, err
	}
	if d, ok := p.(DeviceGS); ok && deviceTakes(p) && (opt.Tol > 0 || opt.History) {
		// The backend runs the same iterations on the device, reading
		// back the residual once per block of them rather than once per
		// sweep. Without a stopping test or history the loop below reads
		// no residual until the end anyway.
		return d.SolveGS(gamma, diag, omega, lambda, opt)
	}
	nx := p.NewVec(n)  // N γ
	tmp := p.NewVec(n) // scratch
	// Without a residual between sweeps, a problem that carries the
	// bodies' velocities from sweep to sweep (CarriedSweeps) runs them all
	// in one call.
	var sweeps func(k int)
	if cs, ok := p.(CarriedSweeps); ok {
		sweeps = func(k int) { cs.Sweeps(gamma, diag, omega, lambda, k) }
	}
	// Lines 2–7 of each iteration.
	return iterate(g.Name(), p, gamma, nx, tmp, opt, omega, false, func() { p.Sweep(gamma, diag, omega, lambda) }, sweeps)
}

// spectralRadius returns max(1, ρ̂), ρ̂ the Rayleigh quotient vᵀNv / vᵀGv
// after jacobiPowerIters steps of v ← G⁻¹Nv from a fixed pseudo-random v,
// with G = diag(g_i) in diag and G⁻¹ in inv: an estimate from below of
// ρ(G⁻¹N) (see Jacobi), from start (powerStart). It overwrites v and w.
// A Problem that implements
// DeviceJacobi runs the iteration on the device.
func spectralRadius(p Problem, diag, inv, v, w Vec, start []float64) (float64, error) {
	p.Write(v, start)
	if d, ok := p.(DeviceJacobi); ok && deviceTakes(p) {
		rho, err := d.JacobiRho(diag, inv, v, w, jacobiPowerIters)
		return math.Max(rho, 1), err
	}
	rho := 0.0
	for range jacobiPowerIters {
		p.MulElem(w, diag, v)
		vgv := p.Dot(v, w)
		p.Schur(w, v)
		rho = p.Dot(v, w) / vgv
		p.MulElem(v, inv, w)
		p.Axpby(v, 1/math.Sqrt(p.Dot(v, v)), v, 0, v)
	}
	return math.Max(rho, 1), nil
}

// powerStart returns spectralRadius's start vector of length n: Weyl's
// sequence, deterministic, spread over [0.5, 1.5).
func powerStart(n int) []float64 {
	start := make([]float64, n)
	for k := range start {
		start[k] = 0.5 + math.Mod(float64(k+1)*0.6180339887498949, 1)
	}
	return start
}

// relaxation returns ω and λ, the defaults for zero values, or an error
// when they are outside ω ∈ (0, 2), λ ∈ (0, 1], where neither Jacobi nor
// Gauss–Seidel decreases the objective whatever N is (see their docs).
func relaxation(name string, omega, lambda, defOmega, defLambda float64) (float64, float64, error) {
	if omega == 0 {
		omega = defOmega
	}
	if lambda == 0 {
		lambda = defLambda
	}
	if !(omega > 0 && omega < 2) {
		return 0, 0, fmt.Errorf("%s: omega = %v, want 0 < ω < 2", name, omega)
	}
	if !(lambda > 0 && lambda <= 1) {
		return 0, 0, fmt.Errorf("%s: lambda = %v, want 0 < λ ≤ 1", name, lambda)
	}
	return omega, lambda, nil
}

// solveRows returns the length n of p's γ (Rows) and checks the arguments
// shared by every solve, unless n is 0: a problem without rows, which
// every solver leaves as it is.
func solveRows(name string, p Problem, gamma Vec, opt SolveOptions) (int, error) {
	n := Rows(p)
	if n == 0 {
		return 0, nil
	}
	if gamma.Len() != n {
		return n, fmt.Errorf("%s: gamma has length %d, want %d", name, gamma.Len(), n)
	}
	if !(opt.Gd > 0) || math.IsInf(opt.Gd, 0) {
		return n, fmt.Errorf("%s: gd = %v, want a positive finite step for the residual of eq. 25", name, opt.Gd)
	}
	return n, nil
}

// blockDiag sets diag to g_i = tr(N_ii)/3 (eq. 27) on the rows of contact i
// and, unless inv is nil, inv to 1/g_i, and fails unless every g_i is
// positive and finite: g_i = 0 is a contact that moves nothing, which no
// step can fix. A DeviceBlockDiag checks on its device; otherwise g is
// read back once (LinAlg has no element-wise reciprocal).
func blockDiag(name string, p Problem, diag, inv Vec) error {
	if d, ok := p.(DeviceBlockDiag); ok {
		k, v, err := d.CheckBlockDiag(diag, inv)
		if err != nil || k < 0 {
			return err
		}
		return badDiag(name, p, diag.Len(), k, v)
	}
	p.BlockDiag(diag)
	g := make([]float64, diag.Len())
	p.Read(g, diag)
	for k, v := range g {
		if !(v > 0) || math.IsInf(v, 0) {
			return badDiag(name, p, len(g), k, v)
		}
		g[k] = 1 / v
	}
	if inv != nil {
		p.Write(inv, g)
	}
	return nil
}

// badDiag is blockDiag's error for row k of n, whose value v is not
// positive and finite: a rolling block's, a joint row's or a contact's.
func badDiag(name string, p Problem, n, k int, v float64) error {
	if o := n - 3*rollingOf(p); k >= o {
		return fmt.Errorf("%s: rolling block %d has block diagonal g = %v, want positive and finite", name, (k-o)/3, v)
	}
	if nc := 3 * p.Contacts(); k >= nc {
		return fmt.Errorf("%s: joint row %d has diagonal N_rr = %v, want positive and finite", name, k-nc, v)
	}
	return fmt.Errorf("%s: contact %d has block diagonal g = %v (eq. 27), want positive and finite", name, k/3, v)
}

// progress returns r of eq. 25 and ½γᵀNγ + rᵀγ for γ given nx = Nγ, or an
// error naming the iteration when either is not finite. It overwrites tmp.
func progress(name string, p Problem, gamma, nx, tmp Vec, gd float64, k int) (float64, float64, error) {
	r := p.R()
	res := residual(p, gamma, nx, r, tmp, gd)
	f := 0.5*p.Dot(gamma, nx) + p.Dot(r, gamma)
	if math.IsNaN(res) || math.IsInf(res, 0) || math.IsNaN(f) || math.IsInf(f, 0) {
		if k == 0 {
			return res, f, fmt.Errorf("%s: residual %v, objective %v at the initial guess: N, r or γ₀ is not finite", name, res, f)
		}
		return res, f, fmt.Errorf("%s: residual %v, objective %v at iteration %d: the iteration diverged or N is not finite", name, res, f, k)
	}
	return res, f, nil
}

// finish fills the summary of st for the returned iterate.
func finish(st *SolveStats, res, f float64, n int, tol float64) {
	st.Residual = res
	st.ProjGrad = res * float64(n)
	st.Objective = f
	st.Converged = res < tol
}
