//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"fmt"
	"math"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/shaders"
)

// devSolve is what the device Jacobi, Gauss–Seidel and SPG solvers
// (jacobi.go, gs.go, spg.go) share: the scalar buffer (apgd.go's layout in
// its first 128 bytes), the history buffer, the partial sums of the dot
// products, the kernels they take from the device APGD solver (apgd_dot
// and apgd_sum, the gated Schur product, the residual vector), each
// recorded under a gate, and the progress and statistics of Jacobi's and
// Gauss–Seidel's loop.
type devSolve struct {
	p       *problem
	n       int // 3nc
	opt     engine.SolveOptions
	s, hist *Buffer
	histCap int // iterations the history holds (0: none)
	chunks  int
	partial *Vec // apgd_dot's partials, 3 per chunk

	dot, sum, bodyImpulse, contactVelocity, residual *Kernel
}

// devVec returns the device solvers' work vector i at length n: the
// backend keeps it from solve to solve and its storage only grows, so a
// solve of the size of an earlier one makes no buffer. The solvers write
// every element of a work vector before they read it.
func (p *problem) devVec(i, n int) *Vec {
	b := p.b
	for len(b.devVecs) <= i {
		b.devVecs = append(b.devVecs, nil)
	}
	b.devVecs[i] = p.ReuseVec(b.devVecs[i], n)
	return p.vec(b.devVecs[i])
}

// devScalarBuffer returns the device solvers' scalar buffer (host-visible,
// 256 bytes: the largest layout, spg.go's), made at the first solve (or
// Sweep) and kept; each solve writes it before its kernels read it.
// problem.Sweep binds it to the sweep kernels under gateAlways, which runs
// them whatever phase the buffer holds: zero when made, else what the last
// solve left.
func (p *problem) devScalarBuffer() (*Buffer, error) {
	b := p.b
	if b.devScalars == nil {
		s, err := b.d.NewHostBuffer(spgScalarBytes)
		if err != nil {
			return nil, err
		}
		b.devScalars = s
	}
	return b.devScalars, nil
}

// kernelSpec is a kernel to build and where to put it.
type kernelSpec struct {
	k **Kernel
	m shaders.Module
}

// kernels builds the kernels of the modules into the pointers.
func kernels(d *Device, ks ...kernelSpec) error {
	for _, k := range ks {
		var err error
		if *k.k, err = d.Kernel(k.m); err != nil {
			return err
		}
	}
	return nil
}

// newDevSolve builds the shared kernels and the solver's own (own), and
// makes the buffers of a device solve of n rows: a zeroed scalar buffer of
// scalarBytes (phase 0, iteration 0, no error) and, when opt.History, room
// for 3 float64 per iteration.
func newDevSolve(p *problem, n, scalarBytes int, opt engine.SolveOptions, own ...kernelSpec) (*devSolve, error) {
	ds := &devSolve{p: p, n: n, opt: opt}
	d := p.b.d
	if err := kernels(d, append(own, kernelSpec{&ds.dot, shaders.ApgdDot}, kernelSpec{&ds.sum, shaders.ApgdSum},
		kernelSpec{&ds.bodyImpulse, shaders.ApgdBodyImpulse}, kernelSpec{&ds.contactVelocity, shaders.ApgdContactVelocity},
		kernelSpec{&ds.residual, shaders.ApgdResidual})...); err != nil {
		return nil, err
	}
	var err error
	if ds.s, err = p.devScalarBuffer(); err != nil {
		return nil, err
	}
	ds.hist = ds.s // bound but never written when histCap is 0
	if opt.History && opt.MaxIter > 0 {
		ds.histCap = opt.MaxIter
		if ds.hist, err = d.NewHostBuffer(8 * 3 * int64(ds.histCap)); err != nil {
			return nil, err
		}
	}
	if err := ds.s.write(0, make([]byte, scalarBytes)); err != nil {
		ds.release()
		return nil, err
	}
	ds.chunks = (n + dotChunk - 1) / dotChunk
	ds.partial = p.devVec(0, 3*ds.chunks)
	if err := p.Err(); err != nil {
		ds.release()
		return nil, err
	}
	return ds, nil
}

// release frees the history buffer (the scalar buffer stays with the
// backend). run leaves nothing recorded that uses it: it returns after a
// Flush, or after a failed one.
func (ds *devSolve) release() {
	if ds.hist != ds.s {
		ds.hist.Release()
	}
}

// maxIter is opt.MaxIter for the kernels' arguments.
func (ds *devSolve) maxIter() uint32 { return uint32(max(0, min(ds.opt.MaxIter, math.MaxUint32))) }

// dots records apgd_dot of the given mode on v0…v4 and apgd_sum of its
// pairs into s.dots, under gate g.
func (ds *devSolve) dots(mode, pairs, g uint32, v0, v1, v2, v3, v4 *Vec) {
	p := ds.p
	groups := [3]uint32{uint32(min(ds.chunks, int(p.d.Info.MaxWorkgroupCount[0]))), 1, 1}
	p.record(ds.dot, groups, shaders.ApgdDotArgs{N: uint32(ds.n), Mode: mode, Gate: g},
		ds.partial.buf, v0.buf, v1.buf, v2.buf, v3.buf, v4.buf, ds.s)
	p.record(ds.sum, [3]uint32{pairs, 1, 1}, shaders.ApgdSumArgs{Chunks: uint32(ds.chunks), Gate: g}, ds.s, ds.partial.buf)
}

