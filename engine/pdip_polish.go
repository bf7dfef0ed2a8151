package engine

import (
	"math"
)

// PDIP's crossover: when the interior-point iteration stops above the
// tolerance, a semismooth Newton method on the natural map finishes the
// solve from its best point.
//
// Why: an interior iterate approaches a degenerate contact (γ* and u* both
// zero, strict complementarity failing) only as the square root of the
// duality gap, and the gap's float64 floor then leaves r of eq. 25 above
// 1e-8 (FCLib's NESpheres_30_1 stopped at ccp_res_chrono 2.3e-7). Interior
// point codes for linear programs end with a crossover to the active set
// for the same reason; here the active set is found by the projection
// itself. The natural map
//
//	F(x) = x − Π(x − G(N̂x + r̂)),  G = diag(g_i), g_i = 1/N̂_ii per block,
//
// is zero exactly at the solutions of the cone complementarity problem (a
// positive scalar per cone leaves its fixed points unchanged; the same
// holds for a monotone variational inequality, so a non-symmetric N is
// solved too). It is piecewise smooth, and Newton's method with an element
// P of the projection's generalised Jacobian at z = x − G(N̂x + r̂),
//
//	(I − P + P G N̂) d = −F(x),
//
// converges locally superlinearly (Qi and Sun 1993; Hayashi, Yamashita and
// Fukushima 2005 for second-order cones, whose projection Jacobian is that
// of projJacobian). Per block P_i is I inside the cone, 0 inside its polar
// and the derivative of the projection onto the surface between; with
// g_i = 1/N̂_ii the block-diagonal part of the Newton matrix is the
// identity, so the system is solved by GMRES without a preconditioner. The
// step is damped by backtracking on ‖F‖. Each accepted step counts as an
// iteration (so MaxIter bounds both phases), and the returned point is
// still the one of smallest r among all candidates, the projected Newton
// iterates and their purifications included: the crossover can only lower
// r.
const (
	// pdipPolishGMRES is GMRES's restart length m and, times
	// pdipPolishRestarts, its iteration budget per Newton step.
	pdipPolishGMRES    = 20
	pdipPolishRestarts = 10
	// pdipPolishBacktrack bounds the halvings of the Newton step; 2^-30 ≈
	// 1e-9 of a step is no progress worth another product.
	pdipPolishBacktrack = 30
	// pdipPolishArmijo is the sufficient decrease of ‖F‖: (1 − σ s).
	pdipPolishArmijo = 1e-4
	// pdipPolishStall stops the crossover after this many Newton steps
	// without a new smallest r.
	pdipPolishStall = 5
)

// pdipPolish holds the crossover's host vectors (scaled units).
type pdipPolish struct {
	n          int
	g          []float64 // g_i per row (the block's value on its three rows)
	x, f, d, z []float64 // iterate, F(x), Newton direction, z
	xt, ft     []float64 // trial iterate and F there
	pj         []float64 // per contact, P_i (9); per joint row, P_r (1)
	nx, tmp    []float64
	// GMRES
	v          [][]float64
	h          [][]float64
	cs, sn, s  []float64
	yv, w, rhs []float64
}

// newPDIPPolish carves every vector from one allocation: newPDIPWork makes
// it with the rest of the solve's work space, so that the crossover's
// steps, like the interior-point iterations, allocate nothing.
func newPDIPPolish(nc, nj int) *pdipPolish {
	n := 3*nc + nj
	m := pdipPolishGMRES
	q := &pdipPolish{n: n}
	vecs := []*[]float64{&q.g, &q.x, &q.f, &q.d, &q.z, &q.xt, &q.ft, &q.nx, &q.tmp, &q.w, &q.rhs}
	buf := make([]float64, (len(vecs)+m+1)*n+9*nc+nj+(m+1)*m+4*m+1)
	take := func(k int) []float64 {
		s := buf[:k:k]
		buf = buf[k:]
		return s
	}
	for _, v := range vecs {
		*v = take(n)
	}
	q.pj = take(9*nc + nj)
	q.v, q.h = make([][]float64, m+1), make([][]float64, m+1)
	for k := range m + 1 {
		q.v[k], q.h[k] = take(n), take(m)
	}
	q.cs, q.sn, q.s, q.yv = take(m), take(m), take(m+1), take(m)
	return q
}

