// contact_row.glsl: a contact's Jacobian block in the solve's world frame
// (cpuref's frame.go), for jacobian, contact_velocity.glsl, block_diag,
// fixed_force, gs_contact.glsl and body_impulse.glsl. Contact k's block is
// stored as 12 float64 at jac[12k:12k+12]: the normal n, the tangent u, and
// the contact points from the bodies' centres s_A and s_B, all in the world
// frame (or as n, u, ρ_A, ρ_B with s = ρ n: lib/jac.glsl's JAC_ARMS);
// w = n × u. Every operation `precise`, in cpuref's order: bit for
// bit cpuref's contactW, contactRows, contactForce and contactTorque. The
// includer defines nothing; a second #include adds nothing.
#ifndef CONTACT_ROW_GLSL
#define CONTACT_ROW_GLSL
#include "quat.glsl"

// contactW returns w = n × u (mgl64's Vec3.Cross, as TangentBasis).
precise dvec3 contactW(dvec3 n, dvec3 u) {
	return cross3(n, u);
}

// contactRow returns D_kᵀ of the bodies' velocities (linear va, vb and
// angular wa, wb, world frame): the contact points' relative velocity
// V = (v_B − v_A) + (ω_B × s_B − ω_A × s_A) in the frame (n·V, u·V, w·V),
// each dot summed left to right.
precise dvec3 contactRow(dvec3 n, dvec3 u, dvec3 sa, dvec3 sb, dvec3 va, dvec3 wa, dvec3 vb, dvec3 wb) {
	precise dvec3 a = cross3(wa, sa);
	precise dvec3 b = cross3(wb, sb);
	precise double vx = (vb.x - va.x) + (b.x - a.x);
	precise double vy = (vb.y - va.y) + (b.y - a.y);
	precise double vz = (vb.z - va.z) + (b.z - a.z);
	precise dvec3 w = contactW(n, u);
	precise double on = n.x * vx + n.y * vy + n.z * vz;
	precise double ou = u.x * vx + u.y * vy + u.z * vz;
	precise double ow = w.x * vx + w.y * vy + w.z * vz;
	return dvec3(on, ou, ow);
}

// contactForce returns the impulse (x0, x1, x2) in the frame (n, u, w) as
// the world vector x0 n + x1 u + x2 w, each component left to right: what
// body B receives, and A its negation.
precise dvec3 contactForce(dvec3 n, dvec3 u, double x0, double x1, double x2) {
	precise dvec3 w = contactW(n, u);
	precise double fx = x0 * n.x + x1 * u.x + x2 * w.x;
	precise double fy = x0 * n.y + x1 * u.y + x2 * w.y;
	precise double fz = x0 * n.z + x1 * u.z + x2 * w.z;
	return dvec3(fx, fy, fz);
}

// contactTorque returns s × f, the torque of the force f at the contact
// point s from a body's centre.
precise dvec3 contactTorque(dvec3 s, dvec3 f) {
	return cross3(s, f);
}

// symMul returns m t for the symmetric matrix m = (m00, m01, m02, m11,
// m12, m22), each row summed left to right (cpuref's invInertiaWorld).
precise dvec3 symMul(double m0, double m1, double m2, double m3, double m4, double m5, dvec3 t) {
	precise double x = m0 * t.x + m1 * t.y + m2 * t.z;
	precise double y = m1 * t.x + m3 * t.y + m4 * t.z;
	precise double z = m2 * t.x + m4 * t.y + m5 * t.z;
	return dvec3(x, y, z);
}

// isotropic reports whether ji's three entries are equal.
bool isotropic(dvec3 ji) {
	return ji.x == ji.y && ji.y == ji.z;
}

// inBodyFrameOf returns ρ as the entries of ji weigh it: Rᵀρ, or ρ itself
// for an isotropic body (cpuref's inBodyFrame).
precise dvec3 inBodyFrameOf(dvec3 ji, double qw, dvec3 qv, dvec3 rho) {
	if (isotropic(ji)) {
		return rho;
	}
	precise dvec3 qc = dvec3(qv.x * -1.0lf, qv.y * -1.0lf, qv.z * -1.0lf);
	return rotate(qw, qc, rho);
}

// INERTIA_WORLD(ji, IW, i, t): R J̄⁻¹ Rᵀ t for body i of inverse inertia
// ji (body frame): ji.x·t componentwise for an isotropic body, else
// symMul with the step's matrix IW[6i:6i+6] (world_velocity writes it),
// read only then (cpuref's invInertiaWorld).
#define INERTIA_WORLD(ji, IW, i, t) (isotropic(ji) ? dvec3((ji).x * (t).x, (ji).x * (t).y, (ji).x * (t).z) : symMul(IW[6u * (i)], IW[6u * (i) + 1u], IW[6u * (i) + 2u], IW[6u * (i) + 3u], IW[6u * (i) + 4u], IW[6u * (i) + 5u], (t)))
#endif
