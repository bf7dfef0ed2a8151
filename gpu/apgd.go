//go:build linux && cgo && (amd64 || arm64)

package gpu

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/shaders"
)

// Device APGD: engine.APGD's iterations (Algorithm 1 of the APGD paper and
// the anti-relaxed variant) with the solver's scalars in a small
// host-visible buffer that the kernels read and write, so that many
// iterations are recorded into one submit and the host reads back only
// that buffer after each. The kernels are the apgd_*.comp shaders:
//
//   - apgd_dot and apgd_sum: the dot products, up to four at once, in
//     LinAlg.Dot's chunks and fixed tree order, their sums in s.dots;
//   - apgd_scalar: the host's scalar arithmetic of engine.APGD (init, a
//     line-search trial, the accepted iterate, the end of an iteration);
//   - apgd_step, apgd_residual, apgd_anti_relax, apgd_next: fusions of the
//     vector operations engine.APGD records between two dot products,
//     operation for operation;
//   - apgd_body_impulse and apgd_contact_velocity: the Schur product.
//
// Every kernel first reads s.phase and returns at once unless it is one of
// the phases in its gate mask. One iteration is recorded as a block:
//
//	trial  (gate start | trial):  γ' = Π(y − t g), Nγ', four dots, scalar: accept
//	                              (phase accept) or L = 2L (phase trial)
//	accept (gate accept):         [r = r₀ + a(Nγ' + r₀)], residual vector, two
//	                              dots, scalar: res, best, restart, stop (phase step)
//	step   (gate step):           best, y, N y, g = N y + r, x, Nγ updated;
//	                              scalar: L = 0.9L or done
//
// One product with N per trial, as engine.APGD: N y is the combination of
// Nγ_{k+1} and Nγ_k that y is of γ_{k+1} and γ_k (init takes N γ₀).
//
// A block with one trial completes an iteration when its first trial is
// accepted; when the step size must be halved the block ends in phase
// trial, and the next block skips its start and tries again with 2L. So
// halvings move work into later blocks (or the next submit) and change no
// value: the sequence of operations is the host's. 16 blocks go into a
// submit (apgdBlocks; fewer when MaxIter leaves fewer iterations), and
// since every block records the same work, the second submit's recording
// is run again by the later ones (runBlocks, Batch.Resubmit): a solve
// records its blocks about twice, not once per iteration. After the
// iteration that stops the solve, the phase is done and every later
// kernel of the submit returns at once.
//
// Every kernel computes what engine.APGD's LinAlg and Problem calls compute
// on this backend, bit for bit (each kernel's header says how), so the
// device solve returns the host-driven solve's γ, iterations and residual
// exactly (TestDeviceAPGD checks it).

// The phases of the device solver (s.phase).
const (
	apgdStart  = 0 // the next block begins an iteration
	apgdTrial  = 1 // the step size was halved: the next trial goes on
	apgdAccept = 2 // a trial was accepted
	apgdStep   = 3 // the iterate was judged: the vector updates are next
	apgdDone   = 4 // converged, MaxIter reached, or failed (s.err)
)

// gate returns the mask of the phases in which a kernel runs.
func gate(phases ...uint32) uint32 {
	var m uint32
	for _, p := range phases {
		m |= 1 << p
	}
	return m
}

// gateAlways is the gate of a kernel shared with a host-driven path
// (problem.Sweep's gs_colour_sweep and gs_sweep): every phase, so it runs
// whatever phase the scalar buffer holds (0–5, apgd.go's and spg.go's).
const gateAlways = ^uint32(0)

// apgdBlocks and apgdMaxBlocks bound the iteration blocks recorded per
// submit: the first submit of a solve records apgdBlocks, each further one
// twice as many as the last, up to apgdMaxBlocks (and never more than the
// iterations left). A block completes an iteration or one step-size
// halving, so a solve of k iterations takes about log₂(k/16) + 1 submits up
// to k = 112 and ⌈(k − 112)/64⌉ more beyond (100 iterations: 3 submits,
// 500: 10). Doubling keeps the blocks that run in vain after the solve
// stops (kernels that return at once) below the blocks that did work, and
// below 64.
const (
	apgdBlocks    = 16
	apgdMaxBlocks = 64
)

// The scalar buffer, std430 (shaders/lib/apgd_scalars.glsl): float64 L, t,
// θ, θ', β, fx, res, rmin, fBest, dots[4] at byte 0, 8, …, 96; then uint32
// phase, flags, iter, bt, err, trials at byte 104, 108, …, 124; then float64
// Lmin, the floor under L (engine.APGD's εL₀), at byte 128, which only
// apgd_scalar reads and its init writes, and rlow, the smallest residual
// so far, at byte 136, which only apgd_scalar_f32 reads and writes (with
// mixed precision rmin is the best iterate's residual), and Lrej, the
// curvature the last rejected trial needed (engine.APGDReject), at byte
// 144, which apgd_scalar's init sets to 0.
const (
	apgdScalarBytes = 152
	sL              = 0
	sRmin           = 7
	sFBest          = 8
	sDots           = 9
	sPhase          = 104
	sIter           = 112
	sBT             = 116
	sErr            = 120
	sTrials         = 124 // uint32: the line-search trials, a product with N each
	sRlow           = 17  // float64 at byte 136: the smallest residual (mixed precision)
)

