package cpuref

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// problem is the matrix-free CCP of the backend's current step.
type problem struct {
	linalg
	b *Backend
}

// Contacts returns nc.
func (p *problem) Contacts() int { return p.b.con.Len() }

// Joints returns the number of joint rows, which follow the 3·nc contact
// rows (engine.JointRows).
func (p *problem) Joints() int { return p.b.jt.Rows }

var _ engine.JointRows = (*problem)(nil)

// R returns r = b + DᵀM⁻¹k.
func (p *problem) R() engine.Vec {
	if p.b.rv == nil {
		p.b.rv = p.b.r
	}
	return p.b.rv
}

// Schur sets dst = Dᵀ(M⁻¹(D x)): a gather per body, then a product per
// contact. No N is assembled.
func (p *problem) Schur(dst, x engine.Vec) { p.b.schur(vec(dst), vec(x)) }

// contactVelocities sets args.d_k = D_kᵀ args.dv for the contacts k in
// [lo, hi).
func (b *Backend) contactVelocities(_, lo, hi int) {
	b.velocities(lo, hi, b.args.dv, b.args.d[3*lo:3*hi])
}

// Project sets dst_i = Π_Υi(x_i) with the contact's μ and cohesion impulse,
// and clamps each joint row into its bounds (a bilateral row's are ±Inf:
// unchanged).
func (p *problem) Project(dst, x engine.Vec) {
	b := p.b
	b.args.d, b.args.x = vec(dst), vec(x)
	b.pool.forChunks(b.con.Len(), contactGrain, taskFunc(b.loops.project))
	b.args = loopArgs{}
	if b.jt.Rows > 0 {
		b.projectJoints(vec(dst), vec(x))
	}
	if b.rl.n > 0 {
		b.projectRolling(vec(dst), vec(x))
	}
}

// project sets args.d_k = Π(args.x_k) for the contacts k in [lo, hi).
func (b *Backend) project(_, lo, hi int) {
	projectCones(b.args.d, b.args.x, b.mu, b.coh, lo, hi)
}

// AntiRelax sets dst = r, then dst_i,n += μ_i‖(u_i,u, u_i,w)‖.
func (p *problem) AntiRelax(dst, u engine.Vec) {
	b := p.b
	d, uv := vec(dst), vec(u)
	copy(d, b.r)
	for k := range b.con.Len() {
		mu, _ := b.coneAt(k)
		d[3*k] += mu * math.Hypot(uv[3*k+1], uv[3*k+2])
	}
}

// BlockDiag sets g_i = tr(D_iᵀM⁻¹D_i)/3 on the three rows of contact i:
// for each direction d of the contact frame, (1/m_A + 1/m_B)|d|² plus
// Σ_m ρ_A,d,m²/J_A,m + ρ_B,d,m²/J_B,m with ρ_A,d = d × s_A and
// ρ_B,d = s_B × d taken into the body's frame (inBodyFrame); and N_rr on
// each joint row r. A
// joint row gets its own diagonal rather than its joint's averaged one:
// its set Υ_r is a line or an interval, which a diagonal scaling maps to
// a line or an interval, so every solver's argument for a preconditioner
// that is a multiple of the identity on each cone holds row by row.
func (p *problem) BlockDiag(dst engine.Vec) {
	b := p.b
	b.args.d = vec(dst)
	b.pool.forChunks(b.con.Len(), contactGrain, taskFunc(b.loops.blockDiag))
	b.args = loopArgs{}
	d, o := vec(dst), 3*b.con.Len()
	for r := 0; r < b.jt.Rows; r++ {
		d[o+r] = b.jointDiag(r)
	}
	for k := range b.rl.n {
		g := b.rollingDiag(k)
		o := b.rl.off + 3*k
		d[o], d[o+1], d[o+2] = g, g, g
	}
}

