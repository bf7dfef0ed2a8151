package engine

import (
	"fmt"
	"math"
)

// PDIP is the primal-dual interior point method of the PDIP paper (Melanz,
// Fang, Mazhar and Negrut): a log barrier on the cone constraints (eq. 2)
// and Newton steps on the perturbed KKT conditions (eq. 3), with the
// barrier parameter driven to zero at a superlinear rate. The paper gives
// no more detail than that; the iteration is that of its references,
// Algorithm 11.2 of Boyd and Vandenberghe's Convex Optimization as in the
// authors' Chrono ChSolverPDIP, with the line search and multiplier
// safeguards of reference [3] (Wächter and Biegler, IPOPT) noted below.
//
// Constraints: each cone Υ_i is written as two smooth constraints c > 0 as
// in eq. 3, with a_i = γ_i,n + c_i the normal impulse shifted by the
// cohesion impulse c_i,
//
//	c_i,1(γ) = ½(μ_i² a_i² − γ_i,u² − γ_i,w²) > 0,   c_i,2(γ) = a_i > 0
//
// (the second cuts off the mirrored cone a_i < 0; −ln c_i,1 − ln c_i,2 is a
// self-concordant barrier of the cone). A contact with μ_i = 0 keeps only
// c_i,2: its tangential impulses stay at zero, outside the unknowns.
//
// Newton system: with multipliers λ > 0 and barrier parameter 1/t, eq. 3
// reads r_d = Nγ + r − Σ_j λ_j ∇c_j(γ) = 0 and λ_j c_j(γ) = 1/t. Eliminating
// Δλ_j = (1/t − λ_j c_j − λ_j ∇c_jᵀΔγ)/c_j leaves
//
//	(N + H) Δγ = −r_d + Σ_j ∇c_j (1/(t c_j) − λ_j) = −∇φ_t(γ),
//	H = Σ_j λ_j (∇c_j ∇c_jᵀ / c_j − ∇²c_j),
//
// φ_t = ½γᵀNγ + rᵀγ − (1/t) Σ_j ln c_j the barrier function of eq. 2. H is
// block diagonal, 3×3 per contact, and positive definite in the interior,
// so N + H is positive definite even for a singular N: no regularisation
// is added (the paper adds none). The system is solved matrix-free by
// preconditioned conjugate gradients: products with N through
// Problem.Schur, block-Jacobi preconditioner (g_i I + H_i)⁻¹ with g_i the
// block-diagonal estimate of eq. 27 of the APGD paper (the Problem
// interface exposes tr(N_ii)/3, not the block N_ii itself), relative
// tolerance pdipCGTol.
//
// A non-symmetric N (FCLib's W from a θ-method with θ ≠ ½; detected once
// per solve by pdipAsymmetric) makes the problem a variational inequality
// rather than a QP: its KKT conditions above are unchanged, but N + H is
// not symmetric and PCG does not apply, so the Newton systems are solved by
// BiCGSTAB with the same preconditioner. The line search below still
// applies: with F(γ) = Nγ + r − (1/t)Σ∇ln c_j, its "φ_t(γ + sΔγ) − φ_t(γ)"
// is the integral of F along the segment, a convex function of s whose
// slope at 0, FᵀΔγ = −Fᵀ(N + H)⁻¹F, is negative whenever the symmetric part
// of N is positive semidefinite (a monotone problem); for a symmetric N it
// is the barrier function's difference itself.
//
// One iteration:
//
//  1. the surrogate duality gap η̂ = Σ_j λ_j c_j and t = pdipMu·m/η̂ (m
//     constraints; Boyd and Vandenberghe, Algorithm 11.2): 1/t falls by
//     about pdipMu per full step;
//  2. the Newton direction (Δγ, Δλ) above; if its full step leaves a cone,
//     a second-order correction (Nocedal and Wright, section 15.6): the
//     system is solved again with the curvature ½Δγᵀ∇²c_jΔγ of the cone
//     constraints added to the linearised λ_j c_j = 1/t, and the new
//     direction replaces Δγ if it allows a longer step and still descends
//     φ_t (see secondOrder);
//  3. fraction to the boundary: s = min(1, 0.99·s_max) with s_max the exact
//     largest step keeping every γ_i + sΔγ_i in its cone (a root of a
//     quadratic per contact), and separately s_λ = min(1, 0.99·
//     min{−λ_j/Δλ_j : Δλ_j < 0}) for the multipliers;
//  4. backtracking s ← pdipBeta·s until the Armijo condition
//     φ_t(γ + sΔγ) ≤ φ_t(γ) + pdipAlpha·s·∇φ_tᵀΔγ holds;
//  5. γ += sΔγ, λ += s_λΔλ, then each λ_j is kept within
//     [1/(κ t c_j), κ/(t c_j)], κ = pdipKappa.
//
// Algorithm 11.2 takes one step length for γ and λ and backtracks on the
// norm of the perturbed KKT residual; on the FCLib problems that line
// search shrank the steps to 0.1–0.3 where contacts sit at the cone's apex
// (there ∇c_i,1 = 0 and λ_i,1 must grow like t) and 5 of the 12 problems
// stalled. The barrier function as merit, the separate dual step and the
// multiplier safeguard of steps 3 to 5 are those of Wächter and Biegler
// (section 2; their κ_Σ = 1e10 is pdipKappa). The correction of step 2 is
// for contacts sliding along the cone surface, where the straight Newton
// step leaves the curved cone after a small fraction: without it two of
// the sixteen random problems of the tests crept along the surface at
// steps of 0.005 and took 120 iterations instead of 25.
//
// Joint rows (free, or in an interval: JointRows) are unknowns after the
// contacts: free ones without a barrier, each finite bound with a linear
// barrier of its own (see pdipJoints); without joint rows none of that
// runs and the solve is what it was before, bit for bit.
//
// Start, stop and result: the iteration starts from the paper's strictly
// interior point γ_n = 1, γ_t = 0 (in scaled units) with λ_j = 1/c_j, and
// ignores the guess in gamma (interior point methods do not warm start).
// After every iteration it evaluates r of eq. 25 of the APGD paper at the
// iterate γ_k and at its purification γ'_k = Π(γ_k − g_d(Nγ_k + r)), one
// projected-gradient step of the length g_d of eq. 25: an interior iterate
// keeps impulses of order 1/t on contacts whose solution is the cone's
// apex, and r sees them divided by g_d; the projection sets them to zero.
// It stops when the smaller of the two is below opt.Tol; when the
// duality-gap test of Algorithm 11.2 passes (η̂/m and ‖r_d‖_∞ below
// pdipGapTol in scaled units); or when the gap is below pdipStallGap·m and
// r has not halved for pdipStall iterations, the rounding floor of an
// interior method in float64 (contacts on the cone's surface cannot get
// closer to it than a few ulps) — even with opt.Tol = 0. If it stops
// above opt.Tol with iterations left, the crossover of pdip_polish.go
// (semismooth Newton on the natural map, from the best point) goes on
// until opt.Tol, the budget or its stall. It returns the
// point of smallest r among all γ_k and γ'_k, passed through Project (a
// no-op up to rounding for the interior γ_k). History records r and the
// objective of γ_k and the step s.
//
// Scaling: the problem is solved in the units γ = s_γ γ̂ with N̂ = N/s_N and
// r̂ = r/(s_N s_γ), s_N the mean of the g_i and s_γ = max(‖r‖_∞/s_N, max c_i),
// so that N̂, r̂ and γ̂ are of order one whatever the units of the problem;
// residual, objective and γ are reported for the problem as given.
//
// Cost per iteration: three products with N (NΔγ for the line search, Nγ
// and Nγ' for the residuals) plus one per PCG iteration (two per BiCGSTAB
// iteration for a non-symmetric N, and two once per solve for the symmetry
// test), with one or two linear solves (the second for the correction).
// The constraint values, the
// blocks of H and of the preconditioner, the line search and the
// multipliers live in host slices (four to six Reads and Writes of 3n_c
// values per iteration), and each PCG iteration reads its search direction
// and residual back from the backend to apply H and the preconditioner
// there, and writes the results back. On the host backend these are
// copies; a backend that implements DevicePCG (the GPU's) takes the blocks
// of H and of the preconditioner once per Newton system and runs the PCG
// loop itself, with the same values, so that only the Newton iterations
// read and write vectors.
type PDIP struct{}

