package cpuref

import (
	"fmt"
	"math"

	"github.com/gpusim/gpusim/engine"
)

// SolveAPGD implements engine.DeviceAPGD on the host: engine.APGD's
// iterations (plain and anti-relaxed) with its vector operations fused
// into fewer passes over memory. Every value is computed with the
// operations, operands and order of engine.APGD.Solve on this problem's
// LinAlg (a·x + b·y element by element, dot products summed in the
// device's order of order.go, Schur as bodyImpulse and
// velocities), so γ, the iterations, the residual, the objective and
// the history are bit for bit those of engine.APGD on the same problem
// without this method (TestSolveAPGDBits). One iteration without step-size
// halving makes three passes instead of engine.APGD's twenty, with one
// product with N:
//
//	contacts: y = (1+β)γ_k − βγ_{k−1}, Ny likewise from Nγ_k and Nγ_{k−1}
//	          (or γ_k and Nγ_k after a restart), g = Ny + r,
//	          γ' = Π(y − t g)
//	bodies:   M⁻¹Dγ' (gathered from each contact's γ' and Jacobian)
//	contacts: Nγ', [r' = r₀ + a(Nγ' + r₀)], then over the same part's
//	          elements γ'·Nγ', r·γ', (γ'−y)·(Nγ'−Ny), ‖γ'−y‖², the
//	          squared norm of the residual vector of γ', g·(γ'−γ_k)
//
// Neither g nor the residual vector is stored: g = 1·Ny + 1·r is taken
// again where it is read (the trial, the last dot product), and the
// residual vector chunk by chunk where its norm is summed, each with
// engine.APGD's operations on the same operands, so the same values. That
// keeps seven vectors of 3 per contact instead of nine (48 bytes per
// contact less) and streams neither (cpuref/traffic.go).
//
// The residual of a trial is taken with the trial (engine.APGD takes it
// once the trial is accepted; a rejected trial's is dropped, the values
// are the same), and the anti-relaxed r' goes to a second vector that
// becomes r when the trial is accepted.
//
// The work vectors are kept from solve to solve.
//
// With settings.precision "mixed" (precision.go) every value of a work
// vector is rounded to float32 where the device stores it, and used as
// rounded from then on: γ' after its projection, Nγ', y and N y,
// g = N y + r, the residual vector, and init's γ₀, γ₀ − γ̂₀, N(γ₀ − γ̂₀)
// and N γ₀.
func (p *problem) SolveAPGD(gamma engine.Vec, opt engine.SolveOptions, antiRelax bool) (engine.SolveStats, error) {
	return p.b.solveAPGD(vec(gamma), opt, antiRelax)
}

var _ engine.DeviceAPGD = (*problem)(nil)

// apgdWork is SolveAPGD's state: vectors of 3 per contact, the per-chunk
// partial sums, and the operands of the running loop.
type apgdWork struct {
	x, xNew, y, best, ny, nx, nxNew []float64
	rAR, rAR2                       []float64 // r of the anti-relaxed solve, and the next one
	r, rNext                        []float64 // r in use (the problem's or rAR), the trial's (r or rAR2)
	part                            [][6]float64
	col                             []float64 // one sum's column of part, for sumChunks

	r0      Vec     // the problem's r
	mixed   bool    // settings.precision "mixed": round what the device stores as float32
	yMode   int     // trialY: 0 y as it is, 1 y = γ_k, 2 y = a·γ_k + b·γ_{k−1}
	ya, yb  float64 // trialY's a, b
	negT    float64 // −t
	gd      float64
	ar      bool
	loops   struct{ trialY, trial, velRes taskFunc }
	started bool
}