// blockDiag is BlockDiag's loop over the contacts in [lo, hi): the terms
// of the trace in the order d = n, u, w, then m, A's before B's.
// The vectors are held as components (mgl64's Cross written out, and
// inBodyFrame's rotation only for a body that is not isotropic): as
// Vec3 values each went through memory, and the loop took 133 ns per
// contact, more than a Gauss–Seidel sweep's 35 (BenchmarkBlockDiag at
// n = 1000).
func (b *Backend) blockDiag(_, lo, hi int) {
	d, invI := b.args.d, b.invInertia
	var blk [12]float64
	for k := lo; k < hi; k++ {
		ia, ib := int(b.con.A[k]), int(b.con.B[k])
		j := b.jacBlock(k, &blk)
		wx, wy, wz := contactW(j)
		isoA, isoB := b.isotropic(ia), b.isotropic(ib)
		tr := 3 * (b.invMass[ia] + b.invMass[ib]) // |d|² = 1 for n, u, w
		for _, dir := range [3][3]float64{{j[0], j[1], j[2]}, {j[3], j[4], j[5]}, {wx, wy, wz}} {
			// dir × s_A and s_B × dir, in the body frames.
			ra := [3]float64{dir[1]*j[8] - dir[2]*j[7], dir[2]*j[6] - dir[0]*j[8], dir[0]*j[7] - dir[1]*j[6]}
			rb := [3]float64{j[10]*dir[2] - j[11]*dir[1], j[11]*dir[0] - j[9]*dir[2], j[9]*dir[1] - j[10]*dir[0]}
			if !isoA {
				ra = b.inBodyFrame(ia, mgl64.Vec3(ra))
			}
			if !isoB {
				rb = b.inBodyFrame(ib, mgl64.Vec3(rb))
			}
			for m := 0; m < 3; m++ {
				tr += ra[m]*ra[m]*invI[3*ia+m] + rb[m]*rb[m]*invI[3*ib+m]
			}
		}
		g := tr / 3
		d[3*k], d[3*k+1], d[3*k+2] = g, g, g
	}
}

// Sweep runs one projected Gauss–Seidel sweep, matrix-free: it keeps
// dv = M⁻¹Dγ per body, takes (Nγ + r)_i = D_iᵀdv + r_i for contact i, and
// after updating γ_i adds M⁻¹D_i Δγ_i to the velocities of its two bodies.
// It takes the contacts in the colouring's order (colour.go): colour 0's
// contacts in index order, colour 1's, …, then the tail's in index order;
// each contact sees all earlier updates, and within a colour, whose
// contacts share no movable body, the updates are independent, so a
// colour's contacts run on the pool's workers (sweepContacts) and the
// device's parallel sweep of a colour gives the same bits. The first Sweep after Build colours the contacts. Joint rows
// follow the contacts, one row at a time with B_r = 1/N_rr (diag's
// value): a projected SOR step on a scalar row, which never increases the
// objective for ω < 2 (N_rr is that row's exact curvature), where a block
// per joint would need a factorisation of its 5×5 or 6×6 block. Rolling
// blocks (engine.RollingRows) come last, block by block with B_k = I/g_k
// (BlockDiag's value), each projected with its contact's γ_n of this
// sweep (ProjectRolling).
func (p *problem) Sweep(gamma, diag engine.Vec, omega, lambda float64) {
	p.Sweeps(gamma, diag, omega, lambda, 1)
}

// Sweeps runs k sweeps (engine.CarriedSweeps): dv = M⁻¹Dγ formed once,
// then k times Sweep's pass over the contacts, joint rows and rolling
// blocks, each from the dv the last one left.
func (p *problem) Sweeps(gamma, diag engine.Vec, omega, lambda float64, k int) {
	b := p.b
	g, dg := vec(gamma), vec(diag)
	b.bodyImpulse(g, b.dv)
	for range k {
		b.sweepOnce(g, dg, omega, lambda)
	}
}

var _ engine.CarriedSweeps = (*problem)(nil)

