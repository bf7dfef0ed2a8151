package engine

import (
	"fmt"
	"math"
)

// PDIP's joint rows. A problem with joint rows (JointRows) has, after its
// 3·n_c contact rows, n_j scalar unknowns γ_r, each free (a bilateral row)
// or in an interval [lo_r, hi_r] (a motor row; one bound may be infinite).
// A free row is an unconstrained unknown of the Newton system: no barrier,
// no multiplier, H_rr = 0. Each finite bound is a linear constraint with
// its own barrier and multiplier, as the cones' c_i,2 is:
//
//	c_r,lo = γ_r − lo_r > 0,   c_r,hi = hi_r − γ_r > 0,
//
// with ∇c_r,lo = e_r, ∇c_r,hi = −e_r and no curvature, so that row r adds
//
//	H_rr = λ_r,lo/c_r,lo + λ_r,hi/c_r,hi,
//	−∇φ_t,r = −r_d,r + (1/(t c_r,lo) − λ_r,lo) − (1/(t c_r,hi) − λ_r,hi),
//	r_d,r = (N̂γ̂ + r̂)_r − λ_r,lo + λ_r,hi,
//
// to the Newton system (the preconditioner's block is g_r + H_rr, g_r =
// N_rr as BlockDiag writes it), its terms to the surrogate gap, the
// fraction to the boundary, the barrier of the line search and the
// multiplier steps and safeguards. They start at the middle of a bounded
// interval, one scaled unit inside a half-bounded one and at zero when
// free, with λ = 1/c. The bounds are read from the problem through
// Project: Π of +∞ is hi_r and of −∞ is lo_r (±∞ for a free row). A
// problem without joint rows runs none of this and solves as before, bit
// for bit.
type pdipJoints struct {
	nj       int
	lo, hi   []float64 // scaled bounds lo_r/s_γ, hi_r/s_γ (±Inf when absent)
	ll, lh   []float64 // λ_r,lo and λ_r,hi (0 for an absent bound)
	dl, dh   []float64 // Δλ
	cl, ch   []float64 // c_r,lo and c_r,hi at γ̂ (unused for absent bounds)
	clt, cht []float64 // at the trial γ̂
	hj       []float64 // H_rr
	pj       []float64 // g_r + H_rr, the preconditioner's (DevicePCG)
}

func newPDIPJoints(nj int) pdipJoints {
	j := pdipJoints{nj: nj}
	for _, v := range []*[]float64{&j.lo, &j.hi, &j.ll, &j.lh, &j.dl, &j.dh, &j.cl, &j.ch, &j.clt, &j.cht, &j.hj, &j.pj} {
		*v = make([]float64, nj)
	}
	return j
}

// jointBounds reads the joint rows' bounds of p into w.j.lo and w.j.hi
// (unscaled) through Project, using the vectors a and b of length n.
func (w *pdipWork) jointBounds(p Problem, a Vec, host []float64) {
	j, o := &w.j, 3*w.nc
	for side, inf := range []float64{math.Inf(1), math.Inf(-1)} {
		clear(host)
		for r := range j.nj {
			host[o+r] = inf
		}
		p.Write(a, host)
		p.Project(a, a)
		p.Read(host, a)
		dst := j.hi
		if side == 1 {
			dst = j.lo
		}
		copy(dst, host[o:])
	}
}

// jointCount returns the number of finite bounds: the joint rows'
// constraints.
func (j *pdipJoints) count() int {
	m := 0
	for r := range j.nj {
		if !math.IsInf(j.lo[r], 0) {
			m++
		}
		if !math.IsInf(j.hi[r], 0) {
			m++
		}
	}
	return m
}

// jointStart sets the joint rows of x to their starting point and the
// multipliers to 1/c.
func (w *pdipWork) jointStart(x []float64) {
	j, o := &w.j, 3*w.nc
	for r := range j.nj {
		lo, hi := j.lo[r], j.hi[r]
		switch {
		case !math.IsInf(lo, 0) && !math.IsInf(hi, 0):
			x[o+r] = 0.5 * (lo + hi)
		case !math.IsInf(lo, 0):
			x[o+r] = lo + 1
		case !math.IsInf(hi, 0):
			x[o+r] = hi - 1
		default:
			x[o+r] = 0
		}
	}
	w.jointConstraints(x, j.cl, j.ch)
	for r := range j.nj {
		j.ll[r], j.lh[r] = 0, 0
		if !math.IsInf(j.lo[r], 0) {
			j.ll[r] = 1 / j.cl[r]
		}
		if !math.IsInf(j.hi[r], 0) {
			j.lh[r] = 1 / j.ch[r]
		}
	}
}

// jointConstraints sets cl_r = x_r − lo_r and ch_r = hi_r − x_r (+Inf for
// an absent bound).
func (w *pdipWork) jointConstraints(x, cl, ch []float64) {
	j, o := &w.j, 3*w.nc
	for r := range j.nj {
		cl[r] = x[o+r] - j.lo[r]
		ch[r] = j.hi[r] - x[o+r]
	}
}

// jointGap returns Σ λ c over the finite bounds.
func (j *pdipJoints) gap() float64 {
	g := 0.0
	for r := range j.nj {
		if j.ll[r] > 0 {
			g += j.ll[r] * j.cl[r]
		}
		if j.lh[r] > 0 {
			g += j.lh[r] * j.ch[r]
		}
	}
	return g
}