// schur records dst = N x and, with withG, gr = dst + r, under gate g.
func (ds *devSolve) schur(dst, x, gr, r *Vec, g uint32, withG bool) {
	ds.p.recordGatedSchur(ds.bodyImpulse, ds.contactVelocity, ds.s, dst.buf, x.buf, gr.buf, r.buf, g, withG)
}

// recordGatedSchur records, under gate g of the scalar buffer s, the
// device solvers' Schur product dst = N x with apgd_body_impulse kb and
// apgd_contact_velocity kc (joint rows included), and gr = dst + r when
// withG: what apgd.go's and devSolve's iterations share.
func (p *problem) recordGatedSchur(kb, kc *Kernel, s *Buffer, dst, x, gr, r *Buffer, g uint32, withG bool) {
	b := p.b
	p.record(kb, p.groups(kb, b.n), shaders.ApgdBodyImpulseArgs{N: uint32(b.n), Jbase: b.jbase(), Gate: g},
		b.dv, x, b.adjOff, b.adj, b.jac, b.invMass, b.invInertia, b.fixedBody,
		b.jt.adjOff, b.jt.adj, b.jt.lin, b.jt.rotA, b.jt.rotB, b.invInertiaW, s)
	var wg uint32
	if withG {
		wg = 1
	}
	p.record(kc, p.groupsRows(kc), shaders.ApgdContactVelocityArgs{NC: uint32(b.nc), Nj: p.nj(), Gate: g, WithG: wg},
		dst, gr, r, b.dv, b.a, b.b, b.jac, s,
		b.jt.lin, b.jt.rotA, b.jt.rotB, b.jt.rowA, b.jt.rowB)
}

// resid records tmp = x − Π(x − g_d(nx + r)), the residual vector of eq.
// 25, under gate g.
func (ds *devSolve) resid(tmp, x, nx, r *Vec, g uint32) {
	p, b := ds.p, ds.p.b
	p.record(ds.residual, p.groupsRows(ds.residual), shaders.ApgdResidualArgs{Gd: ds.opt.Gd, NC: uint32(b.nc), Nj: p.nj(), Gate: g},
		tmp.buf, x.buf, nx.buf, r.buf, b.mu, b.coh, ds.s, b.jt.lo, b.jt.hi)
}

// run records blocks of iterations with block (16, 32, 64, 64, … per
// submit, never more than the iterations left), submits them, and reads
// the scalars back, until the phase is done (4).
func (ds *devSolve) run(name string, block func()) (apgdScalars, error) {
	return runBlocks(ds.p, ds.s, ds.opt.MaxIter, 0, name, block, nil, false)
}

// runBlocks records blocks of a device solver's iterations with block
// (apgdBlocks per submit at first, twice as many in each next submit up to
// apgdMaxBlocks, never more than the maxIter − s.iter iterations left),
// then tail if not nil, submits them and reads the scalars s back, until
// the phase is done (apgdDone, 4, for every device solver). A submit that
// changes neither the phase, the iteration nor the step-size count is a
// bug, not a slow solve.
//
// With reuse (block records the same work at every call, as apgd's does:
// the phase in s decides what runs) only the first two submits are
// recorded: the first with what the caller recorded before (init) and
// apgdBlocks blocks, the second, reusable, with apgdBlocks blocks, which
// every later submit runs again (Batch.Resubmit) instead of recording
// blocks anew, as long as it holds no more blocks than iterations are
// left (the last submit records those few). Recording costs the host
// about 36 µs per block of apgd on lavapipe with settle n = 1000 (a
// 100-iteration solve recorded 100 blocks in 3 submits, 3.6 ms, while the
// device waited); now it records about 36 in 7 to 9 submits (step-size
// halvings take blocks too). A submit holds up to apgdBlocks − 1 blocks
// after a solve stops at its tolerance, whose kernels return at once (up
// to 63 before).
//
// first, when positive, is the blocks of the first submit instead of
// apgdBlocks: a solver whose solves are often shorter than apgdBlocks
// iterations and whose next solve's length its last one's predicts (the
// device PCG, pcg.go) runs them in one submit without a dozen blocks that
// return at once.
func runBlocks(p *problem, s *Buffer, maxIter, first int, name string, block, tail func(), reuse bool) (apgdScalars, error) {
	var sc apgdScalars
	last := [3]uint32{math.MaxUint32, 0, 0}
	var gen uint64 // the reusable recording's batch generation
	held := 0      // its blocks
	if first <= 0 {
		first = apgdBlocks
	}
	for n, per := 0, first; ; n, per = n+1, min(2*per, apgdMaxBlocks) {
		left := max(1, maxIter-int(sc.u32(sIter)))
		if !(reuse && held <= left && p.resubmit(gen)) {
			if reuse && n > 0 {
				per = apgdBlocks
				if left >= per {
					gen, held = p.beginReusable(), per
				}
			}
			for range min(per, left) {
				block()
			}
			if tail != nil {
				tail()
			}
			if err := p.Flush(); err != nil {
				return sc, err
			}
		} else if err := p.Err(); err != nil {
			return sc, err
		}
		// Between submits only phase, flags, iter and bt (16 bytes), the
		// whole block once the solve is done: a step reads back little
		// however many submits its solve takes.
		if err := s.read(sc.raw[sPhase:sBT+4], sPhase); err != nil {
			return sc, err
		}
		if sc.u32(sPhase) == apgdDone {
			return sc, s.read(sc.raw[:], 0)
		}
		now := [3]uint32{sc.u32(sPhase), sc.u32(sIter), sc.u32(sBT)}
		if now == last {
			return sc, fmt.Errorf("gpu: %s: the device solver made no progress at iteration %d", name, now[1])
		}
		last = now
	}
}

