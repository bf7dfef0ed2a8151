#version 450
// gs_sweep: one projected Gauss–Seidel sweep over the contacts in order
// (Algorithm 2 of the APGD paper, lines 3–7; cpuref's Sweep), updating
// gamma in place, each contact seeing the updates of those before it.
// Gauss–Seidel is sequential by nature: ONE invocation runs the whole loop,
// so this kernel is correct but slow (it uses one GPU thread); it exists so
// that the "gs" solver runs on the device without a round trip per contact.
//
// Before it, body_impulse sets dv = M⁻¹Dγ in the same batch. Loop (one
// invocation; A = a[k], B = b[k]):
//
//	for k := 0; k < nc; k++ {
//		u := D_kᵀ dv                                   // as contact_velocity
//		s := ω/diag[3k]
//		p := ProjectCone(γ_k − s·(u + r_k), mu[k], coh[k])   // as project
//		δ := λp + (1−λ)γ_k − γ_k                       // per component, left to right
//		γ_k += δ
//		dv_A += M_A⁻¹ D_k,A δ; dv_B += M_B⁻¹ D_k,B δ    // fixed bodies skipped
//	}
//
// with M⁻¹D_k,side δ = (im·sign·(δ_0 d̂_0,j + δ_1 d̂_1,j + δ_2 d̂_2,j),
// J⁻¹_j(δ_0 ρ_0,j + δ_1 ρ_1,j + δ_2 ρ_2,j)), sign −1 for A and +1 for B
// (cpuref's addContactImpulse); u's rows are lib/contact_row.glsl's row
// and ProjectCone lib/cone.glsl's proj. Every operation `precise`, in
// cpuref's order: bit for bit equal where float64 division and square root
// are correctly rounded.
// Then the joint rows r < nj, after the contacts (γ_r = gamma[3nc + r]),
// one row at a time as cpuref's Sweep:
//
//	u := D_rᵀ dv + r[3nc+r]                        // lib/joint_row.glsl's jointVelocity
//	y := clampRow(γ_r − (ω/diag[3nc+r])·u, lo_r, hi_r)
//	δ := λy + (1−λ)γ_r − γ_r;  γ_r += δ
//	dv_i += (im·sign·δ·lin_r, J⁻¹_i,j·δ·rot_r,j)  // each movable body i of the row
//
// Then the rolling blocks k < nr (engine.RollingRows; γ_k =
// gamma[o+3k:o+3k+3], o = 3nc + nj, contact c = rcon[k]), after the joint
// rows, so that each sees its contact's γ_n of this sweep (cpuref's Sweep):
//
//	u := D_kᵀ dv                                   // lib/rolling_row.glsl
//	s := ω/diag[o+3k]
//	y := projectRolling(γ_c,n, γ_k − s·(u + r_k), μ_r, μ_s)
//	δ := λy + (1−λ)γ_k − γ_k;  γ_k += δ
//	dv_i,ang += J⁻¹_i ∘ (δ_0 rot_0 + δ_1 rot_1 + δ_2 rot_2)   // A then B, movable
//
// Bindings (set 0): 0 gamma (read and written; 3 float64 per contact),
// 1 dv (read and written; 6 per body), 2 diag (3 per contact, g_k as
// block_diag writes it), 3 r (3 per contact), 4 a, 5 b (uint32 body
// indices), 6 basis, 7 rhoA, 8 rhoB (9 per contact), 9 mu, 10 coh (1 per
// contact), 11 invMass (1 per body), 12 invInertia (3 per body),
// 13 fixedBody (uint32 per body), 14–18 jlin, jrotA, jrotB, jrowA, jrowB
// (read) as lib/joint_row.glsl, 19 jlo, 20 jhi (1 per joint row), 21–25
// rcon, rrotA, rrotB, rmur, rmus (read) as lib/rolling_row.glsl.
// Push constants: double omega, double lambda, uint nc, uint nj (joint
// rows), uint nr (rolling blocks) (28 bytes).
// Dispatch: (1, 1, 1), one workgroup of one invocation.
layout(local_size_x = 1) in;

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
#define JOINT_BOUNDS_BINDING 19
#define JOINT_BOUNDS_ACCESS readonly
#include "joint_bounds.glsl"

#define JOINT_ROW_BINDING 14
#define JOINT_ROW_ACCESS readonly
#define JOINT_V(j) dv[j]
#include "joint_row.glsl"

layout(push_constant) uniform Push {
	double omega;
	double lambda;
	uint nc;
	uint nj;
	uint nr;
} p;

#define ROLLING_ROW_BINDING 21
#define ROLLING_ROW_ACCESS readonly
#define ROLLING_V(j) dv[j]
#include "rolling_row.glsl"

#include "cone.glsl"
#include "contact_row.glsl"