// Name returns "pdip".
func (*PDIP) Name() string { return "pdip" }

const (
	// pdipMu is μ of Algorithm 11.2, by which t grows per full step (Boyd
	// and Vandenberghe: "around 10"; ChSolverPDIP: 10; 5 and 20 were no
	// better on the FCLib problems, 50 worse).
	pdipMu = 10
	// pdipAlpha is the Armijo factor α (Boyd and Vandenberghe: 0.01 to
	// 0.1).
	pdipAlpha = 0.01
	// pdipBeta is the backtracking factor β (Boyd and Vandenberghe: 0.3 to
	// 0.8; ChSolverPDIP: 0.8).
	pdipBeta = 0.8
	// pdipFraction is the fraction of the largest feasible step taken, so
	// that γ stays strictly inside its cones and λ > 0 (ChSolverPDIP and
	// Wächter and Biegler's τ_min: 0.99).
	pdipFraction = 0.99
	// pdipKappa is κ_Σ of Wächter and Biegler (their value): λ_j c_j is
	// kept within a factor κ of 1/t.
	pdipKappa = 1e10
	// pdipMaxBacktrack bounds each backtracking loop: 0.8^200 ≈ 4e-20, a
	// step below which γ + sΔγ no longer differs from γ in float64.
	pdipMaxBacktrack = 200
	// pdipGapTol is ε = ε_feas of the stopping test of Algorithm 11.2, in
	// the scaled units where N̂, r̂ and γ̂ are of order one: float64
	// rounding of order-one quantities.
	pdipGapTol = 1e-15
	// pdipStall and pdipStallGap: leave the interior-point iteration for
	// the crossover (pdip_polish.go) once η̂/m < pdipStallGap and the
	// smallest residual has not halved for pdipStall iterations. On the
	// FCLib problems that stall the gap reaches 1e-14 to 1e-16 per
	// constraint and r then stays put or creeps (NESpheres_30_1: 1e-7
	// after 200 iterations, 2e-8 after 100000; measured). Before the
	// crossover this waited 30 iterations for the apex impulses to fall
	// below g_d·|u|; with it 5 gave the same or smaller final residuals on
	// all 12 FCLib problems and a settle dump in 10 to 50 % fewer
	// iterations (NESpheres_30_1 33 instead of 64, a settle step of 2461
	// contacts 71 instead of 93).
	pdipStall    = 5
	pdipStallGap = 1e-12
	// pdipCGTol is the PCG tolerance on the preconditioned residual
	// √(rᵀz), relative to its start: an inexact Newton direction. On the
	// FCLib problems 1e-3 to 1e-8 gave the same final residuals and
	// Newton iterations within a few; 1e-12 was 2–5× slower and no better.
	pdipCGTol = 1e-6
)

// pdipWork is the host-side state of one solve, allocated once per Solve.
type pdipWork struct {
	nc       int
	mu, coh  []float64   // μ_i and the scaled cohesion c_i/s_γ
	r        []float64   // r̂
	diag     []float64   // g_i/s_N, three per contact
	x, dx    []float64   // γ̂ and Δγ̂
	nx, nd   []float64   // N̂γ̂ and N̂Δγ̂
	xt       []float64   // trial γ̂ of the line search
	rd, rhs  []float64   // r_d and the Newton right-hand side −∇φ_t
	l1, l2   []float64   // λ_i,1 (cone) and λ_i,2 (normal)
	d1, d2   []float64   // Δλ
	c1, c2   []float64   // c_i,1 and c_i,2 at γ̂
	c1t, c2t []float64   // at the trial γ̂
	h        []float64   // per contact: H_i as D_i (3), f_i, g_i (3)
	pc       []float64   // per contact: LDLᵀ factors of g_i I + H_i, 6 each
	in, out  []float64   // PCG scratch
	corr     []float64   // κ_i = ½Δγ_iᵀ∇²c_i,1Δγ_i of the second-order correction
	rhs0     []float64   // −∇φ_t while the correction is tried
	dx0      []float64   // the Newton direction while the correction is tried
	j        pdipJoints  // the joint rows (pdip_joints.go); vectors above hold them after the contacts
	polish   *pdipPolish // the crossover's work space (pdip_polish.go)
}

