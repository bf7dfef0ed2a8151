//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"fmt"
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

// The scalar slots the device Jacobi solver uses (the layout is apgd.go's).
const (
	sFx  = 5 // the objective of the last iterate
	sRes = 6 // its residual
)

// jacobiKernels are the device Jacobi solver's kernels.
type jacobiKernels struct {
	step, scalar, bodyImpulse, contactVelocity, residual, dot, sum *Kernel
}

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
	d, b := p.b.d, p.b
	var k jacobiKernels
	for _, m := range []struct {
		k **Kernel
		m shaders.Module
	}{
		{&k.step, shaders.JacobiStep}, {&k.scalar, shaders.JacobiScalar},
		{&k.bodyImpulse, shaders.ApgdBodyImpulse}, {&k.contactVelocity, shaders.ApgdContactVelocity},
		{&k.residual, shaders.ApgdResidual}, {&k.dot, shaders.ApgdDot}, {&k.sum, shaders.ApgdSum},
	} {
		var err error
		if *m.k, err = d.Kernel(m.m); err != nil {
			return st, err
		}
	}
	s, err := d.NewHostBuffer(apgdScalarBytes)
	if err != nil {
		return st, err
	}
	defer s.Release()
	hist, histCap := s, 0 // bound but never written when histCap is 0
	if opt.History && opt.MaxIter > 0 {
		histCap = opt.MaxIter
		if hist, err = d.NewHostBuffer(8 * 3 * int64(histCap)); err != nil {
			return st, err
		}
		defer hist.Release()
	}
	var sc apgdScalars // phase 0 (running), iter 0, err 0
	if err := s.write(0, sc.raw[:]); err != nil {
		return st, err
	}
	chunks := (n + dotChunk - 1) / dotChunk
	nx, tmp := p.vec(p.NewVec(n)), p.vec(p.NewVec(n))
	partial := p.vec(p.NewVec(3 * chunks))
	r := p.vec(p.R())
	if err := p.Err(); err != nil {
		return st, err
	}
	run := gate(apgdStart)
	maxIter := uint32(max(0, min(opt.MaxIter, math.MaxUint32)))
	// progress records the residual and objective of γ (with nx = Nγ) and
	// jacobi_scalar of the given mode.
	progress := func(mode uint32) {
		p.record(k.residual, p.groupsNC(k.residual), Push{}.F64(opt.Gd).U32(uint32(b.nc)).U32(run),
			tmp.buf, gv.buf, nx.buf, r.buf, b.mu, b.coh, s)
		groups := [3]uint32{uint32(min(chunks, int(d.Info.MaxWorkgroupCount[0]))), 1, 1}
		p.record(k.dot, groups, Push{}.U32(uint32(n)).U32(4).U32(run),
			partial.buf, tmp.buf, gv.buf, nx.buf, r.buf, r.buf, s)
		p.record(k.sum, [3]uint32{3, 1, 1}, Push{}.U32(uint32(chunks)).U32(run), s, partial.buf)
		p.record(k.scalar, [3]uint32{1, 1, 1},
			Push{}.F64(opt.Tol).F64(opt.Gd).F64(omega).U32(mode).U32(run).U32(uint32(n)).U32(maxIter).U32(uint32(histCap)),
			s, hist)
	}
	// The start: γ = Π(γ₀), Nγ, and the initial guess's residual.
	p.Project(gv, gv)
	p.Schur(nx, gv)
	progress(0)
	last := uint32(math.MaxUint32)
	for per := apgdBlocks; ; per = min(2*per, apgdMaxBlocks) {
		blocks := min(per, max(1, opt.MaxIter-int(sc.u32(sIter))))
		for range blocks {
			p.record(k.step, p.groupsNC(k.step),
				Push{}.F64(-omega).F64(lambda).F64(1-lambda).U32(uint32(b.nc)).U32(run),
				gv.buf, nx.buf, r.buf, iv.buf, b.mu, b.coh, s)
			p.record(k.bodyImpulse, p.groups(k.bodyImpulse, b.n), Push{}.U32(uint32(b.n)).U32(run),
				b.dv, gv.buf, b.adjOff, b.adj, b.basis, b.rhoA, b.rhoB, b.invMass, b.invInertia, b.fixedBody, s)
			p.record(k.contactVelocity, p.groupsNC(k.contactVelocity), Push{}.U32(uint32(b.nc)).U32(run).U32(0),
				nx.buf, tmp.buf, r.buf, b.dv, b.a, b.b, b.basis, b.rhoA, b.rhoB, s)
			progress(1)
		}
		if err := p.Flush(); err != nil {
			return st, err
		}
		if err := s.read(sc.raw[:], 0); err != nil {
			return st, err
		}
		if sc.u32(sPhase) == apgdDone {
			break
		}
		// Every block completes an iteration while the phase is running.
		if it := sc.u32(sIter); it == last {
			return st, fmt.Errorf("gpu: %s: the device solver made no progress at iteration %d", name, it)
		} else {
			last = it
		}
	}
	iter := int(sc.u32(sIter))
	res, f := sc.f64(sRes), sc.f64(sFx)
	if sc.u32(sErr) != 0 {
		// engine.Jacobi's messages (its progress).
		if iter == 0 {
			return st, fmt.Errorf("%s: residual %v, objective %v at the initial guess: N, r or γ₀ is not finite", name, res, f)
		}
		return st, fmt.Errorf("%s: residual %v, objective %v at iteration %d: the iteration diverged or N is not finite", name, res, f, iter)
	}
	if opt.History && iter > 0 {
		h := make([]float64, 3*min(iter, histCap))
		if err := hist.ReadFloat64(h, 0); err != nil {
			return st, err
		}
		for i := range len(h) / 3 {
			st.History = append(st.History, engine.IterRecord{Iter: i + 1, Residual: h[3*i], Objective: h[3*i+1], Step: h[3*i+2]})
		}
	}
	st.Iterations = iter
	st.Residual = res
	st.ProjGrad = res * float64(n)
	st.Objective = f
	st.Converged = res < opt.Tol
	return st, p.Err()
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
	d := p.b.d
	var dot, sum, power, scale *Kernel
	for _, m := range []struct {
		k **Kernel
		m shaders.Module
	}{{&dot, shaders.ApgdDot}, {&sum, shaders.ApgdSum}, {&power, shaders.JacobiPower}, {&scale, shaders.JacobiScale}} {
		var err error
		if *m.k, err = d.Kernel(m.m); err != nil {
			return math.NaN(), err
		}
	}
	s, err := d.NewHostBuffer(apgdScalarBytes)
	if err != nil {
		return math.NaN(), err
	}
	defer s.Release()
	var sc apgdScalars // phase 0: apgd_dot and apgd_sum run
	if err := s.write(0, sc.raw[:]); err != nil {
		return math.NaN(), err
	}
	chunks := (n + dotChunk - 1) / dotChunk
	partial := p.vec(p.NewVec(2 * chunks))
	if err := p.Err(); err != nil {
		return math.NaN(), err
	}
	run := gate(apgdStart)
	groups := [3]uint32{uint32(min(chunks, int(d.Info.MaxWorkgroupCount[0]))), 1, 1}
	// dotInto records s.dots[0] = x·y (apgd_dot mode 3's first pair).
	dotInto := func(x, y *Vec) {
		p.record(dot, groups, Push{}.U32(uint32(n)).U32(3).U32(run), partial.buf, x.buf, y.buf, x.buf, x.buf, x.buf, s)
		p.record(sum, [3]uint32{1, 1, 1}, Push{}.U32(uint32(chunks)).U32(run), s, partial.buf)
	}
	for range steps {
		p.MulElem(wv, dv, vv)
		dotInto(vv, wv)
		p.record(power, [3]uint32{1, 1, 1}, Push{}.U32(0), s)
		p.Schur(wv, vv)
		dotInto(vv, wv)
		p.record(power, [3]uint32{1, 1, 1}, Push{}.U32(1), s)
		p.MulElem(vv, iv, wv)
		dotInto(vv, vv)
		p.record(scale, p.groups(scale, n), Push{}.U32(uint32(n)), vv.buf, s)
	}
	if err := p.Flush(); err != nil {
		return math.NaN(), err
	}
	if err := s.read(sc.raw[:], 0); err != nil {
		return math.NaN(), err
	}
	return sc.f64(1), p.Err() // s.t
}

var _ engine.DeviceJacobi = (*problem)(nil)
