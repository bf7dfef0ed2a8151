// gs_contact.glsl: sweepContact, the projected Gauss–Seidel update of one
// contact (cpuref's Sweep, one iteration of its contact loop), and the
// buffers it reads and writes, for gs_sweep (the sequential tail) and
// gs_colour_sweep (a colour's contacts in parallel): with dv = M⁻¹Dγ
// current (A = a[k], B = b[k]),
//
//	u := D_kᵀ dv                                   // as contact_velocity
//	s := ω/diag[3k]
//	p := ProjectCone(γ_k − s·(u + r_k), MU(k), COH(k))   // as project
//	δ := λp + (1−λ)γ_k − γ_k                       // per component, left to right
//	γ_k += δ
//	dv_A += M_A⁻¹ D_k,A δ; dv_B += M_B⁻¹ D_k,B δ    // fixed bodies skipped
//
// with M⁻¹D_k,side δ = (im·F, R J̄⁻¹ Rᵀ (s × F)), F = ±contactForce(n,
// u, δ) (− for A, + for B) and s the side's contact point (cpuref's
// addContactImpulse; j·(s × F) for an isotropic body); u is
// lib/contact_row.glsl's contactRow and ProjectCone lib/cone.glsl's
// proj. Every operation `precise`, in cpuref's order: bit for bit equal where float64 division and square root
// are correctly rounded. It writes γ_k and the dv of k's movable bodies
// only, so contacts without a common movable body update independently.
//
// Bindings (set 0), declared here: 0 gamma (read and written; 3 float64
// per contact), 1 dv (read and written; 6 per body, world frame), 2 diag
// (3 per contact), 3 r (3 per contact), 4 a, 5 b (uint32 body indices),
// 6 jac (12 per contact, 8 with lib/jac.glsl's JAC_ARMS), 7 mu, 8 coh (1
// per contact), 9 invMass (1 per body), 10 invInertia (3 per body), 11
// fixedBody (uint32 per body), 12 invInertiaW (6 per body: R J̄⁻¹ Rᵀ of the
// step, world_velocity). The includer defines nothing.
layout(std430, set = 0, binding = 0) buffer Gamma { double gamma[]; };
layout(std430, set = 0, binding = 1) buffer DV { double dv[]; };
layout(std430, set = 0, binding = 2) readonly buffer Diag { double diag[]; };
layout(std430, set = 0, binding = 3) readonly buffer R { double r[]; };
layout(std430, set = 0, binding = 4) readonly buffer BodyA { uint bodyA[]; };
layout(std430, set = 0, binding = 5) readonly buffer BodyB { uint bodyB[]; };
#define JAC_BINDING 6
#include "jac.glsl"
layout(std430, set = 0, binding = 7) readonly buffer Mu { double mu[]; };
layout(std430, set = 0, binding = 8) readonly buffer Coh { double coh[]; };
#include "contact_material.glsl"
layout(std430, set = 0, binding = 9) readonly buffer InvMass { double invMass[]; };
layout(std430, set = 0, binding = 10) readonly buffer InvInertia { double invInertia[]; };
layout(std430, set = 0, binding = 11) readonly buffer FixedBody { uint fixedBody[]; };
layout(std430, set = 0, binding = 12) readonly buffer InvInertiaW { double invInertiaW[]; };

#include "cone.glsl"
#include "contact_row.glsl"

// invInertiaWorld returns R J̄⁻¹ Rᵀ t for body i (cpuref's
// invInertiaWorld).
precise dvec3 invInertiaWorld(uint i, dvec3 t) {
	dvec3 ji = dvec3(invInertia[3u * i], invInertia[3u * i + 1u], invInertia[3u * i + 2u]);
	precise dvec3 w = INERTIA_WORLD(ji, invInertiaW, i, t);
	return w;
}

// addImpulse adds M_i⁻¹ (f, s × f) to dv of body i, f the force on it and
// s its contact point (cpuref's addContactImpulse).
void addImpulse(uint i, dvec3 sv, dvec3 f) {
	double im = invMass[i];
	precise dvec3 w = invInertiaWorld(i, contactTorque(sv, f));
	for (uint j = 0u; j < 3u; j++) {
		precise double lin = dv[6u * i + j] + im * f[j];
		dv[6u * i + j] = lin;
		precise double ang = dv[6u * i + 3u + j] + w[j];
		dv[6u * i + 3u + j] = ang;
	}
}

// sweepContact updates contact k with relaxation ω and mix λ.
void sweepContact(uint k, double omega, double lambda) {
	uint ia = bodyA[k];
	uint ib = bodyB[k];
	uint oa = 6u * ia;
	uint ob = 6u * ib;
	dvec3 n = jacVec(k, JAC_N);
	dvec3 tu = jacVec(k, JAC_U);
	dvec3 sa = jacVec(k, JAC_SA);
	dvec3 sb = jacVec(k, JAC_SB);
	precise dvec3 uv = contactRow(n, tu, sa, sb, dvec3(dv[oa], dv[oa + 1u], dv[oa + 2u]), dvec3(dv[oa + 3u], dv[oa + 4u], dv[oa + 5u]),
		dvec3(dv[ob], dv[ob + 1u], dv[ob + 2u]), dvec3(dv[ob + 3u], dv[ob + 4u], dv[ob + 5u]));
	double u[3];
	u[0] = uv.x;
	u[1] = uv.y;
	u[2] = uv.z;
	precise double s = omega / diag[3u * k];
	double x0 = gamma[3u * k];
	double x1 = gamma[3u * k + 1u];
	double x2 = gamma[3u * k + 2u];
	precise double y0 = x0 - s * (u[0] + r[3u * k]);
	precise double y1 = x1 - s * (u[1] + r[3u * k + 1u]);
	precise double y2 = x2 - s * (u[2] + r[3u * k + 2u]);
	double pc[3];
	proj(y0, y1, y2, MU(k), COH(k), pc[0], pc[1], pc[2]);
	precise double l1 = 1.0lf - lambda;
	precise double d0 = lambda * pc[0] + l1 * x0 - x0;
	precise double d1 = lambda * pc[1] + l1 * x1 - x1;
	precise double d2 = lambda * pc[2] + l1 * x2 - x2;
	precise double g0 = x0 + d0;
	precise double g1 = x1 + d1;
	precise double g2 = x2 + d2;
	gamma[3u * k] = g0;
	gamma[3u * k + 1u] = g1;
	gamma[3u * k + 2u] = g2;
	precise dvec3 F = contactForce(n, tu, d0, d1, d2);
	if (fixedBody[ia] == 0u) {
		addImpulse(ia, sa, dvec3(-F.x, -F.y, -F.z));
	}
	if (fixedBody[ib] == 0u) {
		addImpulse(ib, sb, F);
	}
}