func newPDIPWork(nc, nj int) *pdipWork {
	w := &pdipWork{nc: nc, j: newPDIPJoints(nj), polish: newPDIPPolish(nc, nj)}
	for _, v := range []*[]float64{&w.r, &w.diag, &w.x, &w.dx, &w.nx, &w.nd, &w.xt, &w.rd, &w.rhs, &w.in, &w.out, &w.rhs0, &w.dx0} {
		*v = make([]float64, 3*nc+nj)
	}
	for _, v := range []*[]float64{&w.mu, &w.coh, &w.l1, &w.l2, &w.d1, &w.d2, &w.c1, &w.c2, &w.c1t, &w.c2t, &w.corr} {
		*v = make([]float64, nc)
	}
	w.h, w.pc = make([]float64, 7*nc), make([]float64, 6*nc)
	return w
}

// Solve runs the method and leaves the point of smallest residual in gamma.
func (s *PDIP) Solve(p Problem, gamma Vec, opt SolveOptions) (SolveStats, error) {
	nc, nj := p.Contacts(), jointRowsOf(p)
	n := 3*nc + nj
	var st SolveStats
	if nr := rollingOf(p); nr > 0 {
		return st, fmt.Errorf("pdip: %d contacts with rolling or spinning friction: %w", nr, ErrRollingPDIP)
	}
	if n == 0 {
		return st, nil
	}
	if gamma.Len() != n {
		return st, fmt.Errorf("pdip: gamma has length %d, want %d", gamma.Len(), n)
	}
	if !(opt.Gd > 0) || math.IsInf(opt.Gd, 0) {
		return st, fmt.Errorf("pdip: g_d = %v must be positive and finite", opt.Gd)
	}
	w := newPDIPWork(nc, nj)
	p.Cones(w.mu, w.coh)
	xv := p.NewVec(n)   // γ̂
	gv := p.NewVec(n)   // γ = s_γ γ̂
	ng := p.NewVec(n)   // Nγ, and NΔγ̂ in the line search
	pv := p.NewVec(n)   // γ' = Π(γ − g_d(Nγ + r))
	np := p.NewVec(n)   // Nγ'
	best := p.NewVec(n) // the point of smallest residual
	tmp := p.NewVec(n)
	var mask Vec // zero on the tangential rows of frictionless contacts
	m := 0       // number of constraints
	for i := range nc {
		m++
		w.out[3*i], w.out[3*i+1], w.out[3*i+2] = 1, 1, 1
		if w.mu[i] > 0 {
			m++
		} else {
			w.out[3*i+1], w.out[3*i+2] = 0, 0
			if mask == nil {
				mask = p.NewVec(n)
			}
		}
	}
	if nj > 0 {
		w.jointBounds(p, tmp, w.in)
		m += w.j.count()
		if mask != nil {
			for r := range nj {
				w.out[3*nc+r] = 1
			}
		}
	}
	if mask != nil {
		p.Write(mask, w.out)
	}
	cg := newPDIPCG(p, n, pdipAsymmetric(p, n, mask))

	// Scaling: s_N from the block diagonal, s_γ from r and the cohesion.
	p.BlockDiag(tmp)
	p.Read(w.diag, tmp)
	sN := 0.0
	for i := range nc {
		sN += w.diag[3*i]
	}
	for r := range nj {
		sN += w.diag[3*nc+r]
	}
	sN /= float64(nc + nj)
	if math.IsNaN(sN) || math.IsInf(sN, 0) {
		return st, fmt.Errorf("pdip: the diagonal of N is not finite")
	}
	if !(sN > 0) {
		sN = 1
	}
	for k := range w.diag {
		w.diag[k] /= sN
	}
	r := p.R()
	p.Read(w.r, r)
	sG := 0.0
	for _, v := range w.r {
		sG = math.Max(sG, math.Abs(v)/sN)
	}
	for i := range nc {
		sG = math.Max(sG, w.coh[i])
	}
	if math.IsNaN(sG) || math.IsInf(sG, 0) {
		return st, fmt.Errorf("pdip: r is not finite")
	}
	if !(sG > 0) {
		sG = 1
	}
	for k := range w.r {
		w.r[k] /= sN * sG
	}
	for i := range nc {
		w.coh[i] /= sG
	}
	for r := range nj {
		w.j.lo[r] /= sG
		w.j.hi[r] /= sG
	}

	// The paper's starting point γ̂_n = 1, γ̂_t = 0, with λ_j = 1/c_j.
	for i := range nc {
		w.x[3*i], w.x[3*i+1], w.x[3*i+2] = 1, 0, 0
	}
	w.constraints(w.x, w.c1, w.c2)
	for i := range nc {
		w.l2[i] = 1 / w.c2[i]
		if w.mu[i] > 0 {
			w.l1[i] = 1 / w.c1[i]
		}
	}
	w.jointStart(w.x)

	rmin := math.Inf(1)
	// eval sets w.nx = N̂x̂ from a fresh product, keeps the better of γ and
	// γ' in best and returns r of eq. 25 and the objective of γ, for the
	// problem as given.
	eval := func() (float64, float64, error) {
		p.Write(xv, w.x)
		p.Schur(ng, xv)
		p.Read(w.nx, ng)
		for k := range w.nx {
			w.nx[k] /= sN
		}
		p.Axpby(gv, sG, xv, 0, xv)
		p.Axpby(ng, sG, ng, 0, ng)
		res := residual(p, gv, ng, r, tmp, opt.Gd)
		obj := 0.5*p.Dot(gv, ng) + p.Dot(r, gv)
		if math.IsNaN(res) || math.IsInf(res, 0) || math.IsNaN(obj) || math.IsInf(obj, 0) {
			return 0, 0, fmt.Errorf("residual %v, objective %v: N or r is not finite", res, obj)
		}
		if res < rmin {
			rmin = res
			p.Copy(best, gv)
		}
		p.Axpby(pv, 1, ng, 1, r)
		p.Axpby(pv, 1, gv, -opt.Gd, pv)
		p.Project(pv, pv)
		p.Schur(np, pv)
		if rp := residual(p, pv, np, r, tmp, opt.Gd); rp < rmin {
			rmin = rp
			p.Copy(best, pv)
		}
		return res, obj, nil
	}
	if _, _, err := eval(); err != nil {
		return st, fmt.Errorf("pdip: at the starting point: %w", err)
	}

	sinceBest, rref := 0, rmin // iterations since r last halved, from rref
	for k := 0; k < opt.MaxIter && !(rmin < opt.Tol); k++ {
		// Step 1: surrogate duality gap, stopping tests and t.
		w.constraints(w.x, w.c1, w.c2)
		gap := 0.0
		for i := range nc {
			gap += w.l1[i]*w.c1[i] + w.l2[i]*w.c2[i]
		}
		rdMax := w.dualResidual()
		if nj > 0 {
			w.jointConstraints(w.x, w.j.cl, w.j.ch)
			gap += w.j.gap()
			rdMax = math.Max(rdMax, w.jointDualResidual())
		}
		if gap <= pdipGapTol*float64(m) && rdMax <= pdipGapTol {
			break
		}
		if gap <= pdipStallGap*float64(m) && sinceBest >= pdipStall {
			break
		}
		t := pdipMu * float64(m) / gap
		if m == 0 {
			// No inequality (free joint rows only): an unconstrained QP,
			// whose Newton step is its solution; no barrier for t to weigh.
			t = 1
		}
		if !(t > 0) || math.IsInf(t, 0) {
			return st, fmt.Errorf("pdip: iteration %d: surrogate duality gap is %v", k, gap)
		}

		// Step 2: the Newton direction.
		if err := w.newton(t); err != nil {
			return st, fmt.Errorf("pdip: iteration %d: %w", k, err)
		}
		if err := w.jointNewton(t); err != nil {
			return st, fmt.Errorf("pdip: iteration %d: %w", k, err)
		}
		p.Write(tmp, w.rhs)
		if err := cg.solve(w, tmp, sN, mask); err != nil {
			return st, fmt.Errorf("pdip: iteration %d: %w", k, err)
		}
		p.Read(w.dx, cg.x)
		clear(w.corr)
		if smax := w.maxStep(); smax < 1 {
			// The full step leaves a cone: the second-order correction.
			if err := w.secondOrder(p, cg, tmp, t, smax, sN, mask); err != nil {
				return st, fmt.Errorf("pdip: iteration %d: %w", k, err)
			}
		}
		w.dualStep(t)
		w.jointDualStep(t)

		// Step 3: fraction to the boundary, for γ and separately for λ.
		step := math.Min(1, pdipFraction*w.maxStep())
		for bt := 0; step > 0 && !w.interior(step); bt++ {
			step *= pdipBeta // rounding in maxStep
			if bt == pdipMaxBacktrack {
				step = 0
			}
		}
		if step == 0 {
			break // no interior step left at the rounding level
		}
		dstep := 1.0
		for i := range nc {
			if w.d1[i] < 0 {
				dstep = math.Min(dstep, -w.l1[i]/w.d1[i])
			}
			if w.d2[i] < 0 {
				dstep = math.Min(dstep, -w.l2[i]/w.d2[i])
			}
		}
		dstep = math.Min(1, pdipFraction*w.j.dualMax(dstep))

		// Step 4: Armijo backtracking on φ_t with
		// q(γ̂ + sΔγ̂) − q(γ̂) = s(N̂γ̂ + r̂)ᵀΔγ̂ + ½s²Δγ̂ᵀN̂Δγ̂ and the barrier
		// difference summed as logarithms of ratios, free of cancellation.
		p.Schur(ng, cg.x)
		p.Read(w.nd, ng)
		slope, lin, quad := 0.0, 0.0, 0.0
		for k := range w.nd {
			w.nd[k] /= sN
			slope -= w.rhs[k] * w.dx[k]
			lin += (w.nx[k] + w.r[k]) * w.dx[k]
			quad += w.dx[k] * w.nd[k]
		}
		for bt := 0; ; bt++ {
			for k := range w.xt {
				w.xt[k] = w.x[k] + step*w.dx[k]
			}
			w.constraints(w.xt, w.c1t, w.c2t)
			dphi := step*lin + 0.5*step*step*quad
			if nj > 0 {
				w.jointConstraints(w.xt, w.j.clt, w.j.cht)
				dphi += w.j.barrier(t)
			}
			for i := range nc {
				dphi -= math.Log(w.c2t[i]/w.c2[i]) / t
				if w.mu[i] > 0 {
					dphi -= math.Log(w.c1t[i]/w.c1[i]) / t
				}
			}
			if dphi <= pdipAlpha*step*slope || bt == pdipMaxBacktrack {
				// At the bound the decrease is below rounding; the
				// short step is still interior.
				break
			}
			step *= pdipBeta
		}

		// Step 5, with the multiplier safeguard.
		copy(w.x, w.xt)
		for i := range nc {
			w.l2[i] = pdipClamp(w.l2[i]+dstep*w.d2[i], w.c2t[i], t)
			if w.mu[i] > 0 {
				w.l1[i] = pdipClamp(w.l1[i]+dstep*w.d1[i], w.c1t[i], t)
			}
		}
		w.j.update(dstep, t)
		res, obj, err := eval()
		if err != nil {
			return st, fmt.Errorf("pdip: iteration %d: %w", k, err)
		}
		sinceBest++
		if rmin < 0.5*rref {
			rref, sinceBest = rmin, 0
		}
		st.Iterations = k + 1
		st.Record(opt, IterRecord{Iter: k + 1, Residual: res, Objective: obj, Step: step})
	}

	if !(rmin < opt.Tol) && st.Iterations < opt.MaxIter {
		// The crossover (pdip_polish.go) from the best point so far.
		q := w.polish
		p.Read(q.x, best)
		for k := range q.x {
			q.x[k] /= sG
		}
		q.gains(w)
		q.schur(p, tmp, ng, sN, mask, q.x, q.nx)
		fn := q.natural(w, q.x, q.f, true)
		for k, stall := st.Iterations, 0; k < opt.MaxIter && !(rmin < opt.Tol) && stall < pdipPolishStall; k++ {
			step, ok := q.step(p, w, tmp, ng, sN, mask, &fn)
			if !ok {
				break
			}
			q.project(w, q.x, w.x)
			before := rmin
			res, obj, err := eval()
			if err != nil {
				return st, fmt.Errorf("pdip: crossover step %d: %w", k, err)
			}
			stall++
			if rmin < before {
				stall = 0
			}
			st.Iterations = k + 1
			st.Record(opt, IterRecord{Iter: k + 1, Residual: res, Objective: obj, Step: step})
		}
	}

	p.Project(gamma, best)
	p.Schur(ng, gamma)
	st.Residual = residual(p, gamma, ng, r, tmp, opt.Gd)
	st.ProjGrad = st.Residual * float64(n)
	st.Objective = 0.5*p.Dot(gamma, ng) + p.Dot(r, gamma)
	st.Converged = st.Residual < opt.Tol
	return st, nil
}

