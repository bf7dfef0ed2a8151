package cpuref

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/engine"
)

// TangentBasis is engine.TangentBasis, the contact frame (n, u, w) that
// every backend builds.
func TangentBasis(n mgl64.Vec3) (u, w mgl64.Vec3) { return engine.TangentBasis(n) }

// Build computes, for the current contacts, the Jacobian blocks of eq. 4
// and r = b + DᵀM⁻¹k (k = Mv + hf), and returns the problem.
//
// D_iᵀ maps body velocities to the contact's relative velocity in the
// contact frame (n, u, w), n from A to B: row d ∈ {n, u, w} is
//
//	−d·v_A + ρ_A,d·ω̄_A + d·v_B + ρ_B,d·ω̄_B,
//	ρ_A,d = d̄_A × s̄_A, ρ_B,d = s̄_B × d̄_B,
//
// with d̄ = Aᵀd the direction in the body frame and s̄ the contact point in
// the body frame; this is eq. 4's A_pᵀ A s̃̄ written as cross products.
// f holds gravity, the external loads and the gyroscopic torque −ω̄×(Jω̄)
// (the latter integrated implicitly: see freeVelocity).
func (b *Backend) Build(h float64) (engine.Problem, error) {
	b.h = h
	b.col.valid = false // the first Sweep colours the contacts (colour.go)
	b.freeVelocity(h)
	nc := b.con.Len()
	b.basis = resizeF(b.basis, 9*nc)
	b.rhoA = resizeF(b.rhoA, 9*nc)
	b.rhoB = resizeF(b.rhoB, 9*nc)
	b.coh = resizeF(b.coh, nc)
	b.listRolling()
	if n := b.rows(); len(b.r) != n {
		b.r = resizeF(b.r, n)
		b.rv = nil // boxed again by R, once per change of length
	}
	b.pool.forChunks(nc, contactGrain, taskFunc(b.loops.build))
	if b.jt.Rows > 0 {
		b.buildJoints(h)
	}
	if b.rl.n > 0 {
		b.buildRolling()
	}
	b.prob = problem{linalg: b.linalg, b: b}
	return &b.prob, nil
}

// build is Build's loop over the contacts in [lo, hi), at step b.h.
func (b *Backend) build(_, lo, hi int) {
	h, capSpeed := b.h, b.settings.MaxRecoverySpeed
	for k := lo; k < hi; k++ {
		c := b.con
		n := mgl64.Vec3{c.Normal[3*k], c.Normal[3*k+1], c.Normal[3*k+2]}
		u, w := TangentBasis(n)
		ia, ib := int(c.A[k]), int(c.B[k])
		qa, qb := b.quat(ia).Conjugate(), b.quat(ib).Conjugate()
		sa := mgl64.Vec3{c.PA[3*k], c.PA[3*k+1], c.PA[3*k+2]}
		sb := mgl64.Vec3{c.PB[3*k], c.PB[3*k+1], c.PB[3*k+2]}
		for d, dir := range [3]mgl64.Vec3{n, u, w} {
			copy(b.basis[9*k+3*d:], dir[:])
			ra := qa.Rotate(dir).Cross(sa)
			rb := sb.Cross(qb.Rotate(dir))
			copy(b.rhoA[9*k+3*d:], ra[:])
			copy(b.rhoB[9*k+3*d:], rb[:])
		}
		b.coh[k] = h * c.Cohesion[k]
		b.velocities(k, k+1, b.vfree, b.r[3*k:3*k+3])
		bn := c.Phi[k] / h
		if capSpeed > 0 {
			bn = math.Max(bn, -capSpeed)
		}
		b.r[3*k] += bn
	}
}