// sweepOnce is one sweep of the contacts, joint rows and rolling blocks
// from the velocities in b.dv, which it updates (Sweep).
func (b *Backend) sweepOnce(g, dg []float64, omega, lambda float64) {
	b.sweepContacts(g, dg, omega, lambda)
	o := 3 * b.con.Len()
	for r := 0; r < b.jt.Rows; r++ {
		x := g[o+r]
		u := b.jointVelocity(r, b.dv) + b.r[o+r]
		y := math.Max(b.jt.lo[r], math.Min(b.jt.hi[r], x-omega/dg[o+r]*u))
		delta := lambda*y + (1-lambda)*x - x
		g[o+r] += delta
		b.addJointRowImpulse(r, delta, b.dv)
	}
	rl := &b.rl
	for k := range rl.n {
		o := rl.off + 3*k
		var u [3]float64
		b.rollingVelocity(k, b.dv, &u)
		s := omega / dg[o]
		x := g[o : o+3]
		ru, rw, sp := ProjectRolling(g[3*rl.con[k]], x[0]-s*(u[0]+b.r[o]), x[1]-s*(u[1]+b.r[o+1]), x[2]-s*(u[2]+b.r[o+2]), rl.mur[k], rl.mus[k])
		var delta [3]float64
		for d, y := range [3]float64{ru, rw, sp} {
			delta[d] = lambda*y + (1-lambda)*x[d] - x[d]
			x[d] += delta[d]
		}
		b.addRollingImpulse(k, delta, b.dv)
	}
}

// SweepOrder returns the order of Sweep's contacts (engine.SweepOrder).
func (p *problem) SweepOrder() []int32 { return p.b.colour().perm }

var _ engine.SweepOrder = (*problem)(nil)

// sweepContacts is Sweep's pass over the contacts, in the colouring's
// order: for contact k, u = D_kᵀ dv (velocities: contactRows's or
// contactRowsArms's operations), the update y = RelaxContact(γ_k, u + r_k,
// ω/diag_k, λ, μ_k, c_k), δ = y − γ_k, γ_k += δ, and M⁻¹D_k δ added to the
// velocities of its movable bodies: the force F = contactForce(D_k, δ),
// −F on A, each side's torque contactTorque and invInertiaWorld. Every
// value is computed with those functions' operations in their order, in
// one loop body: the contact's 12 Jacobian values (formed from the 8 of
// the compact layout), w = n × u and the arms once per contact instead of
// once for its velocity and again for its impulse, and no call per
// contact but the projection's and, for bodies that are not isotropic,
// invInertiaWorld's (BenchmarkSweep at n = 1000 took 70 ns per contact
// through those functions).
//
// A colour's contacts share no movable body, so each updates γ and
// velocities that no other contact of its colour reads or writes: the
// colour runs on the pool's workers in parts of sweepGrain contacts, in
// any order, with the values of the sequential sweep (the device's
// gs_colour_sweep runs a colour's contacts in parallel likewise). The
// tail, whose contacts may share bodies, runs on the caller, in order.
func (b *Backend) sweepContacts(g, dg []float64, omega, lambda float64) {
	cl := b.sweepCopies()
	b.args = loopArgs{x: g, d: dg, omega: omega, lambda: lambda}
	for c := range MaxColours {
		if lo, hi := int(cl.start[c]), int(cl.start[c+1]); hi > lo {
			b.args.base = lo
			b.pool.forChunks(hi-lo, sweepGrain, b.loops.sweep)
		}
	}
	b.sweepRange(int(cl.start[ColourTail]), int(cl.start[ColourTail+1]))
	b.args = loopArgs{}
}

// sweepPart is the parallel loop of a colour's part [lo, hi)
// (sweepContacts).
func (b *Backend) sweepPart(_, lo, hi int) {
	b.sweepRange(b.args.base+lo, b.args.base+hi)
}