// apgdScalars is the host's copy of the scalar buffer.
type apgdScalars struct {
	raw [apgdScalarBytes]byte
}

func (s *apgdScalars) f64(i int) float64 {
	return math.Float64frombits(binary.LittleEndian.Uint64(s.raw[8*i:]))
}

func (s *apgdScalars) setF64(i int, v float64) {
	binary.LittleEndian.PutUint64(s.raw[8*i:], math.Float64bits(v))
}

func (s *apgdScalars) u32(off int) uint32 { return binary.LittleEndian.Uint32(s.raw[off:]) }

// apgdKernels are the device solver's kernels.
type apgdKernels struct {
	bodyImpulse, contactVelocity, step, dot, sum, scalar, residual, antiRelax, next, init *Kernel
}

// apgdModules returns the kernels' modules: with f32 (settings.precision
// "mixed") the float32-storage builds of those that read or write the
// work vectors (shaders/lib/store.glsl).
func apgdModules(k *apgdKernels, f32 bool) []kernelSpec {
	pick := func(dbl, f shaders.Module) shaders.Module {
		if f32 {
			return f
		}
		return dbl
	}
	return []kernelSpec{
		{&k.bodyImpulse, pick(shaders.ApgdBodyImpulse, shaders.ApgdBodyImpulseF32)},
		{&k.contactVelocity, pick(shaders.ApgdContactVelocity, shaders.ApgdContactVelocityF32)},
		{&k.step, pick(shaders.ApgdStep, shaders.ApgdStepF32)}, {&k.dot, pick(shaders.ApgdDot, shaders.ApgdDotF32)},
		{&k.sum, shaders.ApgdSum}, {&k.scalar, pick(shaders.ApgdScalar, shaders.ApgdScalarF32)},
		{&k.residual, pick(shaders.ApgdResidual, shaders.ApgdResidualF32)},
		{&k.antiRelax, pick(shaders.ApgdAntiRelax, shaders.ApgdAntiRelaxF32)},
		{&k.next, pick(shaders.ApgdNext, shaders.ApgdNextF32)}, {&k.init, pick(shaders.ApgdInit, shaders.ApgdInitF32)},
	}
}

// The modes of apgd_init.
const (
	apgdInitStart = 0 // x = Π(γ₀), y = x, best = 1, nxNew = x − best
	apgdInitNx    = 1 // nx = ny
	apgdInitOut   = 2 // γ = best
)

// apgdRun is one device solve.
type apgdRun struct {
	p   *problem
	k   apgdKernels
	opt engine.SolveOptions
	ar  bool
	n   int // 3nc

	s, hist *Buffer
	chunks  int
	partial *Vec // apgd_dot's partials, 4 per chunk (a Vec, so that it lives as long as a)
	// The work vectors γ_k, γ_{k+1}, y_k, g, N y_k, N γ_k, N γ_{k+1},
	// best: n float64, or n float32 with settings.precision "mixed"
	// (store.glsl). No scratch vector of its own: the residual vector
	// goes to y, which an accepted trial no longer needs (apgd_next sets
	// it anew), init's γ₀ − γ̂₀ to nxNew, which the first trial sets
	// before it reads it, and tail's N γ̂ to y.
	x, xNew, y, g, ny, nx, nxNew, best *Buffer
	// r (the anti-relaxed one, or r₀), r₀ and γ: float64 always.
	r, r0, gamma *Vec
	histCap      int
}