// freeVelocity sets vfree = v + h M⁻¹ f per movable body, the angular part
// ω̄* + hJ⁻¹τ̄ with ω̄* = engine.GyroStep(ω̄, J⁻¹, h), the gyroscopic torque
// integrated implicitly (zero for fixed
// bodies, the prescribed velocity of the step for kinematic ones: see
// kinematicVelocity): linear part in the world frame, angular part in the
// body frame. Contacts and joints see a kinematic body's velocity through
// r = b + Dᵀvfree, although its M⁻¹ is zero.
func (b *Backend) freeVelocity(h float64) {
	b.args.h = h
	b.pool.forChunks(b.n, bodyGrain, taskFunc(b.loops.freeVelocity))
	b.args = loopArgs{}
}

// freeVelocities is freeVelocity's loop over the bodies in [lo, hi).
func (b *Backend) freeVelocities(_, lo, hi int) {
	g, h := b.gravity, b.args.h
	for i := lo; i < hi; i++ {
		vf := b.vfree[6*i : 6*i+6]
		if b.fixed[i] {
			if b.jt.kin[i] != nil {
				b.kinematicVelocity(i, h, vf)
				continue
			}
			for k := range vf {
				vf[k] = 0
			}
			continue
		}
		im := b.invMass[i]
		for k := 0; k < 3; k++ {
			vf[k] = b.vel[3*i+k] + h*(g[k]+im*b.force[3*i+k])
		}
		ji := [3]float64{b.invInertia[3*i], b.invInertia[3*i+1], b.invInertia[3*i+2]}
		w := engine.GyroStep([3]float64{b.omega[3*i], b.omega[3*i+1], b.omega[3*i+2]}, ji, h)
		tq := b.quat(i).Conjugate().Rotate(mgl64.Vec3{b.torque[3*i], b.torque[3*i+1], b.torque[3*i+2]})
		for k := 0; k < 3; k++ {
			vf[3+k] = w[k] + h*ji[k]*tq[k]
		}
	}
}

// velocities sets out[3(k−lo):3(k−lo)+3] = D_kᵀ v for the contacts k in
// [lo, hi) and the 6-per-body velocity vector v: for each direction d of
// the contact frame, d·(v_B − v_A) + ρ_A,d·ω̄_A + ρ_B,d·ω̄_B.
func (b *Backend) velocities(lo, hi int, v []float64, out []float64) {
	for k := lo; k < hi; k++ {
		ia, ib := int(b.con.A[k]), int(b.con.B[k])
		va := (*[6]float64)(v[6*ia : 6*ia+6])
		vb := (*[6]float64)(v[6*ib : 6*ib+6])
		bs := (*[9]float64)(b.basis[9*k : 9*k+9])
		ra := (*[9]float64)(b.rhoA[9*k : 9*k+9])
		rb := (*[9]float64)(b.rhoB[9*k : 9*k+9])
		o := (*[3]float64)(out[3*(k-lo) : 3*(k-lo)+3])
		dx, dy, dz := vb[0]-va[0], vb[1]-va[1], vb[2]-va[2]
		for d := 0; d < 9; d += 3 {
			o[d/3] = bs[d]*dx + bs[d+1]*dy + bs[d+2]*dz +
				ra[d]*va[3] + ra[d+1]*va[4] + ra[d+2]*va[5] +
				rb[d]*vb[3] + rb[d+1]*vb[4] + rb[d+2]*vb[5]
		}
	}
}

// bodyImpulse sets dv = M⁻¹ D x for every movable body: the sum over the
// body's contacts, in contact order, of the impulse x_k applied through
// D_k (force ∓Σ_d x_k,d d, body-frame torque Σ_d x_k,d ρ_d, each sum in
// the order d = n, u, w), scaled by the inverse mass and inertia: one
// pass over the bodies that gathers from each contact's γ and Jacobian,
// as the device's body_impulse kernels do. Body A subtracts the force
// Σ_d x_k,d d: the values are those of summing Σ_d (−x_k,d) d, since
// negation is exact and rounding is symmetric (TestBodyImpulseBits).
func (b *Backend) bodyImpulse(x Vec, dv []float64) {
	b.args.x, b.args.dv = x, dv
	b.pool.forChunks(b.n, bodyGrain, taskFunc(b.loops.bodyImpulse))
	b.args.x, b.args.dv = nil, nil
}

