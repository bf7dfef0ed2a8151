#version 450
// contact_velocity: out_k = D_kᵀ v for every contact k, the second half of
// the matrix-free Schur product N x = Dᵀ (M⁻¹ D x) (cpuref's
// contactVelocity) with v = dv from body_impulse: the relative velocity of
// the contact in its frame (n, u, w).
//
// Loop, for each contact k (A = a[k], B = b[k], v_i = v[6i:6i+3],
// ω_i = v[6i+3:6i+6], world frame):
//
//	out[3k:3k+3] = contactRow(n, u, s_A, s_B, v_A, ω_A, v_B, ω_B)   // lib/contact_row.glsl
//
// Every operation is `precise` (lib/contact_velocity.glsl's
// contactVelocity): bit for bit cpuref's contactVelocity.
// Bindings (set 0; 1–4 declared by lib/contact_velocity.glsl): 0 out
// (written; 3 float64 per contact), 1 v (6 per body), 2 a, 3 b (uint32
// body indices), 4 jac (12 per contact: n, u, s_A, s_B; 8 with
// lib/jac.glsl's JAC_ARMS); all read except out.
// Arguments: uint nc (4 bytes).
// Dispatch: (min(⌈nc/64⌉, max group count), 1, 1) workgroups of 64; a
// grid-stride loop covers any nc.
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) writeonly buffer Out { double outv[]; };
#define CONTACT_VELOCITY_BINDING 1
#include "store.glsl"
#include "contact_velocity.glsl"

layout(std430, binding = 31) restrict readonly buffer Push {
	uint nc;
} p;

void main() {
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint k = gl_GlobalInvocationID.x; k < p.nc; k += stride) {
		double o[3];
		contactVelocity(k, o);
		for (uint d = 0u; d < 3u; d++) {
			outv[3u * k + d] = o[d];
		}
	}
}
