// body_impulse.glsl: bodyImpulse, dv_i = M_i⁻¹ (D x)_i for body i, the
// first half of the matrix-free Schur product N x = Dᵀ M⁻¹ D x (cpuref's
// bodyImpulse), for body_impulse and apgd_body_impulse: a gather over the
// body's contacts in contact order, so the sum is deterministic and needs
// no atomics.
//
// For body i (entries e of the CSR list adj[adjOff[i]:adjOff[i+1]],
// e = 2k + side, side 0: body A of contact k, 1: body B; n, u, s_A, s_B =
// jac[12k:12k+12], lib/contact_row.glsl):
//
//	if fixed[i] { dv[6i:6i+6] = 0; return }
//	f, τ := 0, 0
//	for _, e := range adj[adjOff[i]:adjOff[i+1]] {
//		k := e >> 1; γ := x[3k:3k+3]
//		F := contactForce(n, u, γ)            // γ_0 n + γ_1 u + γ_2 w
//		if e&1 == 0 { F = −F; s := s_A } else { s := s_B }
//		f += F; τ += s × F
//	}
//	dv[6i:6i+6] = (invMass[i]·f, R J̄⁻¹ Rᵀ τ)   // INERTIA_WORLD: j·τ when isotropic
//
// componentwise, each sum left to right, every operation `precise`: bit for
// bit cpuref's bodyImpulse. With joints, f and τ start from the sums over
// the body's joint rows instead of 0, as cpuref's (its rows first, so that
// contacts add in the same order as without joints): for the entries
// e = 2r + side of jadj[jadjOff[i]:jadjOff[i+1]], γ_r = x[jbase + r],
//
//	f += (sign·γ_r)·lin_r;  τ += γ_r·rot_r    (A: sign −1, rot = rotA; B: +1, rotB)
//
// (cpuref's addJointImpulses; rot world frame); a model without joints
// has empty lists.
//
// With BODY_IMPULSE_ROLLING defined (body_impulse.comp), a contact k with a
// rolling block q = ridx[k] ≠ 0xffffffff (engine.RollingRows; its impulses
// γ_q = x[rbase+3q:rbase+3q+3]) adds the block's torque to the contact's
// before the body's sum takes it, as cpuref's addRollingTorque adds it to
// the contact's:
//
//	τ += (s × F) + (γ_q,0 rot_0 + γ_q,1 rot_1 + γ_q,2 rot_2)
//
// (rot = rrotA_q for A, rrotB_q for B, rows u, w, n); the includer defines
// BODY_IMPULSE_NR and BODY_IMPULSE_RBASE (expressions: nr, 3nc + nj) and
// binds ridx (uint32 per contact) at 14, rrotA and rrotB (9 float64 per
// block) at 15 and 16. Without rolling blocks (nr = 0) they are not read.
//
// It declares the buffers it uses at bindings 0–13 of set 0: 0 dv (written;
// 6 float64 per body: linear m/s, angular rad/s, world frame), 1 x (3
// per contact, N·s), 2 adjOff (n+1 uint32), 3 adj (uint32 entries),
// 4 jac (12 per contact, 8 with lib/jac.glsl's JAC_ARMS), 5 invMass (1 per
// body), 6 invInertia (3 per body), 7 fixedBody (uint32 per body), 8
// jadjOff (n+1 uint32), 9 jadj (uint32 entries), 10 jlin, 11 jrotA, 12
// jrotB (3 float64 per joint row), 13 invInertiaW (6 per body: R J̄⁻¹ Rᵀ of
// the step, world_velocity; read for bodies that are not isotropic). The
// includer binds its own buffers from 14, and may define BODY_IMPULSE_X,
// the element type of x (double unless defined; apgd_body_impulse gives
// store.glsl's STORE).
#ifndef BODY_IMPULSE_X
#define BODY_IMPULSE_X double
#endif
layout(std430, set = 0, binding = 0) writeonly buffer DV { double dv[]; };
layout(std430, set = 0, binding = 1) readonly buffer X { BODY_IMPULSE_X x[]; };
layout(std430, set = 0, binding = 2) readonly buffer AdjOff { uint adjOff[]; };
layout(std430, set = 0, binding = 3) readonly buffer Adj { uint adj[]; };
layout(std430, set = 0, binding = 5) readonly buffer InvMass { double invMass[]; };
layout(std430, set = 0, binding = 6) readonly buffer InvInertia { double invInertia[]; };
layout(std430, set = 0, binding = 7) readonly buffer FixedBody { uint fixedBody[]; };
layout(std430, set = 0, binding = 8) readonly buffer JAdjOff { uint jadjOff[]; };
layout(std430, set = 0, binding = 9) readonly buffer JAdj { uint jadj[]; };
layout(std430, set = 0, binding = 10) readonly buffer JLin { double jlin[]; };
layout(std430, set = 0, binding = 11) readonly buffer JRotA { double jrotA[]; };
layout(std430, set = 0, binding = 12) readonly buffer JRotB { double jrotB[]; };
layout(std430, set = 0, binding = 13) readonly buffer InvInertiaW { double invInertiaW[]; };
#ifdef BODY_IMPULSE_ROLLING
layout(std430, set = 0, binding = 14) readonly buffer RIdx { uint ridx[]; };
layout(std430, set = 0, binding = 15) readonly buffer RRotA { double rrotA[]; };
layout(std430, set = 0, binding = 16) readonly buffer RRotB { double rrotB[]; };
#endif

