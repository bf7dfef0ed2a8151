package cpuref

import (
	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/geom"
)

// The solve's frame. Between Build and Integrate every body's velocity
// 6-vector (vfree, dv = M⁻¹Dγ) holds its linear and its angular velocity
// in the world frame, and every row's angular part (a contact's
// s × d, a joint's and a rolling block's rot) is a world-frame vector, so
// that a contact's Jacobian follows from its normal, one tangent and its
// two contact points (12 numbers, contactRows) instead of 27. The body
// state and vfree keep ω̄ in the body frame (README's conventions): Build
// takes r from vfree turned into the world frame (worldVelocity), and
// Integrate adds the solved impulse's Rᵀ(M⁻¹Dγ)_ω to vfree's ω̄, R the
// orientation at the start of the step, so that a body without contacts
// or joints keeps the ω̄ of engine.GyroStep bit for bit (a round trip
// R then Rᵀ of ω̄ would add a rounding each step: a tumbling ellipsoid's
// energy drifted 2e-10 over 20 000 steps that way, TestFreeEllipsoidEnergy).
//
// The angular block of M⁻¹ in the world frame is R J̄⁻¹ Rᵀ: invInertiaWorld
// applies it as j·τ for an isotropic body (J̄⁻¹'s three entries equal:
// spheres, cubes; and bodies that cannot move, whose J̄⁻¹ is 0), whose
// block is j·I in every frame, and otherwise as the symmetric matrix
// that Build forms once per step (worldInertia: 6 numbers per body, so
// that a product with N costs such a body 15 operations, not two
// quaternion turns).

// isotropic reports whether body i's inverse inertia has three equal
// entries (the device tests the same).
func (b *Backend) isotropic(i int) bool {
	ji := b.invInertia[3*i : 3*i+3]
	return ji[0] == ji[1] && ji[1] == ji[2]
}

// invInertiaWorld returns R J̄⁻¹ Rᵀ t for body i: j·t componentwise for an
// isotropic body, else the product with the step's matrix
// invInertiaW[6i:6i+6] (worldInertia), each row summed left to right.
func (b *Backend) invInertiaWorld(i int, t [3]float64) [3]float64 {
	if b.isotropic(i) {
		j := b.invInertia[3*i]
		return [3]float64{j * t[0], j * t[1], j * t[2]}
	}
	m := (*[6]float64)(b.invInertiaW[6*i : 6*i+6])
	return [3]float64{
		m[0]*t[0] + m[1]*t[1] + m[2]*t[2],
		m[1]*t[0] + m[3]*t[1] + m[4]*t[2],
		m[2]*t[0] + m[4]*t[1] + m[5]*t[2]}
}

// worldInertia returns R J̄⁻¹ Rᵀ for the orientation (w, x, y, z) and the
// body-frame inverse inertia ji as (m00, m01, m02, m11, m12, m22), with R
// the rotation matrix of the quaternion,
//
//	R = [1 − 2(y²+z²), 2(xy − wz), 2(xz + wy);
//	     2(xy + wz), 1 − 2(x²+z²), 2(yz − wx);
//	     2(xz − wy), 2(yz + wx), 1 − 2(x²+y²)],
//
// and m_ab = R_a0·j_0·R_b0 + R_a1·j_1·R_b1 + R_a2·j_2·R_b2, each term
// (R_ak·j_k)·R_bk, left to right (the device's world_velocity.comp the
// same).
func worldInertia(w, x, y, z float64, ji [3]float64) [6]float64 {
	xx, yy, zz := x*x, y*y, z*z
	xy, xz, yz := x*y, x*z, y*z
	wx, wy, wz := w*x, w*y, w*z
	r := [3][3]float64{
		{1 - 2*(yy+zz), 2 * (xy - wz), 2 * (xz + wy)},
		{2 * (xy + wz), 1 - 2*(xx+zz), 2 * (yz - wx)},
		{2 * (xz - wy), 2 * (yz + wx), 1 - 2*(xx+yy)},
	}
	m := func(a, c int) float64 {
		return r[a][0]*ji[0]*r[c][0] + r[a][1]*ji[1]*r[c][1] + r[a][2]*ji[2]*r[c][2]
	}
	return [6]float64{m(0, 0), m(0, 1), m(0, 2), m(1, 1), m(1, 2), m(2, 2)}
}

// inBodyFrame returns ρ as invInertia's entries weigh it: Rᵀρ, or ρ
// itself for an isotropic body (whose weights are equal, so that
// Σ_m J̄⁻¹_m ρ_m² is the same in either frame). For the diagonals.
func (b *Backend) inBodyFrame(i int, rho mgl64.Vec3) mgl64.Vec3 {
	if b.isotropic(i) {
		return rho
	}
	return geom.RotateInverse(b.quat(i), rho)
}

// contactW returns w = n × u of a contact's Jacobian j (12 values: n, u,
// s_A, s_B), the third direction of its frame, as TangentBasis makes it
// (mgl64's Vec3.Cross).
func contactW(j *[12]float64) (wx, wy, wz float64) {
	return j[1]*j[5] - j[2]*j[4], j[2]*j[3] - j[0]*j[5], j[0]*j[4] - j[1]*j[3]
}

