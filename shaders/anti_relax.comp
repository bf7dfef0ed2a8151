#version 450
// anti_relax: dst = r, then dst_3k += μ_k‖(u_3k+1, u_3k+2)‖ for every contact
// k: the anti-relaxation term a_k of eq. 15 of the anti-relaxation paper
// added to the normal row of r (cpuref's AntiRelax), u the contact
// velocities Nγ + r.
//
// Loop, for each contact k:
//
//	dst[3k] = r[3k] + MU(k)*Hypot(u[3k+1], u[3k+2])
//	dst[3k+1], dst[3k+2] = r[3k+1], r[3k+2]
//
// Hypot is Go's math.Hypot on amd64 (hypot_amd64.s): +Inf if either is
// infinite, NaN if either is NaN, 0 if both are 0, else
// p·sqrt(1 + (q/p)²) with p = max(|a|, |b|), q = min(|a|, |b|); every
// operation `precise`. A dst that is the same buffer as u is handled by the
// caller (cpuref then reads r in place of u), not here.
// Bindings (set 0): 0 dst (written; 3 float64 per contact), 1 r (3 per
// contact), 2 u (3 per contact), 3 mu (1 per contact).
// Arguments: uint nc (4 bytes).
// Dispatch: (min(⌈nc/64⌉, max group count), 1, 1) workgroups of 64; a
// grid-stride loop covers any nc.
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) writeonly buffer Dst { double dst[]; };
layout(std430, set = 0, binding = 1) readonly buffer R { double r[]; };
layout(std430, set = 0, binding = 2) readonly buffer U { double u[]; };
layout(std430, set = 0, binding = 3) readonly buffer Mu { double mu[]; };
#include "contact_material.glsl"

layout(std430, binding = 31) restrict readonly buffer Push {
	uint nc;
} p;

#include "hypot.glsl"

void main() {
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint k = gl_GlobalInvocationID.x; k < p.nc; k += stride) {
		double r0 = r[3u * k];
		double r1 = r[3u * k + 1u];
		double r2 = r[3u * k + 2u];
		precise double a = r0 + MU(k) * hypot(u[3u * k + 1u], u[3u * k + 2u]);
		dst[3u * k] = a;
		dst[3u * k + 1u] = r1;
		dst[3u * k + 2u] = r2;
	}
}