// projJacobian sets p to the projection of z onto the cone
// {(n, t) : ‖t‖ ≤ μ(n + c)} (cohesion c shifts its apex to n = −c) and P
// (row-major 3×3) to its derivative at z, an element of the B-subdifferential
// on the kinks. μ = 0: the half-line n ≥ −c with t = 0.
func projJacobian(z []float64, mu, c float64, p, P []float64) {
	clear(P[:9])
	a, u, v := z[0]+c, z[1], z[2]
	if mu == 0 {
		p[1], p[2] = 0, 0
		if a > 0 {
			p[0], P[0] = z[0], 1
		} else {
			p[0] = -c
		}
		return
	}
	rho := math.Sqrt(u*u + v*v)
	switch {
	case rho <= mu*a: // inside
		copy(p, z[:3])
		P[0], P[4], P[8] = 1, 1, 1
	case mu*rho <= -a: // inside the polar cone: the apex
		p[0], p[1], p[2] = -c, 0, 0
	default: // onto the surface
		k := 1 + mu*mu
		s := (a + mu*rho) / k // the projection's a
		tu, tv := u/rho, v/rho
		p[0], p[1], p[2] = s-c, mu*s*tu, mu*s*tv
		// ∂s/∂a = 1/k, ∂s/∂t = μ t̂ᵀ/k; ∂(μ s t̂)/∂t = μ² t̂t̂ᵀ/k + μ s (I − t̂t̂ᵀ)/ρ.
		P[0], P[1], P[2] = 1/k, mu*tu/k, mu*tv/k
		P[3], P[6] = mu*tu/k, mu*tv/k
		e := mu * s / rho
		P[4] = mu*mu*tu*tu/k + e*(1-tu*tu)
		P[5] = mu*mu*tu*tv/k - e*tu*tv
		P[7] = P[5]
		P[8] = mu*mu*tv*tv/k + e*(1-tv*tv)
	}
}

// natural sets q.f = F(x) and, with jac, the blocks of P at z; it needs
// q.nx = N̂x. It returns ‖F‖.
func (q *pdipPolish) natural(w *pdipWork, x, f []float64, jac bool) float64 {
	var pz [3]float64
	var P [9]float64
	nc := w.nc
	for k := range q.n {
		q.z[k] = x[k] - q.g[k]*(q.nx[k]+w.r[k])
	}
	for i := range nc {
		projJacobian(q.z[3*i:3*i+3], w.mu[i], w.coh[i], pz[:], P[:])
		for a := range 3 {
			f[3*i+a] = x[3*i+a] - pz[a]
		}
		if jac {
			copy(q.pj[9*i:9*i+9], P[:])
		}
	}
	for r := range w.j.nj {
		k := 3*nc + r
		zc := math.Min(math.Max(q.z[k], w.j.lo[r]), w.j.hi[r])
		f[k] = x[k] - zc
		if jac {
			q.pj[9*nc+r] = 0
			if zc == q.z[k] {
				q.pj[9*nc+r] = 1
			}
		}
	}
	s := 0.0
	for _, v := range f {
		s += v * v
	}
	return math.Sqrt(s)
}

// applyP sets out = P·in, block by block.
func (q *pdipPolish) applyP(w *pdipWork, in, out []float64) {
	nc := w.nc
	for i := range nc {
		P := q.pj[9*i : 9*i+9]
		a, b, c := in[3*i], in[3*i+1], in[3*i+2]
		out[3*i] = P[0]*a + P[1]*b + P[2]*c
		out[3*i+1] = P[3]*a + P[4]*b + P[5]*c
		out[3*i+2] = P[6]*a + P[7]*b + P[8]*c
	}
	for r := range w.j.nj {
		k := 3*nc + r
		out[k] = q.pj[9*nc+r] * in[k]
	}
}

// schur sets out = N̂·in through the problem's product.
func (q *pdipPolish) schur(p Problem, a, b Vec, sN float64, mask Vec, in, out []float64) {
	p.Write(a, in)
	if mask != nil {
		p.MulElem(a, a, mask)
	}
	p.Schur(b, a)
	p.Read(out, b)
	for k := range out {
		out[k] /= sN
	}
}

// jacobian sets out = (I − P + P G N̂)·in = in − P(in − G N̂ in).
func (q *pdipPolish) jacobian(p Problem, w *pdipWork, a, b Vec, sN float64, mask Vec, in, out []float64) {
	q.schur(p, a, b, sN, mask, in, q.tmp)
	for k := range q.tmp {
		q.tmp[k] = in[k] - q.g[k]*q.tmp[k]
	}
	q.applyP(w, q.tmp, out)
	for k := range out {
		out[k] = in[k] - out[k]
	}
}