// contactRows sets out[3(k−lo):3(k−lo)+3] = D_kᵀ v for the contacts k in
// [lo, hi) with Jacobians jac (12 per contact) and bodies a[k], b[k], v
// the 6-per-body velocities (linear and angular, world): the relative
// velocity of the two contact points,
//
//	V = (v_B − v_A) + (ω_B × s_B − ω_A × s_A),
//
// in the contact frame (n·V, u·V, w·V), each dot summed left to right.
// This is the general row d·Δv + (d × s_A)·ω_A + (s_B × d)·ω_B written
// with the triple products turned around. The loop holds the arithmetic:
// a function per contact is too large to inline, and its calls cost about
// 3 % of a step (BenchmarkStep at n = 1000 and 8000, alternated). It runs
// from the last contact down: it follows the body impulses' scatter, which
// went up the same Jacobians (pool.forChunksBack); every contact's rows are
// their own, so the order changes no value.
func contactRows(jac []float64, a, b []int32, v, out []float64, lo, hi int) {
	for k := hi - 1; k >= lo; k-- {
		j := (*[12]float64)(jac[12*k : 12*k+12])
		ia, ib := int(a[k]), int(b[k])
		va, vb := (*[6]float64)(v[6*ia:6*ia+6]), (*[6]float64)(v[6*ib:6*ib+6])
		// ω_A × s_A and ω_B × s_B (mgl64's Vec3.Cross).
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
		o := (*[3]float64)(out[3*(k-lo) : 3*(k-lo)+3])
		o[0] = j[0]*vx + j[1]*vy + j[2]*vz
		o[1] = j[3]*vx + j[4]*vy + j[5]*vz
		o[2] = wx*vx + wy*vy + wz*vz
	}
}

// contactRowsArms is contactRows for the 8-value layout (n, u, ρ_A, ρ_B:
// b.compact), with s = ρ n formed first, each component one product
// (jacBlock's): the same operations on the same values. A loop of its
// own: a layout chosen per contact inside contactRows's loop cost a
// quarter of the Schur product (BenchmarkSchur), for either layout.
func contactRowsArms(jac []float64, a, b []int32, v, out []float64, lo, hi int) {
	for k := hi - 1; k >= lo; k-- {
		j := (*[8]float64)(jac[8*k : 8*k+8])
		ra, rb := j[6], j[7]
		sa0, sa1, sa2 := j[0]*ra, j[1]*ra, j[2]*ra
		sb0, sb1, sb2 := j[0]*rb, j[1]*rb, j[2]*rb
		ia, ib := int(a[k]), int(b[k])
		va, vb := (*[6]float64)(v[6*ia:6*ia+6]), (*[6]float64)(v[6*ib:6*ib+6])
		ax := va[4]*sa2 - va[5]*sa1
		ay := va[5]*sa0 - va[3]*sa2
		az := va[3]*sa1 - va[4]*sa0
		bx := vb[4]*sb2 - vb[5]*sb1
		by := vb[5]*sb0 - vb[3]*sb2
		bz := vb[3]*sb1 - vb[4]*sb0
		vx := (vb[0] - va[0]) + (bx - ax)
		vy := (vb[1] - va[1]) + (by - ay)
		vz := (vb[2] - va[2]) + (bz - az)
		wx, wy, wz := j[1]*j[5]-j[2]*j[4], j[2]*j[3]-j[0]*j[5], j[0]*j[4]-j[1]*j[3] // contactW
		o := (*[3]float64)(out[3*(k-lo) : 3*(k-lo)+3])
		o[0] = j[0]*vx + j[1]*vy + j[2]*vz
		o[1] = j[3]*vx + j[4]*vy + j[5]*vz
		o[2] = wx*vx + wy*vy + wz*vz
	}
}

// contactForce returns the impulse x (3 values, frame n, u, w) of a
// contact with Jacobian j as a world vector F = x_n n + x_u u + x_w w
// (each component summed left to right): what body B receives, and A
// −F.
func contactForce(j *[12]float64, x0, x1, x2 float64) (f0, f1, f2 float64) {
	wx, wy, wz := contactW(j)
	return x0*j[0] + x1*j[3] + x2*wx, x0*j[1] + x1*j[4] + x2*wy, x0*j[2] + x1*j[5] + x2*wz
}

// contactTorque returns s × F for side 0 (A: s = s_A) or 1 (B: s_B) of a
// contact with Jacobian j (mgl64's Vec3.Cross): with F the force on that
// side (−F for A), its torque about the body's centre.
func contactTorque(j *[12]float64, side int32, f0, f1, f2 float64) (t0, t1, t2 float64) {
	s := j[6:9]
	if side != 0 {
		s = j[9:12]
	}
	return s[1]*f2 - s[2]*f1, s[2]*f0 - s[0]*f2, s[0]*f1 - s[1]*f0
}