// SolveAPGD implements engine.DeviceAPGD: engine.APGD's iterations on the
// device (see above). It returns what engine.APGD.Solve returns on this
// problem, and leaves the best iterate in gamma, recorded into the open
// batch.
func (p *problem) SolveAPGD(gamma engine.Vec, opt engine.SolveOptions, antiRelax bool) (engine.SolveStats, error) {
	name := "apgd"
	if antiRelax {
		name = "apgd-ar"
	}
	var st engine.SolveStats
	gv := p.contactVec("SolveAPGD", gamma)
	n := gv.n
	if n == 0 || opt.MaxIter <= 0 {
		return st, fmt.Errorf("gpu: %s: device solve of %d rows for %d iterations: nothing to do", name, n, opt.MaxIter)
	}
	if p.Err() != nil {
		return st, p.Err()
	}
	a := &apgdRun{p: p, opt: opt, ar: antiRelax, n: n, gamma: gv}
	if err := a.setup(); err != nil {
		return st, err
	}
	sc, err := a.run(name)
	var h []float64
	if err == nil && opt.History {
		h = make([]float64, 4*min(int(sc.u32(sIter)), a.histCap))
		err = a.hist.ReadFloat64(h, 0)
	}
	a.release()
	if err != nil {
		return st, err
	}
	iter := int(sc.u32(sIter))
	switch sc.u32(sErr) {
	case 0:
	case 1:
		return st, fmt.Errorf("%s: step size search did not end at iteration %d (L = %g): N or r is not finite", name, iter, sc.f64(sL))
	case 2:
		return st, fmt.Errorf("%s: objective is NaN at iteration %d", name, iter)
	default:
		return st, fmt.Errorf("gpu: %s: the device solver reports error %d", name, sc.u32(sErr))
	}
	st.Iterations = iter
	st.Residual = sc.f64(sRmin)
	st.ProjGrad = st.Residual * float64(n)
	st.Converged = st.Residual < opt.Tol
	st.Objective = sc.f64(sFBest)
	// apgd_init's two products (N(γ₀ − γ̂₀) and Nγ₀), one per trial.
	st.Products = 2 + int(sc.u32(sTrials))
	if antiRelax {
		// tail's γ̂ᵀNγ̂ and r₀ᵀγ̂, engine's objective with the problem's r.
		st.Objective = 0.5*sc.f64(sDots) + sc.f64(sDots+1)
		st.Products++
	}
	if opt.History {
		for k := range len(h) / 4 {
			st.History = append(st.History, engine.IterRecord{
				Iter: k + 1, Residual: h[4*k], Objective: h[4*k+1], Step: h[4*k+2], Restart: h[4*k+3] != 0,
			})
		}
	}
	a.initOp(apgdInitOut)
	return st, p.Err()
}

// run records the solve, submits blocks (see apgdBlocks) until the
// device's phase is done, and returns the scalars.
func (a *apgdRun) run(name string) (apgdScalars, error) {
	a.init()
	return runBlocks(a.p, a.s, a.opt.MaxIter, 0, name, a.block, a.tail, true)
}

// setup builds the kernels and makes the buffers and vectors of a solve.
func (a *apgdRun) setup() error {
	d := a.p.b.d
	if err := kernels(d, apgdModules(&a.k, a.p.b.mixed)...); err != nil {
		return err
	}
	var err error
	if a.s, err = a.p.devScalarBuffer(); err != nil {
		return err
	}
	a.hist = a.s // bound but never written when histCap is 0
	if a.opt.History {
		a.histCap = a.opt.MaxIter
		if a.hist, err = d.NewHostBuffer(8 * 4 * int64(a.histCap)); err != nil {
			return err
		}
	}
	a.chunks = (a.n + dotChunk - 1) / dotChunk
	// The work vectors stay with the backend from solve to solve (devVec;
	// n float32 fit in a vector of ⌈n/2⌉ float64).
	k := 0
	words := a.n
	if a.p.b.mixed {
		words = (a.n + 1) / 2
	}
	work := func() *Buffer { k++; return a.p.devVec(k, words).buf }
	a.x, a.xNew, a.y, a.g, a.ny, a.nx, a.nxNew, a.best = work(), work(), work(), work(), work(), work(), work(), work()
	a.r0 = a.p.vec(a.p.R())
	a.r = a.r0
	if a.ar {
		k++
		a.r = a.p.devVec(k, a.n)
	}
	a.partial = a.p.devVec(0, 4*a.chunks)
	if err := a.p.Err(); err != nil {
		a.release()
		return err
	}
	var sc apgdScalars
	sc.setF64(sRmin, math.Inf(1))
	sc.setF64(sRlow, math.Inf(1))
	sc.setF64(sFBest, math.NaN())
	if err := a.s.write(0, sc.raw[:]); err != nil {
		a.release()
		return err
	}
	return nil
}

// release frees the history buffer (the scalar buffer and the work
// vectors stay with the backend). run leaves nothing recorded that uses
// it: it returns after a Flush, or after a failed one.
func (a *apgdRun) release() {
	if a.hist != a.s {
		a.hist.Release()
	}
}

// init records lines 1–5: x = Π(γ₀), y = x, best = 1, nxNew = x − best,
// g = N nxNew, then L from ‖g‖/‖nxNew‖, then N y = N γ₀, g = N y + r and a
// copy of N γ₀ (engine.APGD's calls and values).
func (a *apgdRun) init() {
	p := a.p
	a.initOp(apgdInitStart)
	st := gate(apgdStart)
	a.schur(a.g, a.nxNew, st, false)
	if a.ar {
		p.Copy(a.r, a.r0)
	}
	a.dots(0, st, a.nxNew, a.g, a.r.buf, a.g, a.g)
	a.scalar(0, st)
	a.schur(a.ny, a.x, st, true)
	a.initOp(apgdInitNx)
}