// jointMaxStep returns the largest s keeping every bounded joint row
// inside its interval (+Inf if none binds).
func (w *pdipWork) jointMaxStep() float64 {
	j, o := &w.j, 3*w.nc
	s := math.Inf(1)
	for r := range j.nj {
		d := w.dx[o+r]
		if d < 0 && !math.IsInf(j.lo[r], 0) {
			s = math.Min(s, j.cl[r]/-d)
		}
		if d > 0 && !math.IsInf(j.hi[r], 0) {
			s = math.Min(s, j.ch[r]/d)
		}
	}
	return s
}

// jointInterior reports whether every joint row of γ̂ + sΔγ̂ is strictly
// inside its bounds.
func (w *pdipWork) jointInterior(s float64) bool {
	j, o := &w.j, 3*w.nc
	for r := range j.nj {
		x := w.x[o+r] + s*w.dx[o+r]
		if !(x > j.lo[r] || math.IsInf(j.lo[r], -1)) || !(x < j.hi[r] || math.IsInf(j.hi[r], 1)) {
			return false
		}
	}
	return true
}

// jointDualResidual sets the joint rows of w.rd and returns their largest
// magnitude.
func (w *pdipWork) jointDualResidual() float64 {
	j, o := &w.j, 3*w.nc
	m := 0.0
	for r := range j.nj {
		k := o + r
		w.rd[k] = w.nx[k] + w.r[k] - j.ll[r] + j.lh[r]
		m = math.Max(m, math.Abs(w.rd[k]))
	}
	return m
}

// jointNewton sets the joint rows of the right-hand side and H_rr, and
// checks the preconditioner's pivot g_r + H_rr.
func (w *pdipWork) jointNewton(t float64) error {
	j, o := &w.j, 3*w.nc
	for r := range j.nj {
		k := o + r
		w.rhs[k] = -w.rd[k]
		j.hj[r] = 0
		if j.ll[r] > 0 {
			j.hj[r] += j.ll[r] / j.cl[r]
			w.rhs[k] += 1/(t*j.cl[r]) - j.ll[r]
		}
		if j.lh[r] > 0 {
			j.hj[r] += j.lh[r] / j.ch[r]
			w.rhs[k] -= 1/(t*j.ch[r]) - j.lh[r]
		}
		if piv := w.diag[k] + j.hj[r]; !(piv > 0) || math.IsInf(piv, 0) {
			return fmt.Errorf("joint row %d: preconditioner pivot %v is not positive (γ = %v, λ = %v, %v)", r, piv, w.x[k], j.ll[r], j.lh[r])
		}
	}
	return nil
}

// jointApplyH sets the joint rows of out = H·in.
func (w *pdipWork) jointApplyH(in, out []float64) {
	j, o := &w.j, 3*w.nc
	for r := range j.nj {
		out[o+r] = j.hj[r] * in[o+r]
	}
}

// jointApplyPrec sets the joint rows of out = (g_r + H_rr)⁻¹ in.
func (w *pdipWork) jointApplyPrec(in, out []float64) {
	j, o := &w.j, 3*w.nc
	for r := range j.nj {
		out[o+r] = in[o+r] / (w.diag[o+r] + j.hj[r])
	}
}

// jointDualStep sets Δλ_r,lo = (1/t − λ c_lo − λΔγ_r)/c_lo and Δλ_r,hi =
// (1/t − λ c_hi + λΔγ_r)/c_hi.
func (w *pdipWork) jointDualStep(t float64) {
	j, o := &w.j, 3*w.nc
	for r := range j.nj {
		d := w.dx[o+r]
		j.dl[r], j.dh[r] = 0, 0
		if j.ll[r] > 0 {
			j.dl[r] = (1/t - j.ll[r]*j.cl[r] - j.ll[r]*d) / j.cl[r]
		}
		if j.lh[r] > 0 {
			j.dh[r] = (1/t - j.lh[r]*j.ch[r] + j.lh[r]*d) / j.ch[r]
		}
	}
}

// jointDualMax returns the fraction-to-the-boundary limit of the joint
// multipliers' step (≤ dstep).
func (j *pdipJoints) dualMax(dstep float64) float64 {
	for r := range j.nj {
		if j.dl[r] < 0 {
			dstep = math.Min(dstep, -j.ll[r]/j.dl[r])
		}
		if j.dh[r] < 0 {
			dstep = math.Min(dstep, -j.lh[r]/j.dh[r])
		}
	}
	return dstep
}

// barrier returns −(1/t) Σ ln(c_trial/c) over the finite bounds.
func (j *pdipJoints) barrier(t float64) float64 {
	d := 0.0
	for r := range j.nj {
		if j.ll[r] > 0 {
			d -= math.Log(j.clt[r]/j.cl[r]) / t
		}
		if j.lh[r] > 0 {
			d -= math.Log(j.cht[r]/j.ch[r]) / t
		}
	}
	return d
}

// update takes the multiplier step with the safeguard of pdipClamp, at
// the new point's constraints.
func (j *pdipJoints) update(dstep, t float64) {
	for r := range j.nj {
		if j.ll[r] > 0 {
			j.ll[r] = pdipClamp(j.ll[r]+dstep*j.dl[r], j.clt[r], t)
		}
		if j.lh[r] > 0 {
			j.lh[r] = pdipClamp(j.lh[r]+dstep*j.dh[r], j.cht[r], t)
		}
	}
}
