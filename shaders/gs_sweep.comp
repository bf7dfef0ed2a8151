#version 450
// gs_sweep: the sequential end of one projected Gauss–Seidel sweep
// (Algorithm 2 of the APGD paper, lines 3–7; cpuref's Sweep): the tail of
// the contact colouring (gs_colour: the contacts left uncoloured), then
// the joint rows, then the rolling blocks, updating gamma in place, each
// update seeing those before it. ONE invocation runs it; before it,
// body_impulse sets dv = M⁻¹Dγ and gs_colour_sweep runs the colours'
// contacts in the same batch. It runs only while the phase of the device
// solvers' scalar buffer is one of those in the gate mask (the device
// Gauss–Seidel solver, gpu/gs.go; problem.Sweep passes a mask of every
// phase).
//
// Loop (one invocation; TAIL = 32, the tail's colour): if (gate & (1 <<
// s.phase)) == 0 return; then, when nc > 0, the
// contacts k = perm[i] for i in [start[TAIL], start[TAIL+1]) in that
// order (index order), each updated by lib/gs_contact.glsl's sweepContact
// (cpuref's contact update, bit for bit).
// Then the joint rows r < nj, after the contacts (γ_r = gamma[3nc + r]),
// one row at a time as cpuref's Sweep:
//
//	u := D_rᵀ dv + r[3nc+r]                        // lib/joint_row.glsl's jointVelocity
//	y := clampRow(γ_r − (ω/diag[3nc+r])·u, lo_r, hi_r)
//	δ := λy + (1−λ)γ_r − γ_r;  γ_r += δ
//	dv_i += (im·sign·δ·lin_r, R J̄⁻¹ Rᵀ (δ·rot_r))  // each movable body i of the row
//
// Then the rolling blocks k < nr (engine.RollingRows; γ_k =
// gamma[o+3k:o+3k+3], o = 3nc + nj, contact c = rcon[k]), after the joint
// rows, so that each sees its contact's γ_n of this sweep (cpuref's Sweep):
//
//	u := D_kᵀ dv                                   // lib/rolling_row.glsl
//	s := ω/diag[o+3k]
//	y := projectRolling(γ_c,n, γ_k − s·(u + r_k), μ_r, μ_s)
//	δ := λy + (1−λ)γ_k − γ_k;  γ_k += δ
//	dv_i,ang += R J̄⁻¹ Rᵀ (δ_0 rot_0 + δ_1 rot_1 + δ_2 rot_2)   // A then B, movable
//
// Bindings (set 0): 0–12 as lib/gs_contact.glsl (gamma, dv, diag: g_k as
// block_diag writes it, r, a, b, jac, mu, coh, invMass, invInertia,
// fixedBody, invInertiaW), 13–17 jlin, jrotA, jrotB, jrowA, jrowB
// (read) as lib/joint_row.glsl, 18 jlo, 19 jhi (1 per joint row), 20–24
// rcon, rrotA, rrotB, rmur, rmus (read) as lib/rolling_row.glsl, 25 perm
// (uint32 per contact: the contacts by colour), 26 start (uint32, 34: the
// colours' ranges of perm, the tail's last), as gs_colour writes them, 27
// s (read; the solver's scalars, layout in gpu/apgd.go).
// Arguments: double omega, double lambda, uint nc, uint nj (joint
// rows), uint nr (rolling blocks), uint gate (32 bytes).
// Dispatch: (1, 1, 1), one workgroup of one invocation.
layout(local_size_x = 1) in;

const uint TAIL = 32u;

#include "gs_contact.glsl"
layout(std430, set = 0, binding = 25) readonly buffer Perm { uint perm[]; };
layout(std430, set = 0, binding = 26) readonly buffer Start { uint start[]; };
#define SCALARS_BINDING 27
#define SCALARS_ACCESS readonly
#include "apgd_scalars.glsl"

#define JOINT_BOUNDS_BINDING 18
#define JOINT_BOUNDS_ACCESS readonly
#include "joint_bounds.glsl"

#define JOINT_ROW_BINDING 13
#define JOINT_ROW_ACCESS readonly
#define JOINT_V(j) dv[j]
#include "joint_row.glsl"

layout(std430, binding = 31) restrict readonly buffer Push {
	double omega;
	double lambda;
	uint nc;
	uint nj;
	uint nr;
	uint gate;
} p;

#define ROLLING_ROW_BINDING 20
#define ROLLING_ROW_ACCESS readonly
#define ROLLING_V(j) dv[j]
#include "rolling_row.glsl"

// addJointImpulse adds M_i⁻¹ D_r,side δ to dv of body i (cpuref's
// addJointRowImpulse).
void addJointImpulse(uint r, uint i, uint side, double delta) {
	double im = invMass[i];
	double sgn = side == 0u ? -1.0lf : 1.0lf;
	uint b = 3u * r;
	precise dvec3 t = side == 0u ? dvec3(delta * jrotA[b], delta * jrotA[b + 1u], delta * jrotA[b + 2u]) :
		dvec3(delta * jrotB[b], delta * jrotB[b + 1u], delta * jrotB[b + 2u]);
	precise dvec3 w = invInertiaWorld(i, t);
	for (uint k = 0u; k < 3u; k++) {
		precise double lin = dv[6u * i + k] + im * sgn * delta * jlin[3u * r + k];
		dv[6u * i + k] = lin;
		precise double ang = dv[6u * i + 3u + k] + w[k];
		dv[6u * i + 3u + k] = ang;
	}
}

// addRollingImpulse adds M_i⁻¹ D_k,side δ to dv of body i for rolling
// block k (cpuref's addRollingImpulse: angular velocities only).
void addRollingImpulse(uint k, uint i, uint side, double d0, double d1, double d2) {
	precise double t[3];
	for (uint j = 0u; j < 3u; j++) {
		uint b = 9u * k + j;
		double r0 = side == 0u ? rrotA[b] : rrotB[b];
		double r1 = side == 0u ? rrotA[b + 3u] : rrotB[b + 3u];
		double r2 = side == 0u ? rrotA[b + 6u] : rrotB[b + 6u];
		t[j] = d0 * r0 + d1 * r1 + d2 * r2;
	}
	precise dvec3 w = invInertiaWorld(i, dvec3(t[0], t[1], t[2]));
	for (uint j = 0u; j < 3u; j++) {
		precise double ang = dv[6u * i + 3u + j] + w[j];
		dv[6u * i + 3u + j] = ang;
	}
}

void main() {
	if ((p.gate & (1u << s.phase)) == 0u) {
		return;
	}
	if (p.nc > 0u) {
		for (uint i = start[TAIL]; i < start[TAIL + 1u]; i++) {
			sweepContact(perm[i], p.omega, p.lambda);
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