// initOp records apgd_init in the given mode.
func (a *apgdRun) initOp(mode uint32) {
	p, b := a.p, a.p.b
	p.record(a.k.init, p.groupsRows(a.k.init), shaders.ApgdInitArgs{NC: uint32(b.nc), Nj: p.nj(), Mode: mode},
		a.gamma.buf, a.x, a.y, a.best, a.nxNew, a.ny, a.nx, b.mu, b.coh, b.jt.lo, b.jt.hi)
}

// block records one iteration block (see above).
func (a *apgdRun) block() {
	p, b := a.p, a.p.b
	trial := gate(apgdStart, apgdTrial)
	accept, step := gate(apgdAccept), gate(apgdStep)
	p.record(a.k.step, p.groupsRows(a.k.step), shaders.ApgdStepArgs{NC: uint32(b.nc), Nj: p.nj(), Gate: trial},
		a.xNew, a.y, a.g, b.mu, b.coh, a.s, b.jt.lo, b.jt.hi)
	a.schur(a.nxNew, a.xNew, trial, false)
	a.dots(1, trial, a.xNew, a.nxNew, a.r.buf, a.y, a.ny)
	a.scalar(1, trial)
	if a.ar {
		p.record(a.k.antiRelax, p.groupsRows(a.k.antiRelax), shaders.ApgdAntiRelaxArgs{NC: uint32(b.nc), Nj: p.nj(), Gate: accept},
			a.r.buf, a.r0.buf, a.nxNew, b.mu, a.s)
	}
	p.record(a.k.residual, p.groupsRows(a.k.residual), shaders.ApgdResidualArgs{Gd: a.opt.Gd, NC: uint32(b.nc), Nj: p.nj(), Gate: accept},
		a.y, a.xNew, a.nxNew, a.r.buf, b.mu, b.coh, a.s, b.jt.lo, b.jt.hi)
	a.dots(2, accept, a.y, a.g, a.r.buf, a.xNew, a.x)
	a.scalar(2, accept)
	p.record(a.k.next, p.groups(a.k.next, a.n), shaders.ApgdNextArgs{N: uint32(a.n), Gate: step},
		a.best, a.y, a.x, a.xNew, a.ny, a.nx, a.nxNew, a.g, a.r.buf, a.s)
	a.scalar(3, step)
}

// tail records, for apgd-ar, the objective of the best iterate with the
// problem's r (γ̂ᵀNγ̂ and r₀ᵀγ̂ into s.dots), run once the solve is done.
func (a *apgdRun) tail() {
	if !a.ar {
		return
	}
	done := gate(apgdDone)
	a.schur(a.y, a.best, done, false)
	a.dots(3, done, a.best, a.y, a.r0.buf, a.best, a.best)
}

// schur records dst = N x (and g = dst + r when withG) under gate g.
func (a *apgdRun) schur(dst, x *Buffer, g uint32, withG bool) {
	a.p.recordGatedSchur(a.k.bodyImpulse, a.k.contactVelocity, a.s, dst, x, a.g, a.r.buf, g, withG)
}

// dots records apgd_dot of the given mode on v0…v4 and apgd_sum into
// s.dots under gate g (v2 is float64 always, the others work vectors:
// apgd_dot's header).
func (a *apgdRun) dots(mode, g uint32, v0, v1, v2, v3, v4 *Buffer) {
	p := a.p
	pairs := uint32(2)
	if mode == 1 {
		pairs = 4
	}
	groups := [3]uint32{uint32(min(a.chunks, int(p.d.Info.MaxWorkgroupCount[0]))), 1, 1}
	p.record(a.k.dot, groups, shaders.ApgdDotArgs{N: uint32(a.n), Mode: mode, Gate: g},
		a.partial.buf, v0, v1, v2, v3, v4, a.s)
	p.record(a.k.sum, [3]uint32{pairs, 1, 1}, shaders.ApgdSumArgs{Chunks: uint32(a.chunks), Gate: g}, a.s, a.partial.buf)
}

// scalar records apgd_scalar of the given mode under gate g.
func (a *apgdRun) scalar(mode, g uint32) {
	a.p.record(a.k.scalar, [3]uint32{1, 1, 1},
		shaders.ApgdScalarArgs{Tol: a.opt.Tol, Gd: a.opt.Gd, Mode: mode, Gate: g, N: uint32(a.n),
			MaxIter: uint32(min(a.opt.MaxIter, math.MaxUint32)), HistCap: uint32(a.histCap)},
		a.s, a.hist)
}

var _ engine.DeviceAPGD = (*problem)(nil)