func (b *Backend) solveAPGD(gamma Vec, opt engine.SolveOptions, ar bool) (engine.SolveStats, error) {
	name := "apgd"
	if ar {
		name = "apgd-ar"
	}
	var st engine.SolveStats
	nc := b.con.Len()
	n := 3 * nc
	w := &b.apgd
	if !w.started {
		l := &w.loops
		l.trialY, l.trial, l.velRes = b.apgdTrialY, b.apgdTrial, b.apgdVelRes
		w.started = true
	}
	for _, v := range []*[]float64{&w.x, &w.xNew, &w.y, &w.best, &w.ny, &w.nx, &w.nxNew} {
		*v = resizeF(*v, n)
	}
	w.sizeParts(n)
	w.r0, w.r, w.rNext, w.gd, w.ar, w.mixed = b.r, b.r, b.r, opt.Gd, ar, b.mixed
	if ar {
		w.rAR, w.rAR2 = resizeF(w.rAR, n), resizeF(w.rAR2, n)
		copy(w.rAR, b.r)
		w.r, w.rNext = w.rAR, w.rAR2
	}
	defer func() { w.r0, w.r, w.rNext, b.args = nil, nil, nil, loopArgs{} }()

	// Lines 1–5: γ̂₀ = 1, y₀ = γ₀, θ₀ = 1, L from the secant between γ₀ and γ̂₀
	// (γ₀ − γ̂₀ and its product with N in nxNew and ny, which the loop
	// sets before it reads them).
	x, xNew, y, best, g, tmp := w.x, w.xNew, w.y, w.best, w.ny, w.nxNew
	b.args.d, b.args.x = x, gamma
	b.pool.forChunks(nc, contactGrain, taskFunc(b.loops.project))
	w.round(x)
	copy(y, x)
	for i := range best {
		best[i] = 1
	}
	for i := range tmp {
		tmp[i] = x[i] + (-1)*best[i]
	}
	w.round(tmp)
	b.schur(g, tmp)
	w.round(g)
	den := math.Sqrt(b.dot(tmp, tmp))
	L := math.Sqrt(b.dot(g, g)) / den
	if !(L > 0) || math.IsInf(L, 0) {
		// As engine.APGD: unit curvature, corrected by the line search
		// (NaN lands here too).
		L = 1
	}
	lmin := L * 0x1p-52 // engine's apgdFloor: L never falls below εL₀
	t := 1 / L
	rej := 0.0 // the curvature the last rejected trial needed (engine.APGDReject)
	theta := 1.0
	rmin := math.Inf(1) // the best iterate's residual
	rlow := rmin        // the smallest residual (mixed precision)
	fBest := math.NaN()
	// N γ₀, and N y₀ = N γ₀ (engine.APGD's Schur and Copy).
	b.schur(w.nx, x)
	w.round(w.nx)
	copy(w.ny, w.nx)
	st.Products = 2 // N(γ₀ − γ̂₀) and Nγ₀
	w.yMode = 0
	// Where the best iterate is: in best, or left where it was made (in
	// x or xNew) until the trial is about to overwrite it, so that a run
	// of better iterates copies none of them (a copy of all of γ was 2 %
	// of a step at n = 1000).
	const inBest, inX, inXNew = 0, 1, 2
	bestAt := inBest

	for k := 0; k < opt.MaxIter; k++ {
		if w.yMode != 0 {
			// γ_k = γ' of the last iteration: x and xNew, Nγ_k and Nγ'
			// trade places (xNew keeps γ_{k−1} for trialY, which reads
			// it before the trial overwrites it).
			w.x, w.xNew = w.xNew, w.x
			w.nx, w.nxNew = w.nxNew, w.nx
			xNew = w.xNew
			switch bestAt { // it traded places with them
			case inX:
				bestAt = inXNew
			case inXNew:
				bestAt = inX
			}
		}
		if bestAt == inXNew {
			copy(best, xNew)
			bestAt = inBest
		}
		// Lines 7–8: y_k and N y_k (from the last iteration's γ_k and
		// γ_{k−1}), g = N y_k + r, and the first trial
		// γ_{k+1} = Π(y_k − t g) with its impulse, in one pass.
		w.negT = -t
		b.args.dv = b.dv
		b.pool.forChunks(nc, contactGrain, w.loops.trialY)
		w.yMode = 0
		var fx float64
		var d [6]float64
		for bt := 0; ; bt++ {
			if bt > 0 {
				w.negT = -t
				b.pool.forChunks(nc, contactGrain, w.loops.trial)
			}
			b.args.x = xNew
			b.pool.forChunks(b.n, bodyGrain, taskFunc(b.loops.bodyImpulse))
			b.pool.forChunksBack(nc, contactGrain, w.loops.velRes)
			st.Products++
			d = w.sumDots6()
			fx = 0.5*d[0] + d[1]
			// Line 9, in the form engine.APGD takes it.
			dNd, dd := d[2], d[3]
			if !(dNd > L*dd) {
				break
			}
			if bt == 200 { // engine's apgdMaxBacktrack
				return st, fmt.Errorf("%s: step size search did not end at iteration %d (L = %g): N or r is not finite", name, k, L)
			}
			// Lines 10–12.
			L, t, rej = engine.APGDReject(L, rej, dNd, dd)
		}
		if math.IsNaN(fx) {
			return st, fmt.Errorf("%s: objective is NaN at iteration %d", name, k)
		}
		// Lines 14–15.
		thetaNew := (-theta*theta + theta*math.Sqrt(theta*theta+4)) / 2
		beta := theta * (1 - theta) / (theta*theta + thetaNew)
		// Line 16 (with lines 33–37 first when anti-relaxed: r' becomes
		// r), and the restart test of line 24, from the accepted trial's
		// pass.
		if ar {
			w.r, w.rNext = w.rNext, w.r
		}
		res := math.Sqrt(d[4]) / (float64(n) * opt.Gd)
		st.Iterations = k + 1
		// Lines 17–20. With mixed precision the residual has a floor
		// (float32 iterates resolve a sliding contact's friction
		// direction to 2⁻²⁴ rad, which eq. 25 divides by g_d: engine's
		// MixedNotes), under which it only scatters; there the
		// objective, which keeps falling, decides: an iterate below
		// twice the smallest residual so far (rlow) is the best if its
		// objective is lower. Else the scatter would pick an early
		// iterate: on the pressure scene (n = 1000, the problem after
		// 150 steps, from γ = 0) the residual reached its floor by
		// iteration 150, objective −7.19, and the 500th has −9.62.
		better := res < rmin
		if w.mixed {
			better = better || (res < 2*rlow && fx < fBest)
			rlow = min(rlow, res)
		}
		if better {
			rmin = res
			bestAt = inXNew
			fBest = fx
		}
		// Line 24, else line 16: y_{k+1}, computed by the next iteration.
		restart := d[5] > 0
		if restart {
			w.yMode = 1
			thetaNew = 1
		} else {
			w.yMode, w.ya, w.yb = 2, 1+beta, -beta
		}
		st.Record(opt, engine.IterRecord{Iter: k + 1, Residual: res, Objective: fx, Step: t, Restart: restart})
		// Lines 21–23.
		if res < opt.Tol {
			break
		}
		L, t, rej = engine.APGDNextL(L, lmin, rej)
		theta = thetaNew
	}
	switch bestAt {
	case inX:
		best = w.x
	case inXNew:
		best = w.xNew
	}
	copy(gamma, best)
	if w.mixed {
		// Π(best): as stored it may lie an ulp off its cone.
		projectCones(gamma, gamma, b.mu, b.coh, 0, nc)
	}
	st.Residual = rmin
	st.ProjGrad = rmin * float64(n)
	st.Converged = rmin < opt.Tol
	st.Objective = fBest
	if ar {
		// The objective with the problem's own r, as engine.APGD reports it
		// (N γ̂ in y, done with).
		b.schur(y, best)
		w.round(y)
		st.Products++
		st.Objective = 0.5*b.dot(best, y) + b.dot(b.r, best)
	}
	return st, nil
}