// pdipClamp returns λ limited to [1/(κ t c), κ/(t c)], κ = pdipKappa.
func pdipClamp(l, c, t float64) float64 {
	return math.Max(math.Min(l, pdipKappa/(t*c)), 1/(pdipKappa*t*c))
}

// constraints sets c1_i = ½(μ_i² a_i² − ‖γ_i,t‖²), evaluated as a product
// against cancellation near the cone surface, and c2_i = a_i at x.
func (w *pdipWork) constraints(x, c1, c2 []float64) {
	for i := range w.nc {
		a := x[3*i] + w.coh[i]
		c2[i] = a
		if mu := w.mu[i]; mu > 0 {
			tn := math.Sqrt(x[3*i+1]*x[3*i+1] + x[3*i+2]*x[3*i+2])
			c1[i] = 0.5 * (mu*a - tn) * (mu*a + tn)
		}
	}
}

// interior reports whether every c_j(γ̂ + sΔγ̂) > 0.
func (w *pdipWork) interior(s float64) bool {
	for i := range w.nc {
		a := w.x[3*i] + s*w.dx[3*i] + w.coh[i]
		if !(a > 0) {
			return false
		}
		if mu := w.mu[i]; mu > 0 {
			u := w.x[3*i+1] + s*w.dx[3*i+1]
			v := w.x[3*i+2] + s*w.dx[3*i+2]
			if !(mu*a > math.Sqrt(u*u+v*v)) {
				return false
			}
		}
	}
	return w.j.nj == 0 || w.jointInterior(s)
}

