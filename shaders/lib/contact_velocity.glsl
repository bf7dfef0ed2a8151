// contact_velocity.glsl: contactVelocity, out_k = D_kᵀ v for contact k,
// the second half of the matrix-free Schur product N x = Dᵀ (M⁻¹ D x)
// (cpuref's contactVelocity), for contact_velocity and
// apgd_contact_velocity:
//
//	for d := 0; d < 3; d++ {
//		o[d] = row(d̂_d, ρ_A,d, ρ_B,d, v_B − v_A, ω̄_A, ω̄_B)   // contact_row.glsl
//	}
//
// with A = bodyA[k], B = bodyB[k], v_i = v[6i:6i+3], ω̄_i = v[6i+3:6i+6];
// every operation `precise`: bit for bit cpuref's contactVelocity.
//
// It declares the six read-only buffers it reads, at consecutive bindings
// of set 0 from the includer's CONTACT_VELOCITY_BINDING (e.g. #define
// CONTACT_VELOCITY_BINDING 1, defined before the #include): +0 v (6
// float64 per body), +1 bodyA, +2 bodyB (uint32 body indices), +3 basis,
// +4 rhoA, +5 rhoB (9 float64 per contact).
#ifndef CONTACT_VELOCITY_BINDING
#error define CONTACT_VELOCITY_BINDING before including contact_velocity.glsl
#endif
layout(std430, set = 0, binding = CONTACT_VELOCITY_BINDING) readonly buffer V { double v[]; };
layout(std430, set = 0, binding = CONTACT_VELOCITY_BINDING + 1) readonly buffer BodyA { uint bodyA[]; };
layout(std430, set = 0, binding = CONTACT_VELOCITY_BINDING + 2) readonly buffer BodyB { uint bodyB[]; };
layout(std430, set = 0, binding = CONTACT_VELOCITY_BINDING + 3) readonly buffer Basis { double basis[]; };
layout(std430, set = 0, binding = CONTACT_VELOCITY_BINDING + 4) readonly buffer RhoA { double rhoA[]; };
layout(std430, set = 0, binding = CONTACT_VELOCITY_BINDING + 5) readonly buffer RhoB { double rhoB[]; };

#include "contact_row.glsl"

// contactVelocity sets o = D_kᵀ v, the velocity of contact k in its frame
// (n, u, w).
void contactVelocity(uint k, out double o[3]) {
	uint ia = 6u * bodyA[k];
	uint ib = 6u * bodyB[k];
	precise dvec3 dl = dvec3(v[ib] - v[ia], v[ib + 1u] - v[ia + 1u], v[ib + 2u] - v[ia + 2u]);
	dvec3 wa = dvec3(v[ia + 3u], v[ia + 4u], v[ia + 5u]);
	dvec3 wb = dvec3(v[ib + 3u], v[ib + 4u], v[ib + 5u]);
	for (uint d = 0u; d < 3u; d++) {
		uint b = 9u * k + 3u * d;
		dvec3 dir = dvec3(basis[b], basis[b + 1u], basis[b + 2u]);
		dvec3 ra = dvec3(rhoA[b], rhoA[b + 1u], rhoA[b + 2u]);
		dvec3 rb = dvec3(rhoB[b], rhoB[b + 1u], rhoB[b + 2u]);
		o[d] = row(dir, ra, rb, dl, wa, wb);
	}
}