// dot is LinAlg.Dot on slices (no boxing into engine.Vec).
func (b *Backend) dot(x, y []float64) float64 {
	t := &b.pool.dot
	t.x, t.y, t.part = x, y, b.pool
	s := b.pool.sum(len(x), t)
	*t = dotTask{}
	return s
}

// schur sets dst = N x as problem.Schur does.
func (b *Backend) schur(dst, x []float64) {
	b.bodyImpulse(x, b.dv)
	b.args.d, b.args.dv = dst, b.dv
	b.pool.forChunksBack(b.con.Len(), contactGrain, taskFunc(b.loops.contactVelocities))
	b.args = loopArgs{}
	if b.jt.Rows > 0 {
		b.jointVelocities(b.dv, dst[3*b.con.Len():], false)
	}
	if b.rl.n > 0 && len(dst) == b.rows() {
		b.rollingVelocities(b.dv, dst[b.rl.off:], false)
	}
}

// apgdTrialY sets, for the contacts in [lo, hi), y_k and N y_k (yMode),
// and then makes the first trial there (apgdTrial; it needs only contact
// k's y_k and N y_k, and overwrites γ_{k−1} in xNew after y_k is taken
// from it).
func (b *Backend) apgdTrialY(c, lo, hi int) {
	w := &b.apgd
	if useSIMD && !w.mixed && w.yMode == 2 {
		// y, N y and the trial in one pass for whole groups of 8.
		lo = trial8(w, b.mu, b.coh, true, lo, hi)
	}
	y, ny := w.y[3*lo:3*hi], w.ny[3*lo:3*hi]
	x, xo, nx, nxo, a, e := w.x[3*lo:3*hi], w.xNew[3*lo:3*hi], w.nx[3*lo:3*hi], w.nxNew[3*lo:3*hi], w.ya, w.yb
	switch w.yMode {
	case 1:
		copy(y, x)
		copy(ny, nx)
	case 2:
		for i := range y {
			y[i] = a*x[i] + e*xo[i]
		}
		for i := range ny {
			ny[i] = a*nx[i] + e*nxo[i]
		}
		w.round(y)
		w.round(ny)
	}
	b.apgdTrial(c, lo, hi)
}

