// gs_contact.glsl: sweepContact, the projected Gauss–Seidel update of one
// contact (cpuref's Sweep, one iteration of its contact loop), and the
// buffers it reads and writes, for gs_sweep (the sequential tail) and
// gs_colour_sweep (a colour's contacts in parallel): with dv = M⁻¹Dγ
// current (A = a[k], B = b[k]),
//
//	u := D_kᵀ dv                                   // as contact_velocity
//	s := ω/diag[3k]
//	p := ProjectCone(γ_k − s·(u + r_k), mu[k], coh[k])   // as project
//	δ := λp + (1−λ)γ_k − γ_k                       // per component, left to right
//	γ_k += δ
//	dv_A += M_A⁻¹ D_k,A δ; dv_B += M_B⁻¹ D_k,B δ    // fixed bodies skipped
//
// with M⁻¹D_k,side δ = (im·sign·(δ_0 d̂_0,j + δ_1 d̂_1,j + δ_2 d̂_2,j),
// J⁻¹_j(δ_0 ρ_0,j + δ_1 ρ_1,j + δ_2 ρ_2,j)), sign −1 for A and +1 for B
// (cpuref's addContactImpulse); u's rows are lib/contact_row.glsl's row
// and ProjectCone lib/cone.glsl's proj. Every operation `precise`, in
// cpuref's order: bit for bit equal where float64 division and square root
// are correctly rounded. It writes γ_k and the dv of k's movable bodies
// only, so contacts without a common movable body update independently.
//
// Bindings (set 0), declared here: 0 gamma (read and written; 3 float64
// per contact), 1 dv (read and written; 6 per body), 2 diag (3 per
// contact), 3 r (3 per contact), 4 a, 5 b (uint32 body indices), 6 basis,
// 7 rhoA, 8 rhoB (9 per contact), 9 mu, 10 coh (1 per contact), 11 invMass
// (1 per body), 12 invInertia (3 per body), 13 fixedBody (uint32 per
// body). The includer defines nothing.
layout(std430, set = 0, binding = 0) buffer Gamma { double gamma[]; };
layout(std430, set = 0, binding = 1) buffer DV { double dv[]; };
layout(std430, set = 0, binding = 2) readonly buffer Diag { double diag[]; };
layout(std430, set = 0, binding = 3) readonly buffer R { double r[]; };
layout(std430, set = 0, binding = 4) readonly buffer BodyA { uint bodyA[]; };
layout(std430, set = 0, binding = 5) readonly buffer BodyB { uint bodyB[]; };
layout(std430, set = 0, binding = 6) readonly buffer Basis { double basis[]; };
layout(std430, set = 0, binding = 7) readonly buffer RhoA { double rhoA[]; };
layout(std430, set = 0, binding = 8) readonly buffer RhoB { double rhoB[]; };
layout(std430, set = 0, binding = 9) readonly buffer Mu { double mu[]; };
layout(std430, set = 0, binding = 10) readonly buffer Coh { double coh[]; };
layout(std430, set = 0, binding = 11) readonly buffer InvMass { double invMass[]; };
layout(std430, set = 0, binding = 12) readonly buffer InvInertia { double invInertia[]; };
layout(std430, set = 0, binding = 13) readonly buffer FixedBody { uint fixedBody[]; };
#include "cone.glsl"
#include "contact_row.glsl"

// addImpulse adds M_i⁻¹ D_k,side δ to dv of body i (cpuref's addContactImpulse).
void addImpulse(uint k, uint i, uint side, dvec3 delta) {
	double im = invMass[i];
	double sgn = side == 0u ? -1.0lf : 1.0lf;
	for (uint j = 0u; j < 3u; j++) {
		uint b = 9u * k;
		double r0 = side == 0u ? rhoA[b + j] : rhoB[b + j];
		double r1 = side == 0u ? rhoA[b + 3u + j] : rhoB[b + 3u + j];
		double r2 = side == 0u ? rhoA[b + 6u + j] : rhoB[b + 6u + j];
		precise double lin = dv[6u * i + j] + im * sgn * (delta.x * basis[b + j] + delta.y * basis[b + 3u + j] + delta.z * basis[b + 6u + j]);
		dv[6u * i + j] = lin;
		precise double ang = dv[6u * i + 3u + j] + invInertia[3u * i + j] * (delta.x * r0 + delta.y * r1 + delta.z * r2);
		dv[6u * i + 3u + j] = ang;
	}
}

// sweepContact updates contact k with relaxation ω and mix λ.
void sweepContact(uint k, double omega, double lambda) {
	uint ia = bodyA[k];
	uint ib = bodyB[k];
	uint oa = 6u * ia;
	uint ob = 6u * ib;
	precise dvec3 dl = dvec3(dv[ob] - dv[oa], dv[ob + 1u] - dv[oa + 1u], dv[ob + 2u] - dv[oa + 2u]);
	dvec3 wa = dvec3(dv[oa + 3u], dv[oa + 4u], dv[oa + 5u]);
	dvec3 wb = dvec3(dv[ob + 3u], dv[ob + 4u], dv[ob + 5u]);
	double u[3];
	for (uint d = 0u; d < 3u; d++) {
		uint b = 9u * k + 3u * d;
		dvec3 dir = dvec3(basis[b], basis[b + 1u], basis[b + 2u]);
		dvec3 ra = dvec3(rhoA[b], rhoA[b + 1u], rhoA[b + 2u]);
		dvec3 rb = dvec3(rhoB[b], rhoB[b + 1u], rhoB[b + 2u]);
		u[d] = row(dir, ra, rb, dl, wa, wb);
	}
	precise double s = omega / diag[3u * k];
	double x0 = gamma[3u * k];
	double x1 = gamma[3u * k + 1u];
	double x2 = gamma[3u * k + 2u];
	precise double y0 = x0 - s * (u[0] + r[3u * k]);
	precise double y1 = x1 - s * (u[1] + r[3u * k + 1u]);
	precise double y2 = x2 - s * (u[2] + r[3u * k + 2u]);
	double pc[3];
	proj(y0, y1, y2, mu[k], coh[k], pc[0], pc[1], pc[2]);
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
	dvec3 delta = dvec3(d0, d1, d2);
	if (fixedBody[ia] == 0u) {
		addImpulse(k, ia, 0u, delta);
	}
	if (fixedBody[ib] == 0u) {
		addImpulse(k, ib, 1u, delta);
	}
}
