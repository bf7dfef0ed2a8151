package engine

import (
	"errors"
	"fmt"
	"math"
)

// Status is the outcome of a solve, as gpusim solve and compare report it.
type Status string

const (
	// StatusConverged: the residual of eq. 25 fell below the tolerance and
	// no certificate of unboundedness was found.
	StatusConverged Status = "converged"
	// StatusNotConverged: the solver stopped (at MaxIter, or at its own
	// stopping test) with the residual at or above the tolerance.
	StatusNotConverged Status = "not_converged"
	// StatusUnbounded: the objective is unbounded below over the cones
	// (see Unbounded); no solution exists, whatever the solver reported.
	StatusUnbounded Status = "unbounded"
	// StatusFailed: the solver returned an error.
	StatusFailed Status = "failed"
)

// UnboundedRho is ρ of the certificate test of Unbounded: a ray δ of the
// cones certifies unboundedness when its curvature δᵀNδ is at most ρ times
// its descent −r′ᵀδ.
//
// Why that ratio and why 1e-6. With the cohesion shift taken out
// (δ = γ + c, r′ = r − Nc, so that δ ranges over the unshifted cones K),
// the objective along δ's ray is φ(s) = ½s²·δᵀNδ + s·r′ᵀδ + const. At a
// minimizer γ* of a bounded problem complementarity gives
// δ*ᵀ(Nδ* + r′) = 0, so the ratio δ*ᵀNδ* / (−r′ᵀδ*) is exactly 1,
// whatever the conditioning of N or the size of γ*. On an unbounded
// problem the iterates run off along a d ∈ K with Nd = 0 and r′ᵀd < 0:
// γ_k ≈ γ_b + s_k d with s_k → ∞, δᵀNδ stays at γ_bᵀNγ_b while −r′ᵀδ
// grows like s_k, and the ratio falls like 1/s_k (to 0 when N = 0). A
// ratio ≤ ρ says that φ still decreases out to s = 1/ρ times the returned
// γ, by at least (−r′ᵀδ)/(2ρ): the problem is unbounded, or its minimum
// lies 10⁶ times farther out along this ray than the solver went — which
// no converged solve can show (its ratio is 1 up to its residual) and
// which, for an unconverged one, means a problem within a relative
// perturbation of about ρ of an unbounded one. Larger ρ would catch slowly
// diverging solvers sooner (Gauss–Seidel's γ grows linearly in the
// iterations) at the price of calling ill-conditioned, unconverged solves
// unbounded.
const UnboundedRho = 1e-6

// Certificate is the evidence that a problem's objective ½γᵀNγ + rᵀγ is
// unbounded below over the cones: a direction d of the unshifted cones K
// along which N has (numerically) no curvature and the objective descends.
// Exactly, such a d with Nd = 0 and rᵀd < 0 makes the problem unbounded:
// γ = s·d is feasible for every s ≥ 0 (the cohesion shift only enlarges the
// cones) and its objective is s·rᵀd → −∞. For positive semidefinite N the
// converse holds too (the problem is always feasible, γ = 0).
type Certificate struct {
	// From says where d comes from: "the returned γ" (its ray, shifted by
	// the cohesion impulses and projected onto K), or "zero blocks of N"
	// (contacts i with N_ii = 0, whose r_i lies outside the dual cone:
	// μ_i‖r_i,T‖ > r_i,n).
	From string `json:"from"`
	// Norm is ‖δ‖ of the tested δ = t·d (t = Norm).
	Norm float64 `json:"norm"`
	// Curvature is δᵀNδ = t²·dᵀNd.
	Curvature float64 `json:"curvature"`
	// Slope is r′ᵀδ = t·r′ᵀd with r′ = r − Nc (c the cohesion impulses on
	// the normal rows); negative.
	Slope float64 `json:"slope"`
	// Ratio is Curvature / (−Slope), at most UnboundedRho.
	Ratio float64 `json:"ratio"`
}