// apgdTrial sets γ'_k = Π(y_k − t g_k) for the contacts in [lo, hi), with
// g_k = 1·N y_k + 1·r_k (engine.APGD's Axpby).
func (b *Backend) apgdTrial(_, lo, hi int) {
	w := &b.apgd
	if useSIMD && !w.mixed {
		lo = trial8(w, b.mu, b.coh, false, lo, hi)
	}
	y, ny, r, xn, nt := w.y, w.ny, w.r, w.xNew, w.negT
	if w.mixed {
		for i := 3 * lo; i < 3*hi; i++ {
			g := f32(1*ny[i] + 1*r[i])
			xn[i] = 1*y[i] + nt*g
		}
	} else {
		for i := 3 * lo; i < 3*hi; i++ {
			g := 1*ny[i] + 1*r[i]
			xn[i] = 1*y[i] + nt*g
		}
	}
	projectCones(xn, xn, b.mu, b.coh, lo, hi)
	w.round(xn[3*lo : 3*hi])
}

// round rounds v's elements to float32 when the solve is mixed.
func (w *apgdWork) round(v []float64) {
	if w.mixed {
		roundF32(v)
	}
}

// apgdVelRes sets, for the contacts in [lo, hi), Nγ'_k = D_kᵀ dv; when
// anti-relaxed, r'_k = r₀_k plus μ_k‖(u_u, u_w)‖ on the normal row,
// u = Nγ' + r₀ (else r' is r). Then it takes the six dot products of the
// chunks of elements [3lo, 3hi) (apgdDot6) while the part's vectors are
// still in the cache: a part starts at a chunk's first element
// (partsOnChunks), so its chunks are whole, and each chunk's sums are
// the same whichever part and worker take them. (A pass of its own over
// all the contacts had read seven vectors again from memory: with 2
// workers at N = 64 000 that pass took 1.5× the CPU time of one worker's.)
func (b *Backend) apgdVelRes(_, lo, hi int) {
	w := &b.apgd
	b.velocities(lo, hi, b.dv, w.nxNew[3*lo:3*hi])
	w.round(w.nxNew[3*lo : 3*hi])
	nx, r := w.nxNew, w.rNext
	if w.ar {
		r0 := w.r0
		for k := lo; k < hi; k++ {
			u1 := 1*nx[3*k+1] + 1*r0[3*k+1]
			u2 := 1*nx[3*k+2] + 1*r0[3*k+2]
			r[3*k], r[3*k+1], r[3*k+2] = r0[3*k], r0[3*k+1], r0[3*k+2]
			mu, _ := b.coneAt(k)
			r[3*k] += mu * math.Hypot(u1, u2)
		}
	}
	n := len(w.xNew)
	for c := 3 * lo / chunk; c*chunk < 3*hi; c++ {
		b.apgdDot6(c, c*chunk, min(c*chunk+chunk, n))
	}
}

