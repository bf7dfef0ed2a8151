package cpuref

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/collide"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/geom"
)

// TangentBasis is engine.TangentBasis, the contact frame (n, u, w) that
// every backend builds.
func TangentBasis(n mgl64.Vec3) (u, w mgl64.Vec3) { return engine.TangentBasis(n) }

// Build computes, for the current contacts, the Jacobian blocks of eq. 4
// and r = b + DᵀM⁻¹k (k = Mv + hf), and returns the problem.
//
// D_iᵀ maps body velocities (linear and angular, both in the world frame:
// frame.go) to the contact's relative velocity in the contact frame (n, u,
// w), n from A to B: row d ∈ {n, u, w} is
//
//	−d·v_A + (d × s_A)·ω_A + d·v_B + (s_B × d)·ω_B,
//
// with s the contact point relative to the body's centre in the world frame
// (R s̄ of the contact's body-frame point); this is eq. 4's A_pᵀ A s̃̄ with
// the body frame's rotation taken into ω. A contact's block is stored as n,
// u, s_A and s_B (jac, 12 per contact) and applied by contactRows; w = n ×
// u. Where the model's contact points lie on the normals through the
// bodies' centres (b.arms: spheres against spheres and bodies that never
// turn, engine.Model.ArmsAlongNormal) each arm is s = ρ n with ρ = s·n
// (build), each component one product: the values of the device's
// Jacobian, which holds n, u, ρ_A and ρ_B there (lib/jac.glsl's JAC_ARMS)
// and forms s where it reads it. This path holds those 8 values too
// (b.compact) from compactFrom contacts on, where the loops stream the
// Jacobian from memory, and the 12 values below that: with every operand
// in cache the loops are arithmetic-bound, and forming s in them cost 2–4 %
// of a step at 3 000 contacts (BenchmarkStep, BenchmarkSchur), while at
// 189 000 the 8 values saved 7–9 % (docs/bench.md). Both layouts hold the
// same values, so a step's bits do not depend on the layout. f
// holds gravity, the external loads and the gyroscopic torque −ω̄×(Jω̄)
// (the latter integrated implicitly: see freeVelocity). r takes vfree in
// the world frame, which Build writes into dv (worldVelocity) before the
// rows read it.
func (b *Backend) Build(h float64) (engine.Problem, error) {
	b.h = h
	b.col.valid = false // the first Sweep colours the contacts (colour.go)
	b.freeVelocity(h)
	b.worldVelocity(b.vfree, b.dv)
	nc := b.con.Len()
	b.compact = b.arms && nc >= compactFrom
	b.jac = resizeF(b.jac, b.jacStride()*nc)
	if b.oneMaterial && !b.external && nc > 0 {
		// Every contact combines the one friction and cohesion with
		// themselves: the same values, held once.
		b.mu1[0] = b.con.Mu[0]
		b.mu = b.mu1[:]
		b.coh = resizeF(b.coh, 1)
		b.coh[0] = h * b.con.Cohesion[0]
	} else {
		b.mu = b.con.Mu
		b.coh = resizeF(b.coh, nc)
	}
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

// build is Build's loop over the contacts in [lo, hi), at step b.h. Its
// vectors are held as components (engine.TangentU, geom.Rotate3): the
// operations of TangentBasis, Rotate and mgl64's Vec3 methods, so the same
// bits, without the trips through memory that Go makes for [3]float64
// values (BenchmarkBuild, docs/bench.md).
func (b *Backend) build(_, lo, hi int) {
	h, capSpeed := b.h, b.settings.MaxRecoverySpeed
	c, rot := b.con, b.rot
	perContact := len(b.coh) == c.Len() // else one value (Build)
	for k := lo; k < hi; k++ {
		n0, n1, n2 := c.Normal[3*k], c.Normal[3*k+1], c.Normal[3*k+2]
		u0, u1, u2 := engine.TangentU(n0, n1, n2)
		qa := (*[4]float64)(rot[4*int(c.A[k]):])
		qb := (*[4]float64)(rot[4*int(c.B[k]):])
		pa, pb := (*[3]float64)(c.PA[3*k:]), (*[3]float64)(c.PB[3*k:])
		sa0, sa1, sa2 := geom.Rotate3(qa[0], qa[1], qa[2], qa[3], pa[0], pa[1], pa[2])
		sb0, sb1, sb2 := geom.Rotate3(qb[0], qb[1], qb[2], qb[3], pb[0], pb[1], pb[2])
		if b.arms {
			if b.mixed { // as the device stores them
				n0, n1, n2, u0, u1, u2 = f32(n0), f32(n1), f32(n2), f32(u0), f32(u1), f32(u2)
			}
			// ρ = s·n, summed left to right: the arm s of a contact point
			// on the normal n through the body's centre is ρ n.
			ra := sa0*n0 + sa1*n1 + sa2*n2
			rb := sb0*n0 + sb1*n1 + sb2*n2
			if b.mixed {
				// ρ as stored; ρ n of two float32 is exact in float64.
				ra, rb = f32(ra), f32(rb)
			}
			if b.compact {
				*(*[8]float64)(b.jac[8*k:]) = [8]float64{n0, n1, n2, u0, u1, u2, ra, rb}
			} else {
				sa0, sa1, sa2 = n0*ra, n1*ra, n2*ra
				sb0, sb1, sb2 = n0*rb, n1*rb, n2*rb
			}
		}
		if !b.compact {
			j := (*[12]float64)(b.jac[12*k:])
			*j = [12]float64{n0, n1, n2, u0, u1, u2, sa0, sa1, sa2, sb0, sb1, sb2}
			if b.mixed && !b.arms {
				roundF32(j[:]) // as the device stores it; r below reads it so
			}
		}
		if perContact {
			b.coh[k] = h * c.Cohesion[k]
		}
		b.velocities(k, k+1, b.dv, b.r[3*k:3*k+3])
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
// body frame (the solve takes it in the world frame: worldVelocity).
// Contacts and joints see a kinematic body's velocity through
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
		f := collide.LoadAt(b.force, i)
		for k := 0; k < 3; k++ {
			vf[k] = b.vel[3*i+k] + h*(g[k]+im*f[k])
		}
		ji := [3]float64{b.invInertia[3*i], b.invInertia[3*i+1], b.invInertia[3*i+2]}
		w := engine.GyroStep([3]float64{b.omega[3*i], b.omega[3*i+1], b.omega[3*i+2]}, ji, h)
		tq := geom.RotateInverse(b.quat(i), collide.LoadAt(b.torque, i))
		for k := 0; k < 3; k++ {
			vf[3+k] = w[k] + h*ji[k]*tq[k]
		}
	}
}

// worldVelocity sets dst = v with every body's angular part turned into
// the world frame, R v[6i+3:6i+6] (mgl64's Quat.Rotate; the linear part
// copied): the solve's frame (frame.go); and, for every movable body that
// is not isotropic, invInertiaW = R J̄⁻¹ Rᵀ at this step's orientation
// (worldInertia).
func (b *Backend) worldVelocity(v, dst []float64) {
	b.args.x, b.args.dv = v, dst
	b.pool.forChunks(b.n, bodyGrain, taskFunc(b.loops.worldVelocity))
	b.args = loopArgs{}
}

// worldVelocities is worldVelocity's loop over the bodies in [lo, hi).
func (b *Backend) worldVelocities(_, lo, hi int) {
	v, d := b.args.x, b.args.dv
	for i := lo; i < hi; i++ {
		q := b.quat(i)
		w := geom.Rotate(q, mgl64.Vec3{v[6*i+3], v[6*i+4], v[6*i+5]})
		d[6*i], d[6*i+1], d[6*i+2], d[6*i+3], d[6*i+4], d[6*i+5] = v[6*i], v[6*i+1], v[6*i+2], w[0], w[1], w[2]
		if !b.fixed[i] && !b.isotropic(i) {
			m := worldInertia(q.W, q.V[0], q.V[1], q.V[2], [3]float64(b.invInertia[3*i:3*i+3]))
			copy(b.invInertiaW[6*i:6*i+6], m[:])
		}
	}
}

// velocities sets out[3(k−lo):3(k−lo)+3] = D_kᵀ v for the contacts k in
// [lo, hi) and the 6-per-body velocity vector v (contactRows, or
// contactRowsArms for the 8-value layout).
func (b *Backend) velocities(lo, hi int, v []float64, out []float64) {
	if b.compact {
		contactRowsArms(b.jac, b.con.A, b.con.B, v, out, lo, hi)
		return
	}
	contactRows(b.jac, b.con.A, b.con.B, v, out, lo, hi)
}

// jacStride is the Jacobian's values per contact in b.jac: 12 (n, u, s_A,
// s_B), or 8 (n, u, ρ_A, ρ_B) in the compact layout.
func (b *Backend) jacStride() int {
	if b.compact {
		return 8
	}
	return 12
}

// compactFrom is the contact count from which a model whose arms lie on
// the normals (b.arms) holds its Jacobian as 8 values per contact
// (b.compact). Measured on the settled piles of BenchmarkStep and
// BenchmarkLatticeStep, one worker (docs/bench.md, "The compact Jacobian
// on the CPU path"): the 8 values cost 2–4 % of a step at 3 000 contacts,
// where the arrays fit the core's cache, were even at 25 000 and saved
// 7–9 % at 189 000. A variable so that tests can choose either layout.
var compactFrom = 1 << 14

// coneAt returns contact k's μ and cohesion impulse as the solver reads
// them (b.mu, b.coh: per contact, or one value for all).
func (b *Backend) coneAt(k int) (mu, coh float64) {
	k *= stride1(b.mu)
	return b.mu[k], b.coh[k]
}

// cones returns b.mu and b.coh for the contacts [k0, k1), indexed from 0:
// the slices of those contacts, or the one value of each.
func (b *Backend) cones(k0, k1 int) (mu, coh []float64) {
	if stride1(b.mu) == 0 {
		return b.mu, b.coh
	}
	return b.mu[k0:k1], b.coh[k0:k1]
}

// jacBlock returns contact k's Jacobian block as its 12 values n, u, s_A,
// s_B: jac's own in the 12-value layout, else formed in blk from the 8
// values n, u, ρ_A, ρ_B with s = ρ n, each component one product (Build's
// products, so the same values in either layout).
func (b *Backend) jacBlock(k int, blk *[12]float64) *[12]float64 {
	if b.compact {
		b.armsBlock(k, blk)
		return blk
	}
	return (*[12]float64)(b.jac[12*k : 12*k+12]) // inlined: the 12 values' loops as before
}

// armsBlock sets blk to contact k's 12 values from its 8 (jacBlock).
func (b *Backend) armsBlock(k int, blk *[12]float64) {
	arms12((*[8]float64)(b.jac[8*k:8*k+8]), blk)
}

// arms12 sets blk to the 12 values of a contact's 8 j (armsBlock).
func arms12(j *[8]float64, blk *[12]float64) {
	ra, rb := j[6], j[7]
	*blk = [12]float64{j[0], j[1], j[2], j[3], j[4], j[5], j[0] * ra, j[1] * ra, j[2] * ra, j[0] * rb, j[1] * rb, j[2] * rb}
}

// bodyImpulse sets dv = M⁻¹ D x for every movable body: the sum over the
// body's contacts, in contact order, of the impulse x_k applied through
// D_k (force F_k = contactForce, −F_k on A; torque s × (±F_k)), scaled by
// the inverse mass and by invInertiaWorld: one pass over the bodies that
// gathers from each contact's γ and Jacobian, as the device's
// body_impulse kernels do. Body A's force is the negated F (negation is
// exact, so f + (−F) is f − F).
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
	if useSIMD && b.jt.Rows == 0 && !rolling && b.invInertiaW == nil && cap(dv) >= len(dv)+2 {
		b.bodyImpulses4(dv, x, lo, hi)
		return
	}
	for i := lo; i < hi; i++ {
		o := (*[6]float64)(dv[6*i : 6*i+6])
		if b.fixed[i] {
			*o = [6]float64{}
			continue
		}
		adj := b.adj[b.adjOff[i]:b.adjOff[i+1]]
		if len(adj) == 0 && b.jt.Rows == 0 {
			// Nothing acts on the body: M⁻¹ applied to zero sums is +0 in
			// every entry (each row of the step's R J̄⁻¹ Rᵀ has a diagonal
			// entry ≥ 0, whose product with +0 is +0, and a sum with one
			// +0 term is +0), so the products are skipped; a pile's bodies
			// without contacts (most of a falling one) cost nothing per
			// iteration.
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
		var blk [12]float64
		for _, e := range adj {
			k := int(e >> 1)
			g := (*[3]float64)(x[3*k : 3*k+3])
			j := b.jacBlock(k, &blk)
			F0, F1, F2 := contactForce(j, g[0], g[1], g[2])
			if e&1 == 0 {
				F0, F1, F2 = -F0, -F1, -F2
			}
			T0, T1, T2 := contactTorque(j, e&1, F0, F1, F2)
			if rolling {
				T0, T1, T2 = b.addRollingTorque(k, e&1, x, T0, T1, T2)
			}
			f0 += F0
			f1 += F1
			f2 += F2
			t0 += T0
			t1 += T1
			t2 += T2
		}
		im := b.invMass[i]
		w := b.invInertiaWorld(i, [3]float64{t0, t1, t2})
		*o = [6]float64{im * f0, im * f1, im * f2, w[0], w[1], w[2]}
	}
}

// resizeF returns s resliced to length n when it has room, else a new
// slice of length n with headroom (roomy).
func resizeF(s []float64, n int) []float64 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]float64, n, roomy(n))
}

// roomy is the capacity that the backend gives a per-contact array that
// must grow to n elements: an eighth more, so that a count of contacts
// that creeps up reallocates a few times (at most 6 reallocations per
// doubling) and not at every step, while a settled pile's arrays carry
// 12.5 % of unused room, not the 25 % that Go's append and the earlier
// n + n/4 left (at 64 000 settled spheres the per-contact arrays are about
// 40 % of the memory).
func roomy(n int) int { return n + n/8 }
