package fclib

import (
	"fmt"
	"math"
)

// Report holds the measures of a candidate γ, with the names and
// definitions of shared/fclib/check.py (u = Nγ + r, K the product of the
// cones, Π_K the projection onto it, e_n the normal direction of each
// contact, ‖·‖ the Euclidean norm over all 3nc values).
type Report struct {
	// Objective is ½γᵀNγ + rᵀγ.
	Objective float64 `json:"objective"`
	// Gd is the g_d of CCPResChrono.
	Gd float64 `json:"gd"`
	// CCPResChrono is ‖γ − Π_K(γ − g_d u)‖ / g_d, Chrono's projected
	// gradient residual; with the same g_d it is 3nc times the residual of
	// eq. 25 of the APGD paper (engine.SolveStats.ProjGrad).
	CCPResChrono float64 `json:"ccp_res_chrono"`
	// CCPResNatmap is ‖γ − Π_K(γ − u)‖, the natural map at ρ = 1.
	CCPResNatmap float64 `json:"ccp_res_natmap"`
	// CCPResRel is CCPResNatmap / max(‖r‖, ‖γ‖, ‖u‖) (unscaled when that
	// maximum is below machine epsilon).
	CCPResRel float64 `json:"ccp_res_rel"`
	// FCErrAbs is ‖γ − Π_K(γ − ũ)‖ with ũ_i = u_i + μ_i‖u_i,T‖e_n, the
	// De Saxcé natural map of the exact Coulomb problem (Siconos
	// fc3d_unitary_compute_and_add_error, summed).
	FCErrAbs float64 `json:"fc_err_abs"`
	// FCErrSiconos is FCErrAbs / max(‖r‖, ‖γ‖, ‖u‖) (Siconos
	// fc3d_compute_error; unscaled below machine epsilon).
	FCErrSiconos float64 `json:"fc_err_siconos"`
	// FCErrSiconosOld is FCErrAbs / (‖r‖ + 1).
	FCErrSiconosOld float64 `json:"fc_err_siconos_old"`
	// FCErrFCLib is FCErrAbs / (1 + √‖r‖) (fclib_merit_local).
	FCErrFCLib float64 `json:"fc_err_fclib"`
	// MaxConeViolation is max_i max(‖γ_i,T‖ − μ_i(γ_i,n + c_i), 0).
	MaxConeViolation float64 `json:"max_cone_violation"`
	// MaxDualViolation is max_i max(μ_i‖u_i,T‖ − u_i,n, 0), the violation
	// of the dual cone by the De Saxcé velocity ũ.
	MaxDualViolation float64 `json:"max_dual_violation"`
	// ComplementarityGTu is Σ_i (γ_i + c_i e_n)ᵀu_i, γᵀu without cohesion.
	ComplementarityGTu float64 `json:"complementarity_gTu"`
	// NormQ, NormGamma and NormU are ‖r‖, ‖γ‖ and ‖u‖.
	NormQ            float64 `json:"norm_q"`
	NormGamma        float64 `json:"norm_gamma"`
	NormU            float64 `json:"norm_u"`
	NumberOfContacts int     `json:"number_of_contacts"`
}

// DefaultGd returns check.py's default g_d, 1/(3nc)².
func DefaultGd(nc int) float64 {
	n := float64(3 * nc)
	return 1 / (n * n)
}

// Measures returns the measures of γ for p with check.py's g_d = 1/(3nc)².
// It panics if γ does not have 3nc values.
func Measures(p *Problem, gamma []float64) Report {
	return MeasuresGd(p, gamma, DefaultGd(p.NC))
}