// partsOnChunks: a part of contactGrain contacts holds whole chunks, so
// that apgdVelRes's parts start on a chunk's first element.
const _ = -uint((3 * contactGrain) % chunk)

// residualVector returns, in buf, the elements i in [lo, hi) (at most
// chunk of them) of
// the trial's residual vector,
// γ'_k − Π(γ'_k − g_d(Nγ'_k + r'_k)) (with Π(γ'_k) for γ'_k when mixed,
// in pbuf), computed contact by contact for the
// contacts that hold them (whole, also where a contact straddles lo or
// hi; buf has room for them) with engine's operations (three Axpby and a
// Project).
func (b *Backend) residualVector(buf, pbuf *[chunk + 6]float64, lo, hi int) []float64 {
	if b.apgd.mixed != (pbuf != nil) {
		panic("cpuref: residualVector: a projection buffer is for mixed precision, and needed there")
	}
	w := &b.apgd
	k0, k1 := lo/3, (hi+2)/3
	xn := w.xNew[3*k0 : 3*k1]
	if w.mixed {
		// The residual is taken at Π(γ'): γ' as stored may lie an ulp
		// off its cone (precision.go).
		p := pbuf[:len(xn)]
		mu, coh := b.cones(k0, k1)
		projectCones(p, xn, mu, coh, 0, k1-k0)
		xn = p
	}
	// buf holds the contacts' residuals from contact k0 on (whole groups
	// of 8 in one vector pass, residual8, the rest contact by contact),
	// and the elements [lo, hi) start at off.
	kk := k0
	if useSIMD && !w.mixed {
		kk = residual8(w, buf[:], b.mu, b.coh, k0, k1)
	}
	b.residualContacts(buf[3*(kk-k0):3*(k1-k0)], xn[3*(kk-k0):], kk, k1)
	off := lo - 3*k0
	t := buf[off : off+hi-lo]
	w.round(t)
	return t
}

// residualContacts sets t to the residual vector of the contacts [k0, k1)
// (3 per contact), xn their γ' (Π(γ') when mixed): three Axpby and a
// Project, engine's operations.
func (b *Backend) residualContacts(t, xn []float64, k0, k1 int) {
	w := &b.apgd
	nx, r := w.nxNew[3*k0:3*k1], w.rNext[3*k0:3*k1]
	ngd := -w.gd
	for i := range t {
		t[i] = 1*xn[i] + ngd*(1*nx[i]+1*r[i])
	}
	mu, coh := b.cones(k0, k1)
	projectCones(t, t, mu, coh, 0, k1-k0)
	for i := range t {
		t[i] = 1*xn[i] + (-1)*t[i]
	}
}