#define JAC_BINDING 4
#include "jac.glsl"
#include "contact_row.glsl"

// bodyImpulse writes dv[6i:6i+6] for body i; the joint rows' impulses
// are x[jbase:] (jbase = 3nc).
void bodyImpulse(uint i, uint jbase) {
	if (fixedBody[i] != 0u) {
		for (uint k = 0u; k < 6u; k++) {
			dv[6u * i + k] = 0.0lf;
		}
		return;
	}
	precise double f0 = 0.0lf;
	precise double f1 = 0.0lf;
	precise double f2 = 0.0lf;
	precise double t0 = 0.0lf;
	precise double t1 = 0.0lf;
	precise double t2 = 0.0lf;
	uint jend = jadjOff[i + 1u];
	for (uint j = jadjOff[i]; j < jend; j++) {
		uint e = jadj[j];
		uint r = e >> 1u;
		double g = x[jbase + r];
		uint b = 3u * r;
		bool sideB = (e & 1u) != 0u;
		precise double sg = (sideB ? 1.0lf : -1.0lf) * g;
		f0 = f0 + sg * jlin[b];
		f1 = f1 + sg * jlin[b + 1u];
		f2 = f2 + sg * jlin[b + 2u];
		t0 = t0 + g * (sideB ? jrotB[b] : jrotA[b]);
		t1 = t1 + g * (sideB ? jrotB[b + 1u] : jrotA[b + 1u]);
		t2 = t2 + g * (sideB ? jrotB[b + 2u] : jrotA[b + 2u]);
	}
	uint end = adjOff[i + 1u];
	for (uint j = adjOff[i]; j < end; j++) {
		uint e = adj[j];
		uint k = e >> 1u;
		double g0 = x[3u * k];
		double g1 = x[3u * k + 1u];
		double g2 = x[3u * k + 2u];
		dvec3 n = jacVec(k, JAC_N);
		dvec3 u = jacVec(k, JAC_U);
		precise dvec3 F = contactForce(n, u, g0, g1, g2);
		uint side = JAC_SA;
		if ((e & 1u) == 0u) {
			F = dvec3(-F.x, -F.y, -F.z);
		} else {
			side = JAC_SB;
		}
		dvec3 sv = jacVec(k, side);
		precise dvec3 T = contactTorque(sv, F);
		f0 = f0 + F.x;
		f1 = f1 + F.y;
		f2 = f2 + F.z;
		precise double c0 = T.x;
		precise double c1 = T.y;
		precise double c2 = T.z;
#ifdef BODY_IMPULSE_ROLLING
		if (BODY_IMPULSE_NR != 0u) {
			uint q = ridx[k];
			if (q != 0xffffffffu) {
				uint o = BODY_IMPULSE_RBASE + 3u * q;
				double q0 = x[o];
				double q1 = x[o + 1u];
				double q2 = x[o + 2u];
				uint rb = 9u * q;
				if ((e & 1u) == 0u) {
					c0 = c0 + (q0 * rrotA[rb] + q1 * rrotA[rb + 3u] + q2 * rrotA[rb + 6u]);
					c1 = c1 + (q0 * rrotA[rb + 1u] + q1 * rrotA[rb + 4u] + q2 * rrotA[rb + 7u]);
					c2 = c2 + (q0 * rrotA[rb + 2u] + q1 * rrotA[rb + 5u] + q2 * rrotA[rb + 8u]);
				} else {
					c0 = c0 + (q0 * rrotB[rb] + q1 * rrotB[rb + 3u] + q2 * rrotB[rb + 6u]);
					c1 = c1 + (q0 * rrotB[rb + 1u] + q1 * rrotB[rb + 4u] + q2 * rrotB[rb + 7u]);
					c2 = c2 + (q0 * rrotB[rb + 2u] + q1 * rrotB[rb + 5u] + q2 * rrotB[rb + 8u]);
				}
			}
		}
#endif
		t0 = t0 + c0;
		t1 = t1 + c1;
		t2 = t2 + c2;
	}
	double im = invMass[i];
	precise double o0 = im * f0;
	precise double o1 = im * f1;
	precise double o2 = im * f2;
	dvec3 ji = dvec3(invInertia[3u * i], invInertia[3u * i + 1u], invInertia[3u * i + 2u]);
	precise dvec3 t = dvec3(t0, t1, t2);
	precise dvec3 w = INERTIA_WORLD(ji, invInertiaW, i, t);
	precise double o3 = w.x;
	precise double o4 = w.y;
	precise double o5 = w.z;
	dv[6u * i] = o0;
	dv[6u * i + 1u] = o1;
	dv[6u * i + 2u] = o2;
	dv[6u * i + 3u] = o3;
	dv[6u * i + 4u] = o4;
	dv[6u * i + 5u] = o5;
}