// MeasuresGd is Measures with the given g_d (check.py --gd).
//
// It follows check.py line by line, with two differences that matter only
// where check.py does not apply: the projection tests the polar cone
// before the cone, as Siconos' projectionOnCone does (check.py tests the
// cone first, which for μ = 0 leaves (γ_n < 0, 0, 0) unprojected; for
// μ > 0 the two orders agree), and a cohesion impulse c_i shifts the cone
// (γ_n → γ_n + c_i in the projection, the cone violation and the
// complementarity product), as in the solvers. Without cohesion and with
// μ > 0 the numbers agree with check.py to rounding.
func MeasuresGd(p *Problem, gamma []float64, gd float64) Report {
	n := p.N()
	if len(gamma) != n {
		panic(fmt.Sprintf("fclib: Measures: gamma has %d values, problem %q needs %d", len(gamma), p.Name, n))
	}
	u := make([]float64, n)
	for _, e := range p.Entries {
		u[e.Row] += e.Val * gamma[e.Col]
	}
	// ½γᵀ(Nγ) + rᵀγ, Nγ before r is added, as check.py computes W @ g.
	rep := Report{Gd: gd, NumberOfContacts: p.NC}
	rep.Objective = 0.5*dot(gamma, u) + dot(p.Q, gamma)
	for i := range u {
		u[i] += p.Q[i]
	}
	nq, ng, nu := norm(p.Q), norm(gamma), norm(u)
	rep.NormQ, rep.NormGamma, rep.NormU = nq, ng, nu
	scale := max(nq, ng, nu)
	const eps = 0x1p-52 // np.finfo(float).eps
	rel := func(x float64) float64 {
		if scale > eps {
			return x / scale
		}
		return x
	}

	var chrono, nat, fc, compl float64
	for i := 0; i < p.NC; i++ {
		mu, c := p.Mu[i], 0.0
		if p.Cohesion != nil {
			c = p.Cohesion[i]
		}
		g := gamma[3*i : 3*i+3]
		ui := u[3*i : 3*i+3]
		ut := hypot(ui[1], ui[2])
		// ‖γ − Π(γ − g_d u)‖ / g_d: the squares are summed here and the
		// root taken and divided by g_d at the end, as in check.py.
		chrono += distSq(g, [3]float64{g[0] - gd*ui[0], g[1] - gd*ui[1], g[2] - gd*ui[2]}, mu, c)
		nat += distSq(g, [3]float64{g[0] - ui[0], g[1] - ui[1], g[2] - ui[2]}, mu, c)
		fc += distSq(g, [3]float64{g[0] - (ui[0] + mu*ut), g[1] - ui[1], g[2] - ui[2]}, mu, c)
		rep.MaxConeViolation = math.Max(rep.MaxConeViolation, hypot(g[1], g[2])-mu*(g[0]+c))
		rep.MaxDualViolation = math.Max(rep.MaxDualViolation, mu*ut-ui[0])
		compl += (g[0]+c)*ui[0] + g[1]*ui[1] + g[2]*ui[2]
	}
	rep.CCPResChrono = math.Sqrt(chrono) / gd
	rep.CCPResNatmap = math.Sqrt(nat)
	rep.CCPResRel = rel(rep.CCPResNatmap)
	rep.FCErrAbs = math.Sqrt(fc)
	rep.FCErrSiconos = rel(rep.FCErrAbs)
	rep.FCErrSiconosOld = rep.FCErrAbs / (nq + 1)
	rep.FCErrFCLib = rep.FCErrAbs / (1 + math.Sqrt(nq))
	rep.ComplementarityGTu = compl
	return rep
}

// distSq returns ‖g − Π(x)‖² for one contact.
func distSq(g []float64, x [3]float64, mu, c float64) float64 {
	pn, pu, pw := projectCone(x[0], x[1], x[2], mu, c)
	dn, du, dw := g[0]-pn, g[1]-pu, g[2]-pw
	return dn*dn + du*du + dw*dw
}

// projectCone is check.py's proj_cone (Siconos projectionOnCone) on the
// cone shifted by c: with n = x_n + c and t = ‖(x_u, x_w)‖ (hypot,
// correctly rounded as numpy's),
//
//	polar (μt ≤ −n):  (−c, 0, 0)
//	inside (t ≤ μn):  x
//	otherwise:        n' = (μt + n)/(μ² + 1), (n' − c, x_u μn'/t, x_w μn'/t).
//
// It is cpuref.ProjectCone up to the rounding of the tangential norm.
func projectCone(xn, xu, xw, mu, c float64) (float64, float64, float64) {
	n := xn + c
	t := hypot(xu, xw)
	if mu*t <= -n {
		return -c, 0, 0
	}
	if t <= mu*n {
		return xn, xu, xw
	}
	n2 := (mu*t + n) / (mu*mu + 1)
	s := 0.0
	if t > 0 {
		s = mu * n2 / t
	}
	return n2 - c, xu * s, xw * s
}

func dot(x, y []float64) float64 {
	s := 0.0
	for i := range x {
		s += x[i] * y[i]
	}
	return s
}

func norm(x []float64) float64 { return math.Sqrt(dot(x, x)) }
