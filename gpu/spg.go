//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"fmt"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/shaders"
)

// Device SPG: engine.SPG's iterations (P-SPG-FB) with the solver's scalars
// on the device, as the device APGD solver keeps its own (apgd.go). The
// phases (s.phase) and the kernels gated on them, in the order of one
// recorded block:
//
//	dir    spg_vec 0: d = Π(x − α̂P⁻¹g) − x; ⟨d, g⟩; spg_scalar 1:
//	       ⟨d, g⟩ ≥ 0 ? dir2 : trial (fMax, λ = 1)
//	dir2   spg_vec 1: d = Π(x − α̂g) − x; ⟨d, g⟩; spg_scalar 2: trial
//	trial  spg_vec 2: x' = x + λd; Nx' with g' = Nx' + r; x'ᵀNx', rᵀx';
//	       spg_scalar 3: accept, or a smaller λ (trial), or stalled (done)
//	accept spg_vec 3: y = g' − g; ⟨d, y⟩, ⟨d∘d, P⟩, ⟨y∘y, P⁻¹⟩;
//	       spg_scalar 4: α̂ (BB1 or BB2), the objectives' history: resid
//	resid  spg_vec 4: x = x', g = g'; the residual vector of x; its norm;
//	       spg_scalar 5: w, x_FB's flag, iter++: dir or done
//	any    spg_vec 5: x_FB = x when flagged
//
// A block completes an iteration when its first trial is accepted; a
// reduction of λ ends it in phase trial, and the next block goes on from
// there. 16 to 64 blocks go into a submit (apgdBlocks), and the blocks
// after the solve stopped return at once. Every kernel computes what
// engine.SPG's LinAlg and Problem calls compute on this backend, bit for
// bit, so the device solve returns the host-driven solve's x_FB,
// iterations, residual, objective and history exactly (TestDeviceSPG).

// The phases of the device SPG solver (s.phase).
const (
	spgDir    = 0
	spgDir2   = 1
	spgTrial  = 2
	spgAccept = 3
	spgDone   = 4
	spgResid  = 5
)

// The scalar buffer of the device SPG solver, std430 (see spg_scalar.comp):
// the first 128 bytes in apgd.go's layout where the shared kernels read
// them (dots at 72, phase at 104), then fHist[11] at 128 and step at 216.
const (
	spgScalarBytes = 256
	spgW           = 6 // float64 slots
	spgWMin        = 7
	spgFBest       = 8
	spgFNew        = 4
)

// SolveSPG implements engine.DeviceSPG (see above), recorded into the open
// batch; x_FB is left in gamma.
func (p *problem) SolveSPG(gamma, diag, inv engine.Vec, opt engine.SolveOptions) (engine.SolveStats, error) {
	const name = "spg"
	var st engine.SolveStats
	gv := p.contactVec("SolveSPG", gamma)
	dg, iv := p.contactVec("SolveSPG", diag), p.contactVec("SolveSPG", inv)
	if p.Err() != nil {
		return st, p.Err()
	}
	n := gv.n
	if n == 0 {
		return st, nil
	}
	b := p.b
	var vec, scalar *Kernel
	ds, err := newDevSolve(p, n, spgScalarBytes, opt, // phase dir, iteration 0, no error
		kernelSpec{&vec, shaders.SpgVec}, kernelSpec{&scalar, shaders.SpgScalar})
	if err != nil {
		return st, err
	}
	defer ds.release()
	k := 0
	nv := func() *Vec { k++; return p.devVec(k, n) }
	x, xNew, g, gNew, nx, dd, y, tmp, best := nv(), nv(), nv(), nv(), nv(), nv(), nv(), nv(), nv()
	r := p.vec(p.R())
	if err := p.Err(); err != nil {
		return st, err
	}
	scal := func(mode, gt uint32) {
		p.record(scalar, [3]uint32{1, 1, 1},
			shaders.SpgScalarArgs{Tol: opt.Tol, Gd: opt.Gd, Mode: mode, Gate: gt, N: uint32(n),
				MaxIter: ds.maxIter(), HistCap: uint32(ds.histCap)},
			ds.s, ds.hist)
	}
	vecOp := func(mode, gt uint32) {
		p.record(vec, p.groupsRows(vec), shaders.SpgVecArgs{NC: uint32(b.nc), Nj: p.nj(), Mode: mode, Gate: gt},
			dd.buf, y.buf, x.buf, g.buf, xNew.buf, gNew.buf, best.buf, iv.buf, b.mu, b.coh, ds.s, b.jt.lo, b.jt.hi)
	}
	// Lines 1–3: x = Π(γ₀), x_FB = x, Nx, g = Nx + r, and the residual and
	// objective of x (engine's progress), recorded under the first phase.
	dir, dir2, trial, accept, resid := gate(spgDir), gate(spgDir2), gate(spgTrial), gate(spgAccept), gate(spgResid)
	p.Project(x, gv)
	p.Copy(best, x)
	p.Schur(nx, x)
	p.Axpby(g, 1, nx, 1, r)
	ds.resid(tmp, x, nx, r, dir)
	ds.dots(4, 3, dir, tmp, x, nx, r, r)
	scal(0, dir)
	sc, err := ds.run(name, func() {
		vecOp(0, dir)
		ds.dots(3, 1, dir, dd, g, dd, dd, dd)
		scal(1, dir)
		vecOp(1, dir2)
		ds.dots(3, 1, dir2, dd, g, dd, dd, dd)
		scal(2, dir2)
		vecOp(2, trial)
		ds.schur(nx, xNew, gNew, r, trial, true)
		ds.dots(3, 2, trial, xNew, nx, r, r, r)
		scal(3, trial)
		vecOp(3, accept)
		ds.dots(5, 3, accept, dd, y, dg, iv, iv)
		scal(4, accept)
		vecOp(4, resid)
		ds.resid(tmp, x, nx, r, resid)
		ds.dots(0, 1, resid, tmp, tmp, tmp, tmp, tmp)
		scal(5, resid)
		vecOp(5, 0)
	})
	if err != nil {
		return st, err
	}
	iter := int(sc.u32(sIter))
	switch sc.u32(sErr) {
	case 0:
	case 1:
		// engine's progress at the initial guess.
		return st, fmt.Errorf("%s: residual %v, objective %v at the initial guess: N, r or γ₀ is not finite", name, sc.f64(spgW), sc.f64(3))
	case 2:
		return st, fmt.Errorf("%s: objective %v at iteration %d: N or r is not finite", name, sc.f64(spgFNew), iter+1)
	case 3:
		return st, fmt.Errorf("%s: residual %v at iteration %d: N or r is not finite", name, sc.f64(spgW), iter+1)
	default:
		return st, fmt.Errorf("gpu: %s: the device solver reports error %d", name, sc.u32(sErr))
	}
	if st.History, err = ds.history(iter); err != nil {
		return st, err
	}
	wMin := sc.f64(spgWMin)
	st.Iterations = iter
	st.Residual = wMin
	st.ProjGrad = wMin * float64(n)
	st.Objective = sc.f64(spgFBest)
	st.Converged = wMin < opt.Tol
	p.Copy(gv, best)
	return st, p.Err()
}

var _ engine.DeviceSPG = (*problem)(nil)