// maxStep returns the largest s > 0 (+Inf if none) for which γ̂ + sΔγ̂ stays
// in every cone: the first positive root of a_i(s) and of
// 2c_i,1(s) = A s² + B s + C, C = 2c_i,1 > 0. The set of such s is an
// interval since the cone is convex.
func (w *pdipWork) maxStep() float64 {
	smax := math.Inf(1)
	for i := range w.nc {
		a, da := w.c2[i], w.dx[3*i]
		if da < 0 {
			smax = math.Min(smax, -a/da)
		}
		mu := w.mu[i]
		if mu == 0 {
			continue
		}
		u, v, du, dv := w.x[3*i+1], w.x[3*i+2], w.dx[3*i+1], w.dx[3*i+2]
		A := mu*mu*da*da - du*du - dv*dv
		B := 2 * (mu*mu*a*da - u*du - v*dv)
		smax = math.Min(smax, firstPositiveRoot(A, B, 2*w.c1[i]))
	}
	if w.j.nj > 0 {
		smax = math.Min(smax, w.jointMaxStep())
	}
	return smax
}

// firstPositiveRoot returns the smallest positive root of A s² + B s + C
// with C > 0, or +Inf if there is none; the roots come from the
// cancellation-free q = −(B + sign(B)√(B² − 4AC))/2, s = q/A and s = C/q.
func firstPositiveRoot(A, B, C float64) float64 {
	if A == 0 {
		if B < 0 {
			return -C / B
		}
		return math.Inf(1)
	}
	disc := B*B - 4*A*C
	if disc < 0 {
		return math.Inf(1)
	}
	q := -0.5 * (B + math.Copysign(math.Sqrt(disc), B))
	s := math.Inf(1)
	for _, r := range []float64{q / A, C / q} {
		if r > 0 && r < s {
			s = r
		}
	}
	return s
}

// dualResidual sets w.rd = N̂x̂ + r̂ − Σ_j λ_j ∇c_j(x̂), with ∇c_i,1 =
// (μ²a, −γ_u, −γ_w) and ∇c_i,2 = e_n, zero on the fixed tangential rows of
// frictionless contacts, and returns ‖r_d‖_∞.
func (w *pdipWork) dualResidual() float64 {
	x, nx, rd := w.x, w.nx, w.rd
	m := 0.0
	for i := range w.nc {
		rn := nx[3*i] + w.r[3*i] - w.l2[i]
		ru, rw := 0.0, 0.0
		if mu := w.mu[i]; mu > 0 {
			rn -= w.l1[i] * mu * mu * (x[3*i] + w.coh[i])
			ru = nx[3*i+1] + w.r[3*i+1] + w.l1[i]*x[3*i+1]
			rw = nx[3*i+2] + w.r[3*i+2] + w.l1[i]*x[3*i+2]
		}
		rd[3*i], rd[3*i+1], rd[3*i+2] = rn, ru, rw
		m = math.Max(m, math.Max(math.Abs(rn), math.Max(math.Abs(ru), math.Abs(rw))))
	}
	return m
}