// Unbounded looks for a certificate that p is unbounded below over the
// cones, testing the ray of gamma (a solver's result; nil for none, as
// after a failed solve) and the direction made of the contacts whose block
// N_ii is zero (for positive semidefinite N all of row and column i are
// then zero, so a descent ray of K_i alone is an exact certificate; this
// finds unboundedness that solvers needing g_i > 0 cannot reach). A ray
// δ ≠ 0 of K certifies when r′ᵀδ < 0 and δᵀNδ ≤ UnboundedRho·(−r′ᵀδ) (see
// UnboundedRho). A problem with joint or rolling rows is not tested (nil). It returns nil when neither does, or an error when N or r
// is not finite. It costs up to two products with N and reads gamma, r and
// the cones back to the host.
func Unbounded(p Problem, gamma Vec) (*Certificate, error) {
	nc := p.Contacts()
	n := 3 * nc
	if n == 0 || jointRowsOf(p) > 0 || rollingOf(p) > 0 {
		// Joint and rolling rows are not tested: the certificate is for cones.
		return nil, nil
	}
	mu, coh := make([]float64, nc), make([]float64, nc)
	p.Cones(mu, coh)
	r := make([]float64, n)
	p.Read(r, p.R())
	var cands [][]float64
	var from []string
	if gamma != nil {
		if gamma.Len() != n {
			return nil, fmt.Errorf("engine: Unbounded: gamma has length %d, want %d", gamma.Len(), n)
		}
		d := make([]float64, n)
		p.Read(d, gamma)
		for i := range nc {
			d[3*i] += coh[i]
			projectK(d[3*i:3*i+3], mu[i])
		}
		cands, from = append(cands, d), append(from, "the returned γ")
	}
	g := make([]float64, n)
	diag := p.NewVec(n)
	p.BlockDiag(diag)
	p.Read(g, diag)
	var d []float64
	for i := range nc {
		rn, rt := r[3*i], math.Hypot(r[3*i+1], r[3*i+2])
		if g[3*i] != 0 || !(mu[i]*rt > rn) {
			continue
		}
		if d == nil {
			d = make([]float64, n)
		}
		// The ray of K_i of steepest descent for r_i: (1, −μ r_T/‖r_T‖),
		// whose slope r_n − μ‖r_T‖ is negative.
		d[3*i] = 1
		if rt > 0 {
			d[3*i+1], d[3*i+2] = -mu[i]*r[3*i+1]/rt, -mu[i]*r[3*i+2]/rt
		}
	}
	if d != nil {
		cands, from = append(cands, d), append(from, "zero blocks of N")
	}
	nd, dv := p.NewVec(n), p.NewVec(n)
	w := make([]float64, n)
	for k, d := range cands {
		c, err := testRay(p, d, coh, r, dv, nd, w)
		if err != nil {
			return nil, err
		}
		if c != nil {
			c.From = from[k]
			return c, nil
		}
	}
	return nil, nil
}

// errNotFinite reports N or r with values that are not finite.
var errNotFinite = errors.New("engine: Unbounded: N or r is not finite")

// testRay applies the certificate test to δ (host values) and returns the
// certificate, or nil. dv and nd are scratch vectors of p, w host scratch.
func testRay(p Problem, delta, coh, r []float64, dv, nd Vec, w []float64) (*Certificate, error) {
	norm := 0.0
	for _, v := range delta {
		norm += v * v
	}
	norm = math.Sqrt(norm)
	if !(norm > 0) || math.IsInf(norm, 0) {
		// γ = 0 (or the cohesion floor) is no ray; Inf or NaN is no
		// evidence either.
		return nil, nil
	}
	p.Write(dv, delta)
	p.Schur(nd, dv)
	p.Read(w, nd)
	curv, slope := 0.0, 0.0
	for i, v := range delta {
		curv += v * w[i]
		slope += v * r[i]
	}
	for i, c := range coh {
		slope -= c * w[3*i] // r′ = r − Nc: c on the normal rows
	}
	if math.IsNaN(curv) || math.IsInf(curv, 0) || math.IsNaN(slope) || math.IsInf(slope, 0) {
		return nil, errNotFinite
	}
	if !(slope < 0) || !(curv <= UnboundedRho*-slope) {
		return nil, nil
	}
	return &Certificate{Norm: norm, Curvature: curv, Slope: slope, Ratio: curv / -slope}, nil
}

// projectK projects x = (x_n, x_u, x_w) onto the unshifted cone
// ‖(x_u, x_w)‖ ≤ μ x_n in place (the Problem's Project with c = 0).
func projectK(x []float64, mu float64) {
	n, t := x[0], math.Hypot(x[1], x[2])
	switch {
	case t <= mu*n:
	case mu*t <= -n:
		x[0], x[1], x[2] = 0, 0, 0
	default:
		n2 := (mu*t + n) / (mu*mu + 1)
		s := mu * n2 / t
		x[0], x[1], x[2] = n2, x[1]*s, x[2]*s
	}
}

// Classify returns the status of a solve of p that returned st and err and
// left gamma: unbounded when Unbounded finds a certificate (from gamma
// unless the solve failed, and from N's zero blocks either way), else
// failed on an error, else converged or not_converged by st.Converged. The
// certificate is nil unless the status is unbounded. An error of Unbounded
// itself (N or r not finite) leaves the status as the solve gave it.
func Classify(p Problem, gamma Vec, st SolveStats, err error) (Status, *Certificate) {
	g := gamma
	if err != nil {
		g = nil
	}
	if c, uerr := Unbounded(p, g); uerr == nil && c != nil {
		return StatusUnbounded, c
	}
	switch {
	case err != nil:
		return StatusFailed, nil
	case st.Converged:
		return StatusConverged, nil
	}
	return StatusNotConverged, nil
}