// addJointImpulse adds M_i⁻¹ D_r,side δ to dv of body i (cpuref's
// addJointRowImpulse).
void addJointImpulse(uint r, uint i, uint side, double delta) {
	double im = invMass[i];
	double sgn = side == 0u ? -1.0lf : 1.0lf;
	for (uint k = 0u; k < 3u; k++) {
		double rk = side == 0u ? jrotA[3u * r + k] : jrotB[3u * r + k];
		precise double lin = dv[6u * i + k] + im * sgn * delta * jlin[3u * r + k];
		dv[6u * i + k] = lin;
		precise double ang = dv[6u * i + 3u + k] + invInertia[3u * i + k] * delta * rk;
		dv[6u * i + 3u + k] = ang;
	}
}

// addRollingImpulse adds M_i⁻¹ D_k,side δ to dv of body i for rolling
// block k (cpuref's addRollingImpulse: angular velocities only).
void addRollingImpulse(uint k, uint i, uint side, double d0, double d1, double d2) {
	for (uint j = 0u; j < 3u; j++) {
		uint b = 9u * k + j;
		double r0 = side == 0u ? rrotA[b] : rrotB[b];
		double r1 = side == 0u ? rrotA[b + 3u] : rrotB[b + 3u];
		double r2 = side == 0u ? rrotA[b + 6u] : rrotB[b + 6u];
		precise double ang = dv[6u * i + 3u + j] + invInertia[3u * i + j] * (d0 * r0 + d1 * r1 + d2 * r2);
		dv[6u * i + 3u + j] = ang;
	}
}

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

void main() {
	for (uint k = 0u; k < p.nc; k++) {
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
		precise double s = p.omega / diag[3u * k];
		double x0 = gamma[3u * k];
		double x1 = gamma[3u * k + 1u];
		double x2 = gamma[3u * k + 2u];
		precise double y0 = x0 - s * (u[0] + r[3u * k]);
		precise double y1 = x1 - s * (u[1] + r[3u * k + 1u]);
		precise double y2 = x2 - s * (u[2] + r[3u * k + 2u]);
		double pc[3];
		proj(y0, y1, y2, mu[k], coh[k], pc[0], pc[1], pc[2]);
		precise double l1 = 1.0lf - p.lambda;
		precise double d0 = p.lambda * pc[0] + l1 * x0 - x0;
		precise double d1 = p.lambda * pc[1] + l1 * x1 - x1;
		precise double d2 = p.lambda * pc[2] + l1 * x2 - x2;
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
	uint o = 3u * p.nc;
	for (uint jr = 0u; jr < p.nj; jr++) {
		double x = gamma[o + jr];
		precise double u = jointVelocity(jr) + r[o + jr];
		precise double y0 = x - p.omega / diag[o + jr] * u;
		double y = clampRow(y0, jlo[jr], jhi[jr]);
		precise double delta = p.lambda * y + (1.0lf - p.lambda) * x - x;
		precise double g = x + delta;
		gamma[o + jr] = g;
		for (uint side = 0u; side < 2u; side++) {
			uint i = side == 0u ? jrowA[jr] : jrowB[jr];
			if (i != JOINT_WORLD && fixedBody[i] == 0u) {
				addJointImpulse(jr, i, side, delta);
			}
		}
	}
	uint ro = o + p.nj;
	for (uint k = 0u; k < p.nr; k++) {
		uint c = rcon[k];
		uint ob = ro + 3u * k;
		double u0 = rollingVelocity(k, 0u);
		double u1 = rollingVelocity(k, 1u);
		double u2 = rollingVelocity(k, 2u);
		precise double s = p.omega / diag[ob];
		double x0 = gamma[ob];
		double x1 = gamma[ob + 1u];
		double x2 = gamma[ob + 2u];
		precise double y0 = x0 - s * (u0 + r[ob]);
		precise double y1 = x1 - s * (u1 + r[ob + 1u]);
		precise double y2 = x2 - s * (u2 + r[ob + 2u]);
		double ru = y0;
		double rw = y1;
		double sp = y2;
		projectRolling(gamma[3u * c], ru, rw, sp, rmur[k], rmus[k]);
		precise double l1 = 1.0lf - p.lambda;
		precise double d0 = p.lambda * ru + l1 * x0 - x0;
		precise double d1 = p.lambda * rw + l1 * x1 - x1;
		precise double d2 = p.lambda * sp + l1 * x2 - x2;
		precise double g0 = x0 + d0;
		precise double g1 = x1 + d1;
		precise double g2 = x2 + d2;
		gamma[ob] = g0;
		gamma[ob + 1u] = g1;
		gamma[ob + 2u] = g2;
		uint ia = bodyA[c];
		uint ib = bodyB[c];
		if (fixedBody[ia] == 0u) {
			addRollingImpulse(k, ia, 0u, d0, d1, d2);
		}
		if (fixedBody[ib] == 0u) {
			addRollingImpulse(k, ib, 1u, d0, d1, d2);
		}
	}
}