// newton forms, at w.x with w.rd = r_d there, the right-hand side
// −r_d + Σ_j ∇c_j (1/(t c_j) − λ_j), the blocks
//
//	H_i = D_i + f_i g_i g_iᵀ,  D_i = λ_i,1 diag(−μ², 1, 1) + (λ_i,2/a_i) e_n e_nᵀ,
//	f_i = λ_i,1/c_i,1,  g_i = ∇c_i,1 = (μ²a_i, −γ_u, −γ_w),
//
// and the LDLᵀ factors of g_i I + H_i. Near the cone surface f_i is huge
// and a formed H_i would lose D_i to rounding, so H_i is kept as (D_i, f_i,
// g_i) and factored as a rank-one update of a diagonal matrix (Gill, Golub,
// Murray and Saunders 1974, method C1), whose pivots take no difference of
// large numbers. A frictionless contact has only D_i,nn.
func (w *pdipWork) newton(t float64) error {
	for i := range w.nc {
		h, pc := w.h[7*i:7*i+7], w.pc[6*i:6*i+6]
		clear(h)
		clear(pc)
		a := w.c2[i]
		d := w.diag[3*i]
		w.rhs[3*i] = -w.rd[3*i] + 1/(t*a) - w.l2[i]
		w.rhs[3*i+1], w.rhs[3*i+2] = 0, 0
		h[0] = w.l2[i] / a
		mu := w.mu[i]
		if mu == 0 {
			pc[0] = d + h[0]
			if !(pc[0] > 0) || math.IsInf(pc[0], 0) {
				return fmt.Errorf("contact %d: preconditioner block %v is not positive (γ_n = %v, λ = %v)", i, pc[0], w.x[3*i], w.l2[i])
			}
			continue
		}
		c1, l1 := w.c1[i], w.l1[i]
		g := [3]float64{mu * mu * a, -w.x[3*i+1], -w.x[3*i+2]}
		f := l1 / c1
		h[0] -= l1 * mu * mu
		h[1], h[2] = l1, l1
		h[3] = f
		h[4], h[5], h[6] = g[0], g[1], g[2]
		e1 := 1/(t*c1) - l1
		w.rhs[3*i] += g[0] * e1
		w.rhs[3*i+1] = -w.rd[3*i+1] + g[1]*e1
		w.rhs[3*i+2] = -w.rd[3*i+2] + g[2]*e1
		// Pivots p_j and L_10, L_20, L_21 of diag(d + D_i) + f g gᵀ.
		alpha := f
		var piv [3]float64
		var beta [2]float64
		for j := range 3 {
			dj := d + h[j]
			piv[j] = dj + alpha*g[j]*g[j]
			if j < 2 {
				beta[j] = alpha * g[j] / piv[j]
			}
			alpha *= dj / piv[j]
		}
		pc[0], pc[1], pc[2] = piv[0], piv[1], piv[2]
		pc[3], pc[4], pc[5] = beta[0]*g[1], beta[0]*g[2], beta[1]*g[2]
		if !(piv[0] > 0 && piv[1] > 0 && piv[2] > 0) || math.IsInf(piv[0]*piv[1]*piv[2], 0) {
			return fmt.Errorf("contact %d: preconditioner pivots %v are not positive (γ = %v, λ = %v, %v)", i, piv, w.x[3*i:3*i+3], l1, w.l2[i])
		}
	}
	return nil
}

// applyH sets out = H·in, block by block: D_i∘in_i + f_i g_i (g_iᵀin_i).
func (w *pdipWork) applyH(in, out []float64) {
	for i := range w.nc {
		h := w.h[7*i : 7*i+7]
		x, y, z := in[3*i], in[3*i+1], in[3*i+2]
		if w.mu[i] == 0 {
			out[3*i], out[3*i+1], out[3*i+2] = h[0]*x, 0, 0
			continue
		}
		s := h[3] * (h[4]*x + h[5]*y + h[6]*z)
		out[3*i] = h[0]*x + s*h[4]
		out[3*i+1] = h[1]*y + s*h[5]
		out[3*i+2] = h[2]*z + s*h[6]
	}
	w.jointApplyH(in, out)
}

// applyPrec sets out = (g_i I + H_i)⁻¹ in, block by block, from the LDLᵀ
// factors; zero on the fixed rows of frictionless contacts.
func (w *pdipWork) applyPrec(in, out []float64) {
	for i := range w.nc {
		l := w.pc[6*i : 6*i+6]
		if w.mu[i] == 0 {
			out[3*i] = in[3*i] / l[0]
			out[3*i+1], out[3*i+2] = 0, 0
			continue
		}
		// L y = in, then D z = y and Lᵀ out = z.
		y0 := in[3*i]
		y1 := in[3*i+1] - l[3]*y0
		y2 := in[3*i+2] - l[4]*y0 - l[5]*y1
		z2 := y2 / l[2]
		z1 := y1/l[1] - l[5]*z2
		out[3*i] = y0/l[0] - l[3]*z1 - l[4]*z2
		out[3*i+1], out[3*i+2] = z1, z2
	}
	w.jointApplyPrec(in, out)
}

// secondOrder tries the second-order correction of the Newton direction
// w.dx, whose full step leaves a cone (maxStep = smax < 1): the
// complementarity equations are linearised with the curvature of c_i,1,
//
//	λ_j(c_j + ∇c_jᵀΔγ' + κ_j) + c_jΔλ_j = 1/t,  κ_j = ½Δγᵀ∇²c_jΔγ,
//
// which moves the right-hand side by −Σ_j ∇c_j λ_j κ_j/c_j (the matrix is
// unchanged). A contact sliding along the cone surface, where the straight
// Newton step leaves the curved cone after a small fraction, gets a
// direction that bends back into it. Δγ' replaces Δγ if it allows a longer
// step and is a descent direction of φ_t; w.corr keeps the κ_j for the
// dual step (zero if Δγ is kept).
func (w *pdipWork) secondOrder(p Problem, cg *pdipCG, b Vec, t, smax, sN float64, mask Vec) error {
	copy(w.rhs0, w.rhs)
	copy(w.dx0, w.dx)
	for i := range w.nc {
		mu := w.mu[i]
		if mu == 0 {
			continue
		}
		dn, du, dv := w.dx[3*i], w.dx[3*i+1], w.dx[3*i+2]
		w.corr[i] = 0.5 * (mu*mu*dn*dn - du*du - dv*dv)
		f := -w.l1[i] * w.corr[i] / w.c1[i]
		w.rhs[3*i] += f * mu * mu * w.c2[i]
		w.rhs[3*i+1] -= f * w.x[3*i+1]
		w.rhs[3*i+2] -= f * w.x[3*i+2]
	}
	p.Write(b, w.rhs)
	err := cg.solve(w, b, sN, mask)
	copy(w.rhs, w.rhs0)
	if err != nil {
		return err
	}
	p.Read(w.dx, cg.x)
	slope := 0.0
	for k := range w.dx {
		slope -= w.rhs[k] * w.dx[k]
	}
	if !(w.maxStep() > smax && slope < 0) {
		copy(w.dx, w.dx0)
		p.Write(cg.x, w.dx)
		clear(w.corr)
	}
	return nil
}

