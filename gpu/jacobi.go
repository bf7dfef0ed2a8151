//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"math"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/shaders"
)

// Device Jacobi: engine.Jacobi's iterations with the solver's scalars on
// the device, as the device APGD solver keeps its own (apgd.go), so that
// many iterations go into one submit instead of a submit and a read-back
// for each of the three dot products of every iteration. One iteration is
// recorded as a block, every kernel gated on the phase being "running":
//
//	jacobi_step:              γ = λ Π(γ − ω B(Nγ + r)) + (1 − λ)γ
//	apgd_body_impulse,
//	apgd_contact_velocity:    Nγ
//	apgd_residual:            γ − Π(γ − g_d(Nγ + r))
//	apgd_dot (mode 4), apgd_sum: ‖…‖², γᵀNγ, rᵀγ
//	jacobi_scalar:            residual, objective, history; done when the
//	                          residual is below the tolerance or MaxIter is reached
//
// The blocks recorded after the solve stopped return at once. Jacobi.Solve
// computes ω (its power iteration) and B on the host first, as before, and
// every kernel computes what its LinAlg and Problem calls compute on this
// backend, bit for bit, so the device solve returns the host-driven solve's
// γ, iterations, residual, objective and history exactly (TestDeviceJacobi).

// The scalar slots the device Jacobi and Gauss–Seidel solvers use (the
// layout is apgd.go's).
const (
	sFx  = 5 // the objective of the last iterate
	sRes = 6 // its residual
)

// SolveJacobi implements engine.DeviceJacobi (see above), recorded into
// the open batch; the last iterate is left in gamma.
func (p *problem) SolveJacobi(gamma, inv engine.Vec, omega, lambda float64, opt engine.SolveOptions) (engine.SolveStats, error) {
	const name = "jacobi"
	var st engine.SolveStats
	gv, iv := p.contactVec("SolveJacobi", gamma), p.contactVec("SolveJacobi", inv)
	n := gv.n
	if p.Err() != nil {
		return st, p.Err()
	}
	if n == 0 {
		return st, nil
	}
	b := p.b
	var step, scalar *Kernel
	ds, err := newDevSolve(p, n, apgdScalarBytes, opt,
		kernelSpec{&step, shaders.JacobiStep}, kernelSpec{&scalar, shaders.JacobiScalar})
	if err != nil {
		return st, err
	}
	defer ds.release()
	return ds.iterate(name, scalar, gv, omega, func(nx, r *Vec, run uint32) {
		p.record(step, p.groupsRows(step), shaders.JacobiStepArgs{NegOmega: -omega, Lambda: lambda, OneMinusLambda: 1 - lambda, NC: uint32(b.nc), Nj: p.nj(), Gate: run},
			gv.buf, nx.buf, r.buf, iv.buf, b.mu, b.coh, ds.s, b.jt.lo, b.jt.hi)
	})
}

// JacobiRho implements engine.DeviceJacobi's power iteration: steps of
// MulElem, a dot into s.L (jacobi_power mode 0), Schur, a dot and the
// quotient into s.t (mode 1), MulElem, a dot and jacobi_scale, all in one
// submit, and returns the last quotient. The LinAlg calls are those of
// engine's spectralRadius, and the dots and scalars compute its values bit
// for bit, so ω is the host-driven solve's.
func (p *problem) JacobiRho(diag, inv, v, w engine.Vec, steps int) (float64, error) {
	dv, iv, vv, wv := p.contactVec("JacobiRho", diag), p.contactVec("JacobiRho", inv), p.contactVec("JacobiRho", v), p.contactVec("JacobiRho", w)
	if p.Err() != nil {
		return math.NaN(), p.Err()
	}
	n := vv.n
	if n == 0 {
		return 0, nil
	}
	var power, scale *Kernel
	ds, err := newDevSolve(p, n, apgdScalarBytes, engine.SolveOptions{}, // phase 0: the dots run
		kernelSpec{&power, shaders.JacobiPower}, kernelSpec{&scale, shaders.JacobiScale})
	if err != nil {
		return math.NaN(), err
	}
	defer ds.release()
	run := gate(apgdStart)
	for range steps {
		// apgd_dot mode 3's first pair: s.dots[0] = v·w, then v·v.
		p.MulElem(wv, dv, vv)
		ds.dots(3, 1, run, vv, wv, vv, vv, vv)
		p.record(power, [3]uint32{1, 1, 1}, shaders.JacobiPowerArgs{Mode: 0}, ds.s)
		p.Schur(wv, vv)
		ds.dots(3, 1, run, vv, wv, vv, vv, vv)
		p.record(power, [3]uint32{1, 1, 1}, shaders.JacobiPowerArgs{Mode: 1}, ds.s)
		p.MulElem(vv, iv, wv)
		ds.dots(3, 1, run, vv, vv, vv, vv, vv)
		p.record(scale, p.groups(scale, n), shaders.JacobiScaleArgs{N: uint32(n)}, vv.buf, ds.s)
	}
	if err := p.Flush(); err != nil {
		return math.NaN(), err
	}
	var sc apgdScalars
	if err := ds.s.read(sc.raw[:], 0); err != nil {
		return math.NaN(), err
	}
	return sc.f64(1), p.Err() // s.t
}

var _ engine.DeviceJacobi = (*problem)(nil)
