package cpuref

import "math"

// ProjectCone projects (xn, xu, xw) onto the friction cone
// {‖(γ_u, γ_w)‖ ≤ μ(γ_n + c)} shifted by the cohesion impulse c ≥ 0 (APGD
// paper, section 2.4): shift by c, project onto the cone of slope μ, shift
// back. The projection onto {‖t‖ ≤ μ n} is
//
//	inside (‖t‖ ≤ μ n):          unchanged
//	in the polar cone (μ‖t‖ ≤ −n): 0
//	otherwise:                    n' = (μ‖t‖ + n)/(μ² + 1), t' = t·μn'/‖t‖.
//
// With μ = 0 the cone is the ray n ≥ 0: (max(n, 0), 0, 0).
func ProjectCone(xn, xu, xw, mu, c float64) (float64, float64, float64) {
	n := xn + c
	q := xu*xu + xw*xw // no overflow concern at impulse scales; Hypot is 3× slower
	if mu == 0 {
		return math.Max(n, 0) - c, 0, 0
	}
	if clearlyInside(q, mu*n) {
		return xn, xu, xw
	}
	t := math.Sqrt(q)
	if t <= mu*n {
		return xn, xu, xw
	}
	if mu*t <= -n {
		return -c, 0, 0
	}
	np := (mu*t + n) / (mu*mu + 1)
	s := mu * np / t
	return np - c, xu * s, xw * s
}

// RelaxContact returns a contact's projected Gauss–Seidel update
// λ·Π(x − s·u) + (1 − λ)·x of its impulse x (3 values: normal, tangents)
// with u = (Nγ + r) on its rows, s = ω/g_i and Π ProjectCone with friction
// mu and cohesion impulse c.
func RelaxContact(x []float64, u [3]float64, s, lambda, mu, c float64) [3]float64 {
	n, tu, tw := ProjectCone(x[0]-s*u[0], x[1]-s*u[1], x[2]-s*u[2], mu, c)
	return [3]float64{lambda*n + (1-lambda)*x[0], lambda*tu + (1-lambda)*x[1], lambda*tw + (1-lambda)*x[2]}
}

// stride1 is the step of a contact's index into a per-contact slice s: 0
// where s holds one value that every contact takes, else 1.
func stride1(s []float64) int {
	if len(s) == 1 {
		return 0
	}
	return 1
}

// clearlyInside reports, without a square root, that t = RN(√q) ≤ a, the
// cone test of ProjectCone, where q is clearly below a²: q < RN(RN(a·a)·(1 −
// 2⁻⁵⁰)) implies q < a² (each rounding moves a normal value by at most
// 2⁻⁵³ relative), so √q < a and RN(√q) ≤ a. Where it reports false the
// caller takes the square root and the test itself, so the branch and the
// bits are those of the test alone (TestClearlyInside); most contacts of a
// settled pile stick and take the shortcut.
func clearlyInside(q, a float64) bool {
	if !(a > 0) {
		return false
	}
	p := a * a
	return p >= 0x1p-900 && p <= math.MaxFloat64 && q < p*(1-0x1p-50)
}

// projectCones sets d_k = ProjectCone(x_k, μ_k, c_k) for the contacts k in
// [lo, hi) (3 per contact, d may alias x): ProjectCone's arithmetic
// written out in the loop, which the compiler does not inline
// (TestProjectConesBits); eight contacts at a time where useSIMD
// (projectCones8, the same bits). A mu or coh of one value gives every
// contact that value (a model of one material: Backend.mu).
func projectCones(d, x, mu, coh []float64, lo, hi int) {
	if useSIMD {
		lo = projectCones8(d, x, mu, coh, lo, hi)
	}
	ms, cs := stride1(mu), stride1(coh)
	for k := lo; k < hi; k++ {
		xn, xu, xw, m, c := x[3*k], x[3*k+1], x[3*k+2], mu[k*ms], coh[k*cs]
		n := xn + c
		q := xu*xu + xw*xw
		if m != 0 && clearlyInside(q, m*n) {
			d[3*k], d[3*k+1], d[3*k+2] = xn, xu, xw
			continue
		}
		t := math.Sqrt(q)
		switch {
		case m == 0:
			d[3*k], d[3*k+1], d[3*k+2] = math.Max(n, 0)-c, 0, 0
		case t <= m*n:
			d[3*k], d[3*k+1], d[3*k+2] = xn, xu, xw
		case m*t <= -n:
			d[3*k], d[3*k+1], d[3*k+2] = -c, 0, 0
		default:
			np := (m*t + n) / (m*m + 1)
			s := m * np / t
			d[3*k], d[3*k+1], d[3*k+2] = np-c, xu*s, xw*s
		}
	}
}