// bodyImpulses sets args.dv for the bodies in [lo, hi) from the impulses
// args.x: its joint rows, then its contacts (with their rolling blocks'
// torques, which join their contacts' before the body's sum takes them).
func (b *Backend) bodyImpulses(_, lo, hi int) {
	dv, x := b.args.dv, b.args.x
	rolling := b.rl.n > 0 && len(x) == b.rows()
	for i := lo; i < hi; i++ {
		o := (*[6]float64)(dv[6*i : 6*i+6])
		if b.fixed[i] {
			*o = [6]float64{}
			continue
		}
		var f0, f1, f2, t0, t1, t2 float64
		if b.jt.Rows > 0 {
			// Joint rows first, so that contacts add in the same order as
			// without joints; their sums start from the joints' instead of 0.
			var f, t [3]float64
			b.addJointImpulses(i, x, &f, &t)
			f0, f1, f2, t0, t1, t2 = f[0], f[1], f[2], t[0], t[1], t[2]
		}
		for _, e := range b.adj[b.adjOff[i]:b.adjOff[i+1]] {
			k := int(e >> 1)
			g := (*[3]float64)(x[3*k : 3*k+3])
			bs := (*[9]float64)(b.basis[9*k : 9*k+9])
			rho := (*[9]float64)(b.rhoA[9*k : 9*k+9])
			if e&1 != 0 {
				rho = (*[9]float64)(b.rhoB[9*k : 9*k+9])
			}
			g0, g1, g2 := g[0], g[1], g[2]
			F0 := g0*bs[0] + g1*bs[3] + g2*bs[6]
			F1 := g0*bs[1] + g1*bs[4] + g2*bs[7]
			F2 := g0*bs[2] + g1*bs[5] + g2*bs[8]
			T0 := g0*rho[0] + g1*rho[3] + g2*rho[6]
			T1 := g0*rho[1] + g1*rho[4] + g2*rho[7]
			T2 := g0*rho[2] + g1*rho[5] + g2*rho[8]
			if rolling {
				T0, T1, T2 = b.addRollingTorque(k, e&1, x, T0, T1, T2)
			}
			if e&1 == 0 {
				f0 -= F0
				f1 -= F1
				f2 -= F2
			} else {
				f0 += F0
				f1 += F1
				f2 += F2
			}
			t0 += T0
			t1 += T1
			t2 += T2
		}
		im := b.invMass[i]
		ji := (*[3]float64)(b.invInertia[3*i : 3*i+3])
		*o = [6]float64{im * f0, im * f1, im * f2, ji[0] * t0, ji[1] * t1, ji[2] * t2}
	}
}

// addContactImpulse adds M⁻¹D_k x to the 6-per-body velocities dv of the
// two bodies of contact k (fixed bodies have zero inverse mass).
func (b *Backend) addContactImpulse(k int, x [3]float64, dv []float64) {
	bs := b.basis[9*k : 9*k+9]
	for side, body := range [2]int32{b.con.A[k], b.con.B[k]} {
		i := int(body)
		if b.fixed[i] {
			continue
		}
		rho, sign := b.rhoA[9*k:9*k+9], -1.0
		if side == 1 {
			rho, sign = b.rhoB[9*k:9*k+9], 1
		}
		im := b.invMass[i]
		for j := 0; j < 3; j++ {
			dv[6*i+j] += im * sign * (x[0]*bs[j] + x[1]*bs[3+j] + x[2]*bs[6+j])
			dv[6*i+3+j] += b.invInertia[3*i+j] * (x[0]*rho[j] + x[1]*rho[3+j] + x[2]*rho[6+j])
		}
	}
}

func resizeF(s []float64, n int) []float64 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]float64, n, n+n/4)
}