// dualStep sets Δλ_j = (1/t − λ_j c_j − λ_j(∇c_jᵀΔγ + κ_j))/c_j, κ_j the
// second-order term of secondOrder (zero without it).
func (w *pdipWork) dualStep(t float64) {
	for i := range w.nc {
		dn := w.dx[3*i]
		a := w.c2[i]
		w.d2[i] = (1/t - w.l2[i]*a - w.l2[i]*dn) / a
		w.d1[i] = 0
		if mu := w.mu[i]; mu > 0 {
			gd := mu*mu*a*dn - w.x[3*i+1]*w.dx[3*i+1] - w.x[3*i+2]*w.dx[3*i+2]
			w.d1[i] = (1/t - w.l1[i]*w.c1[i] - w.l1[i]*(gd+w.corr[i])) / w.c1[i]
		}
	}
}

// pdipCG solves the Newton systems: by preconditioned conjugate gradients
// when N is symmetric, by preconditioned BiCGSTAB when it is not (see
// solveNonsym); its vectors live on the backend.
type pdipCG struct {
	p                 Problem
	x, r, z, d, q, hd Vec
	// nonsym: N is not symmetric (pdipAsymmetric); the BiCGSTAB vectors
	// r̂₀, ŝ and t are allocated only then.
	nonsym     bool
	r0, sh, tv Vec
}

func newPDIPCG(p Problem, n int, nonsym bool) *pdipCG {
	c := &pdipCG{p: p, x: p.NewVec(n), r: p.NewVec(n), z: p.NewVec(n), d: p.NewVec(n), q: p.NewVec(n), hd: p.NewVec(n), nonsym: nonsym}
	if nonsym {
		c.r0, c.sh, c.tv = p.NewVec(n), p.NewVec(n), p.NewVec(n)
	}
	return c
}

// pdipSymTol bounds the relative asymmetry |yᵀNx − xᵀNy| / (‖y‖‖Nx‖ +
// ‖x‖‖Ny‖) below which N is taken as symmetric. Rounding of the two dot
// products and of the products with N gives at most about n·ε ≈ 1e-10 for
// n = 1e6 unknowns (ε = 1.1e-16); FCLib's Capsules problem (W from a
// θ-method with θ ≠ ½, W_rel_asymmetry 1.3e-3) measures 3e-4.
const pdipSymTol = 1e-8

// pdipAsymmetric reports whether N is not symmetric, from two products with
// N of fixed pseudo-random vectors x and y (masked like the unknowns):
// yᵀ(Nx) against xᵀ(Ny). Frictionless contacts' tangential rows, which are
// not unknowns, are zeroed by mask (nil: none).
func pdipAsymmetric(p Problem, n int, mask Vec) bool {
	hx, hy := make([]float64, n), make([]float64, n)
	seed := uint64(0x9e3779b97f4a7c15)
	for k := range n {
		// xorshift64*: any fixed sequence of non-special values will do.
		for _, v := range []*float64{&hx[k], &hy[k]} {
			seed ^= seed >> 12
			seed ^= seed << 25
			seed ^= seed >> 27
			*v = float64(seed*0x2545f4914f6cdd1d>>11)/(1<<53) - 0.5
		}
	}
	x, y, nx, ny := p.NewVec(n), p.NewVec(n), p.NewVec(n), p.NewVec(n)
	p.Write(x, hx)
	p.Write(y, hy)
	if mask != nil {
		p.MulElem(x, x, mask)
		p.MulElem(y, y, mask)
	}
	p.Schur(nx, x)
	p.Schur(ny, y)
	a, b := p.Dot(y, nx), p.Dot(x, ny)
	scale := math.Sqrt(p.Dot(y, y)*p.Dot(nx, nx)) + math.Sqrt(p.Dot(x, x)*p.Dot(ny, ny))
	return math.Abs(a-b) > pdipSymTol*scale
}

// solve sets c.x to the solution of (M N̂ M + H) x = b from x = 0, where
// N̂ = N/sN and M = diag(mask) (nil: the identity) zeroes the fixed rows.
// It stops at the relative tolerance pdipCGTol, after 2n + 50 iterations
// (n in exact arithmetic; rounding on badly conditioned systems needs
// more), or at a non-positive curvature dᵀ(N̂ + H)d ≤ 0, which only the
// rounding of a singular N produces: it then keeps the iterate so far
// (truncated Newton), or the preconditioned gradient z at the first
// iteration; either is a descent direction of φ_t.
func (c *pdipCG) solve(w *pdipWork, b Vec, sN float64, mask Vec) error {
	if c.nonsym {
		return c.solveNonsym(w, b, sN, mask)
	}
	p := c.p
	if d, ok := p.(DevicePCG); ok && deviceTakes(p) {
		return c.solveDevice(d, w, b, sN, mask)
	}
	prec := func() {
		p.Read(w.in, c.r)
		w.applyPrec(w.in, w.out)
		p.Write(c.z, w.out)
	}
	p.Fill(c.x, 0)
	p.Copy(c.r, b)
	prec()
	p.Copy(c.d, c.z)
	rz := p.Dot(c.r, c.z)
	if math.IsNaN(rz) || math.IsInf(rz, 0) {
		return PCGEnd{Fail: PCGRHS, Value: rz}.err()
	}
	stop := pdipCGTol * pdipCGTol * rz
	for it := 0; it < 2*b.Len()+50 && rz > stop; it++ {
		p.Schur(c.q, c.d)
		p.Axpby(c.q, 1/sN, c.q, 0, c.q)
		if mask != nil {
			p.MulElem(c.q, c.q, mask)
		}
		p.Read(w.in, c.d)
		w.applyH(w.in, w.out)
		p.Write(c.hd, w.out)
		p.Axpby(c.q, 1, c.q, 1, c.hd)
		dq := p.Dot(c.d, c.q)
		if math.IsNaN(dq) || math.IsInf(dq, 0) {
			return PCGEnd{Iterations: it, Fail: PCGCurvature, Value: dq}.err()
		}
		if dq <= 0 {
			if it == 0 {
				p.Copy(c.x, c.z)
			}
			return nil
		}
		alpha := rz / dq
		p.Axpby(c.x, 1, c.x, alpha, c.d)
		p.Axpby(c.r, 1, c.r, -alpha, c.q)
		prec()
		rzNew := p.Dot(c.r, c.z)
		if math.IsNaN(rzNew) || math.IsInf(rzNew, 0) {
			return PCGEnd{Iterations: it, Fail: PCGResidual, Value: rzNew}.err()
		}
		p.Axpby(c.d, 1, c.z, rzNew/rz, c.d)
		rz = rzNew
	}
	return nil
}

