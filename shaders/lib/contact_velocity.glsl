// contact_velocity.glsl: contactVelocity, out_k = D_kᵀ v for contact k,
// the second half of the matrix-free Schur product N x = Dᵀ (M⁻¹ D x)
// (cpuref's contactVelocity), for contact_velocity and
// apgd_contact_velocity:
//
//	o = contactRow(n, u, s_A, s_B, v_A, ω_A, v_B, ω_B)   // contact_row.glsl
//
// with A = bodyA[k], B = bodyB[k], v_i = v[6i:6i+3], ω_i = v[6i+3:6i+6]
// (world frame) and n, u, s_A, s_B = jac[12k:12k+12]; every operation
// `precise`: bit for bit cpuref's velocities.
//
// It declares the four read-only buffers it reads, at consecutive bindings
// of set 0 from the includer's CONTACT_VELOCITY_BINDING (e.g. #define
// CONTACT_VELOCITY_BINDING 1, defined before the #include): +0 v (6
// float64 per body), +1 bodyA, +2 bodyB (uint32 body indices), +3 jac (12
// float64 per contact).
#ifndef CONTACT_VELOCITY_BINDING
#error define CONTACT_VELOCITY_BINDING before including contact_velocity.glsl
#endif
layout(std430, set = 0, binding = CONTACT_VELOCITY_BINDING) readonly buffer V { double v[]; };
layout(std430, set = 0, binding = CONTACT_VELOCITY_BINDING + 1) readonly buffer BodyA { uint bodyA[]; };
layout(std430, set = 0, binding = CONTACT_VELOCITY_BINDING + 2) readonly buffer BodyB { uint bodyB[]; };
#define JAC_BINDING (CONTACT_VELOCITY_BINDING + 3)
#include "jac.glsl"

#include "contact_row.glsl"

// contactVelocity sets o = D_kᵀ v, the velocity of contact k in its frame
// (n, u, w).
void contactVelocity(uint k, out double o[3]) {
	uint ia = 6u * bodyA[k];
	uint ib = 6u * bodyB[k];
	dvec3 n = jacVec(k, JAC_N);
	dvec3 u = jacVec(k, JAC_U);
	dvec3 sa = jacVec(k, JAC_SA);
	dvec3 sb = jacVec(k, JAC_SB);
	dvec3 va = dvec3(v[ia], v[ia + 1u], v[ia + 2u]);
	dvec3 wa = dvec3(v[ia + 3u], v[ia + 4u], v[ia + 5u]);
	dvec3 vb = dvec3(v[ib], v[ib + 1u], v[ib + 2u]);
	dvec3 wb = dvec3(v[ib + 3u], v[ib + 4u], v[ib + 5u]);
	precise dvec3 r = contactRow(n, u, sa, sb, va, wa, vb, wb);
	o[0] = r.x;
	o[1] = r.y;
	o[2] = r.z;
}