// history reads the (residual, objective, step) records of iter
// iterations, as many as the history holds.
func (ds *devSolve) history(iter int) ([]engine.IterRecord, error) {
	if ds.histCap == 0 || iter == 0 {
		return nil, nil
	}
	h := make([]float64, 3*min(iter, ds.histCap))
	if err := ds.hist.ReadFloat64(h, 0); err != nil {
		return nil, err
	}
	var out []engine.IterRecord
	for i := range len(h) / 3 {
		out = append(out, engine.IterRecord{Iter: i + 1, Residual: h[3*i], Objective: h[3*i+1], Step: h[3*i+2]})
	}
	return out, nil
}

// progress records engine's progress and loop test for γ = x with
// nx = Nγ, under gate g: the residual vector of eq. 25 into tmp,
// ‖tmp‖², γᵀNγ and rᵀγ (apgd_dot mode 4), then jacobi_scalar (kernel
// scalar) of the given mode (0: the initial guess, 1: after an iteration,
// recording ω as the history's step).
func (ds *devSolve) progress(scalar *Kernel, mode, g uint32, x, nx, tmp, r *Vec, omega float64) {
	p := ds.p
	ds.resid(tmp, x, nx, r, g)
	ds.dots(4, 3, g, tmp, x, nx, r, r)
	p.record(scalar, [3]uint32{1, 1, 1},
		shaders.JacobiScalarArgs{Tol: ds.opt.Tol, Gd: ds.opt.Gd, Omega: omega, Mode: mode, Gate: g, N: uint32(ds.n),
			MaxIter: ds.maxIter(), HistCap: uint32(ds.histCap)},
		ds.s, ds.hist)
}

// iterate records the loop the device Jacobi and Gauss–Seidel solvers
// share, engine's iterate on the device: γ = Π(γ₀) in gv, Nγ and the
// initial guess's progress, then blocks of update (one iteration: gv from
// gv, with nx = Nγ on entry and the problem's r), the product Nγ into nx
// and the iterate's progress (jacobi_scalar: history step ω), all gated
// on the phase "running"; it returns the solve's statistics.
func (ds *devSolve) iterate(name string, scalar *Kernel, gv *Vec, omega float64, update func(nx, r *Vec, run uint32)) (engine.SolveStats, error) {
	p := ds.p
	nx, tmp := p.devVec(1, ds.n), p.devVec(2, ds.n)
	r := p.vec(p.R())
	if err := p.Err(); err != nil {
		return engine.SolveStats{}, err
	}
	run := gate(apgdStart)
	// The start: γ = Π(γ₀), Nγ, and the initial guess's residual.
	p.Project(gv, gv)
	p.Schur(nx, gv)
	ds.progress(scalar, 0, run, gv, nx, tmp, r, omega)
	sc, err := ds.run(name, func() {
		update(nx, r, run)
		ds.schur(nx, gv, tmp, r, run, false)
		ds.progress(scalar, 1, run, gv, nx, tmp, r, omega)
	})
	if err != nil {
		return engine.SolveStats{}, err
	}
	return ds.stats(name, sc)
}

// stats returns the statistics of a solve that progress judged, from its
// final scalars sc and the history, or engine's errors (its progress) for
// a residual or objective that is not finite, with the solver's name.
func (ds *devSolve) stats(name string, sc apgdScalars) (engine.SolveStats, error) {
	var st engine.SolveStats
	iter := int(sc.u32(sIter))
	res, f := sc.f64(sRes), sc.f64(sFx)
	if sc.u32(sErr) != 0 {
		if iter == 0 {
			return st, fmt.Errorf("%s: residual %v, objective %v at the initial guess: N, r or γ₀ is not finite", name, res, f)
		}
		return st, fmt.Errorf("%s: residual %v, objective %v at iteration %d: the iteration diverged or N is not finite", name, res, f, iter)
	}
	var err error
	if st.History, err = ds.history(iter); err != nil {
		return st, err
	}
	st.Iterations = iter
	st.Residual = res
	st.ProjGrad = res * float64(ds.n)
	st.Objective = f
	st.Converged = res < ds.opt.Tol
	return st, ds.p.Err()
}