// gmres sets q.d to an approximate solution of J d = rhs from d = 0:
// restarted GMRES(m) with Givens rotations (Saad, Algorithm 6.9), stopping
// at ‖rhs − Jd‖ ≤ eta‖rhs‖ or after its budget.
func (q *pdipPolish) gmres(p Problem, w *pdipWork, a, b Vec, sN float64, mask Vec, rhs []float64, eta float64) {
	clear(q.d)
	bn := norm2(rhs)
	if bn == 0 {
		return
	}
	m := pdipPolishGMRES
	for range pdipPolishRestarts {
		// r = rhs − J d
		q.jacobian(p, w, a, b, sN, mask, q.d, q.w)
		for k := range q.w {
			q.w[k] = rhs[k] - q.w[k]
		}
		beta := norm2(q.w)
		if beta <= eta*bn {
			return
		}
		for k := range q.w {
			q.v[0][k] = q.w[k] / beta
		}
		clear(q.s)
		q.s[0] = beta
		j := 0
		for ; j < m; j++ {
			q.jacobian(p, w, a, b, sN, mask, q.v[j], q.w)
			for i := 0; i <= j; i++ { // modified Gram–Schmidt
				h := dot(q.w, q.v[i])
				q.h[i][j] = h
				for k := range q.w {
					q.w[k] -= h * q.v[i][k]
				}
			}
			hn := norm2(q.w)
			q.h[j+1][j] = hn
			if hn > 0 {
				for k := range q.w {
					q.v[j+1][k] = q.w[k] / hn
				}
			}
			for i := 0; i < j; i++ {
				t := q.cs[i]*q.h[i][j] + q.sn[i]*q.h[i+1][j]
				q.h[i+1][j] = -q.sn[i]*q.h[i][j] + q.cs[i]*q.h[i+1][j]
				q.h[i][j] = t
			}
			den := math.Hypot(q.h[j][j], q.h[j+1][j])
			if den == 0 {
				break
			}
			q.cs[j], q.sn[j] = q.h[j][j]/den, q.h[j+1][j]/den
			q.h[j][j] = den
			q.h[j+1][j] = 0
			q.s[j+1] = -q.sn[j] * q.s[j]
			q.s[j] *= q.cs[j]
			if math.Abs(q.s[j+1]) <= eta*bn || hn == 0 {
				j++
				break
			}
		}
		// Back substitution of the j×j triangle, d += V y.
		for i := j - 1; i >= 0; i-- {
			y := q.s[i]
			for l := i + 1; l < j; l++ {
				y -= q.h[i][l] * q.yv[l]
			}
			q.yv[i] = y / q.h[i][i]
		}
		for i := range j {
			for k := range q.d {
				q.d[k] += q.yv[i] * q.v[i][k]
			}
		}
		if j < m {
			return // converged or broke down before the restart
		}
	}
}

func dot(a, b []float64) float64 {
	s := 0.0
	for k := range a {
		s += a[k] * b[k]
	}
	return s
}

func norm2(a []float64) float64 { return math.Sqrt(dot(a, a)) }

// gains sets g_i = 1/N̂_ii per block (1 where the diagonal is not
// positive: a row with no mass behind it).
func (q *pdipPolish) gains(w *pdipWork) {
	for k := range q.n {
		i := k
		if k < 3*w.nc {
			i = k - k%3
		}
		q.g[k] = 1
		if d := w.diag[i]; d > 0 && !math.IsInf(d, 0) {
			q.g[k] = 1 / d
		}
	}
}

// project sets out = Π(x) (scaled units).
func (q *pdipPolish) project(w *pdipWork, x, out []float64) {
	var P [9]float64
	for i := range w.nc {
		projJacobian(x[3*i:3*i+3], w.mu[i], w.coh[i], out[3*i:3*i+3], P[:])
	}
	for r := range w.j.nj {
		k := 3*w.nc + r
		out[k] = math.Min(math.Max(x[k], w.j.lo[r]), w.j.hi[r])
	}
}

// step takes one damped Newton step from q.x, where q.f = F(q.x), q.nx =
// N̂q.x, *fn = ‖F‖ and q.pj holds P: GMRES to the forcing tolerance
// min(0.1, ‖F‖) relative (Eisenstat and Walker's choice for a superlinear
// rate), then halving the step until ‖F‖ falls by the factor 1 − σs. On
// success q.x, q.f, q.nx, q.pj and *fn describe the new point.
func (q *pdipPolish) step(p Problem, w *pdipWork, a, b Vec, sN float64, mask Vec, fn *float64) (float64, bool) {
	for k := range q.rhs {
		q.rhs[k] = -q.f[k]
	}
	q.gmres(p, w, a, b, sN, mask, q.rhs, math.Min(0.1, *fn))
	s := 1.0
	for range pdipPolishBacktrack {
		for k := range q.xt {
			q.xt[k] = q.x[k] + s*q.d[k]
		}
		q.schur(p, a, b, sN, mask, q.xt, q.nx)
		if ft := q.natural(w, q.xt, q.ft, false); ft <= (1-pdipPolishArmijo*s)**fn {
			copy(q.x, q.xt)
			*fn = q.natural(w, q.x, q.f, true)
			return s, true
		}
		s /= 2
	}
	return 0, false
}