// sweepRange updates the contacts [lo, hi) of the colouring's order in
// turn, with the sweep's operands in b.args (sweepContacts).
func (b *Backend) sweepRange(lo, hi int) {
	cl := &b.col
	g, dg, omega, lambda := b.args.x, b.args.d, b.args.omega, b.args.lambda
	jac, r, ab, dv, fixed := cl.jac, cl.r, cl.ab, b.dv, b.fixed
	mu, coh, ms := b.mu, b.coh, stride1(b.mu)
	// Every body isotropic (no step matrices): invInertiaWorld's
	// isotropic case, j·t, written in place.
	iso, invI := b.invInertiaW == nil, b.invInertia
	var blk [12]float64
	for i := lo; i < hi; i++ {
		// Contact k's Jacobian, r and bodies are the i-th in the sweep's
		// copies (colour.go), read in order.
		k := int(cl.perm[i])
		var j *[12]float64
		if b.compact {
			arms12((*[8]float64)(jac[8*i:8*i+8]), &blk)
			j = &blk
		} else {
			j = (*[12]float64)(jac[12*i : 12*i+12])
		}
		ia, ib := int(ab[2*i]), int(ab[2*i+1])
		va, vb := (*[6]float64)(dv[6*ia:6*ia+6]), (*[6]float64)(dv[6*ib:6*ib+6])
		// u = D_kᵀ dv: contactRows's operations, written out (a function
		// of them is not inlined: cost 312 against Go's budget of 80).
		ax := va[4]*j[8] - va[5]*j[7]
		ay := va[5]*j[6] - va[3]*j[8]
		az := va[3]*j[7] - va[4]*j[6]
		bx := vb[4]*j[11] - vb[5]*j[10]
		by := vb[5]*j[9] - vb[3]*j[11]
		bz := vb[3]*j[10] - vb[4]*j[9]
		vx := (vb[0] - va[0]) + (bx - ax)
		vy := (vb[1] - va[1]) + (by - ay)
		vz := (vb[2] - va[2]) + (bz - az)
		wx, wy, wz := contactW(j)
		u0 := j[0]*vx + j[1]*vy + j[2]*vz
		u1 := j[3]*vx + j[4]*vy + j[5]*vz
		u2 := wx*vx + wy*vy + wz*vz
		// RelaxContact.
		x := (*[3]float64)(g[3*k : 3*k+3])
		s := omega / dg[3*k]
		n, tu, tw := ProjectCone(x[0]-s*(u0+r[3*i]), x[1]-s*(u1+r[3*i+1]), x[2]-s*(u2+r[3*i+2]), mu[ms*k], coh[ms*k])
		y0, y1, y2 := lambda*n+(1-lambda)*x[0], lambda*tu+(1-lambda)*x[1], lambda*tw+(1-lambda)*x[2]
		d0, d1, d2 := y0-x[0], y1-x[1], y2-x[2]
		x[0] += d0
		x[1] += d1
		x[2] += d2
		// M⁻¹D_k δ (contactForce, contactTorque, invInertiaWorld), A's side
		// and B's written out but for addVelocity (a function for a side is
		// not inlined: cost 156, and two calls per contact; nor is one for
		// the torque's M⁻¹ alone: cost 100).
		F0, F1, F2 := d0*j[0]+d1*j[3]+d2*wx, d0*j[1]+d1*j[4]+d2*wy, d0*j[2]+d1*j[5]+d2*wz
		if !fixed[ia] {
			f0, f1, f2 := -F0, -F1, -F2
			t0, t1, t2 := j[7]*f2-j[8]*f1, j[8]*f0-j[6]*f2, j[6]*f1-j[7]*f0
			if iso {
				ji := invI[3*ia]
				t0, t1, t2 = ji*t0, ji*t1, ji*t2
			} else {
				t := b.invInertiaWorld(ia, [3]float64{t0, t1, t2})
				t0, t1, t2 = t[0], t[1], t[2]
			}
			addVelocity(va, b.invMass[ia], f0, f1, f2, t0, t1, t2)
		}
		if !fixed[ib] {
			t0, t1, t2 := j[10]*F2-j[11]*F1, j[11]*F0-j[9]*F2, j[9]*F1-j[10]*F0
			if iso {
				ji := invI[3*ib]
				t0, t1, t2 = ji*t0, ji*t1, ji*t2
			} else {
				t := b.invInertiaWorld(ib, [3]float64{t0, t1, t2})
				t0, t1, t2 = t[0], t[1], t[2]
			}
			addVelocity(vb, b.invMass[ib], F0, F1, F2, t0, t1, t2)
		}
	}
}

// addVelocity adds to a body's six velocity values v the impulse's
// change: im·f on the linear ones, the torque's t (M⁻¹ already applied)
// on the angular ones (sweepContacts' two sides; inlined).
func addVelocity(v *[6]float64, im, f0, f1, f2, t0, t1, t2 float64) {
	v[0] += im * f0
	v[1] += im * f1
	v[2] += im * f2
	v[3] += t0
	v[4] += t1
	v[5] += t2
}

// Cones copies μ and the cohesion impulses, one per contact.
func (p *problem) Cones(mu, cohesion []float64) {
	for k := range p.b.con.Len() {
		mu[k], cohesion[k] = p.b.coneAt(k)
	}
}