// residualVectorMixed is residualVector with mixed precision, whose
// projection buffer only it holds (a float64 solve does not zero 16 KB of
// stack per chunk for it).
func (b *Backend) residualVectorMixed(buf *[chunk + 6]float64, lo, hi int) []float64 {
	var pbuf [chunk + 6]float64
	return b.residualVector(buf, &pbuf, lo, hi)
}

// sizeParts makes room for the per-chunk sums of apgdDot6, one per chunk
// of n elements.
func (w *apgdWork) sizeParts(n int) {
	np := (n + chunk - 1) / chunk
	if cap(w.part) < np {
		w.part = make([][6]float64, np, np+np/4)
	}
	w.part = w.part[:np]
}

// sumDots6 returns γ'·Nγ', r·γ', (γ'−y)·(Nγ'−Ny), ‖γ'−y‖², ‖tmp‖² and
// g·(γ' − γ_k), each summed as LinAlg.Dot sums (order.go): apgdDot6 has
// stored the six sums of each chunk c in part[c] (from apgdVelRes, the
// chunks in parallel with its parts), and each total adds the chunks'
// sums.
func (w *apgdWork) sumDots6() [6]float64 {
	var s [6]float64
	col := resizeF(w.col, len(w.part))
	w.col = col
	for j := range s {
		for c := range w.part {
			col[c] = w.part[c][j]
		}
		s[j] = sumChunks(col)
	}
	return s
}

func (b *Backend) apgdDot6(c, lo, hi int) {
	w := &b.apgd
	var buf [chunk + 6]float64
	var tmp []float64
	if w.mixed {
		tmp = b.residualVectorMixed(&buf, lo, hi)
	} else {
		tmp = b.residualVector(&buf, nil, lo, hi)
	}
	xn, nx, r, y, ny := w.xNew[lo:hi], w.nxNew[lo:hi], w.r[lo:hi], w.y[lo:hi], w.ny[lo:hi]
	x := w.x[lo:hi]
	n := len(xn)
	nx, r, y, ny, tmp, x = nx[:n], r[:n], y[:n], ny[:n], tmp[:n], x[:n]
	// Lane l's terms are l, l+256, …: row j of 256 adds term 256j+l to lane
	// l's sum, rows in order, so each lane adds its terms in order while
	// the loads run along the vectors. (Summing lane by lane in registers
	// instead was measured 10–40 % slower: each lane's sum is then a chain
	// of dependent additions. dot6Lanes, 8 lanes per vector and six sums,
	// does keep its sums in registers, lane group by lane group.)
	var s [6][lanes]float64
	mixed := w.mixed
	covered := 0 // the elements dot6Lanes took (each lane's first terms, in order)
	if useSIMD && !mixed {
		covered = dot6Lanes(&s, xn, nx, r, y, ny, tmp, x)
	}
	for j := 0; j < n; j += lanes {
		m := min(lanes, n-j)
		xn, nx, r, y, ny, tmp, x := xn[j:j+m], nx[j:j+m], r[j:j+m], y[j:j+m], ny[j:j+m], tmp[j:j+m], x[j:j+m]
		s0, s1, s2, s3, s4, s5 := s[0][:m], s[1][:m], s[2][:m], s[3][:m], s[4][:m], s[5][:m]
		for i := min(m, max(0, covered-j)); i < len(xn); i++ {
			s0[i] += xn[i] * nx[i]
			s1[i] += r[i] * xn[i]
			d := 1*xn[i] + (-1)*y[i]
			s2[i] += d * (1*nx[i] + (-1)*ny[i])
			s3[i] += d * d
			s4[i] += tmp[i] * tmp[i]
			g := 1*ny[i] + 1*r[i]
			if mixed {
				g = f32(g)
			}
			s5[i] += g * (1*xn[i] + (-1)*x[i])
		}
	}
	w.part[c] = [6]float64{laneTree(&s[0]), laneTree(&s[1]), laneTree(&s[2]), laneTree(&s[3]), laneTree(&s[4]), laneTree(&s[5])}
}