// solveDevice is solve on a backend that runs the PCG loop itself
// (DevicePCG), with solve's errors.
func (c *pdipCG) solveDevice(d DevicePCG, w *pdipWork, b Vec, sN float64, mask Vec) error {
	nc := w.nc
	j := &w.j
	for r := range j.nj {
		j.pj[r] = w.diag[3*nc+r] + j.hj[r]
	}
	end, err := d.SolvePCG(c.x, b, PCGSystem{H: w.h, Prec: w.pc, HJ: j.hj, PJ: j.pj, InvSN: 1 / sN, Mask: mask,
		MaxIter: 2*b.Len() + 50, StopFactor: pdipCGTol * pdipCGTol})
	if err != nil {
		return err
	}
	return end.err()
}

// err is solve's error for a PCG solve that ended as e: nil unless a value
// was not finite.
func (e PCGEnd) err() error {
	switch e.Fail {
	case PCGRHS:
		return fmt.Errorf("PCG: right-hand side is not finite")
	case PCGCurvature:
		return fmt.Errorf("PCG breakdown at iteration %d: dᵀ(N + H)d = %v", e.Iterations, e.Value)
	case PCGResidual:
		return fmt.Errorf("PCG breakdown at iteration %d: rᵀz = %v", e.Iterations, e.Value)
	}
	return nil
}

// apply sets dst = (M N̂ M + H) v, M = diag(mask) (nil: the identity).
func (c *pdipCG) apply(w *pdipWork, dst, v Vec, sN float64, mask Vec) {
	p := c.p
	p.Schur(dst, v)
	p.Axpby(dst, 1/sN, dst, 0, dst)
	if mask != nil {
		p.MulElem(dst, dst, mask)
	}
	p.Read(w.in, v)
	w.applyH(w.in, w.out)
	p.Write(c.hd, w.out)
	p.Axpby(dst, 1, dst, 1, c.hd)
}

// precond sets dst = P⁻¹ src with P the block-Jacobi preconditioner.
func (c *pdipCG) precond(w *pdipWork, dst, src Vec) {
	c.p.Read(w.in, src)
	w.applyPrec(w.in, w.out)
	c.p.Write(dst, w.out)
}

// solveNonsym sets c.x to an approximate solution of (M N̂ M + H) x = b
// from x = 0 when N is not symmetric (then neither is the Newton matrix,
// and conjugate gradients do not apply): right-preconditioned BiCGSTAB
// (van der Vorst 1992; Saad, Iterative Methods for Sparse Linear Systems,
// Algorithm 7.7 with the preconditioner P of the PCG path), two products
// with N per iteration. It stops on the preconditioned residual as PCG does,
// √(rᵀP⁻¹r) ≤ pdipCGTol √(bᵀP⁻¹b) with r = b − Ax, after 2n +
// 50 iterations, or at a breakdown (r̂₀ᵀv = 0 or tᵀt = 0). The Newton
// matrix's symmetric part is positive definite where N's is positive
// semidefinite (as the VI needs), so the exact solution is a descent
// direction of the line search's merit (bᵀA⁻¹b > 0); an inexact one that
// is not (bᵀx ≤ 0) is replaced by the preconditioned right-hand side P⁻¹b,
// which is one (bᵀP⁻¹b > 0).
func (c *pdipCG) solveNonsym(w *pdipWork, b Vec, sN float64, mask Vec) error {
	p := c.p
	// Roles: r residual, r0 the shadow residual r̂₀, d the direction p,
	// z = P⁻¹p, q = A z (v), sh = P⁻¹s then P⁻¹r, tv = A ŝ; s overwrites r.
	p.Fill(c.x, 0)
	p.Copy(c.r, b)
	p.Copy(c.r0, b)
	p.Fill(c.d, 0)
	p.Fill(c.q, 0)
	c.precond(w, c.sh, c.r)
	rz := p.Dot(c.r, c.sh)
	if math.IsNaN(rz) || math.IsInf(rz, 0) {
		return fmt.Errorf("BiCGSTAB: right-hand side is not finite")
	}
	stop := pdipCGTol * pdipCGTol * rz
	rho, alpha, omega := 1.0, 1.0, 1.0
	for it := 0; it < 2*b.Len()+50 && rz > stop; it++ {
		rhoNew := p.Dot(c.r0, c.r)
		if rhoNew == 0 || math.IsNaN(rhoNew) || math.IsInf(rhoNew, 0) {
			break
		}
		beta := rhoNew / rho * alpha / omega
		rho = rhoNew
		// p = r + β(p − ωv)
		p.Axpby(c.d, 1, c.d, -omega, c.q)
		p.Axpby(c.d, 1, c.r, beta, c.d)
		c.precond(w, c.z, c.d)
		c.apply(w, c.q, c.z, sN, mask)
		rv := p.Dot(c.r0, c.q)
		if rv == 0 || math.IsNaN(rv) || math.IsInf(rv, 0) {
			break
		}
		alpha = rho / rv
		p.Axpby(c.x, 1, c.x, alpha, c.z)
		p.Axpby(c.r, 1, c.r, -alpha, c.q) // s
		c.precond(w, c.sh, c.r)
		if rz = p.Dot(c.r, c.sh); rz <= stop {
			break
		}
		c.apply(w, c.tv, c.sh, sN, mask)
		tt := p.Dot(c.tv, c.tv)
		if tt == 0 || math.IsNaN(tt) || math.IsInf(tt, 0) {
			break
		}
		omega = p.Dot(c.tv, c.r) / tt
		if omega == 0 || math.IsNaN(omega) {
			break
		}
		p.Axpby(c.x, 1, c.x, omega, c.sh)
		p.Axpby(c.r, 1, c.r, -omega, c.tv)
		c.precond(w, c.sh, c.r)
		rz = p.Dot(c.r, c.sh)
	}
	if bx := p.Dot(b, c.x); !(bx > 0) {
		c.precond(w, c.x, b)
	}
	return nil
}
