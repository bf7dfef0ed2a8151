#version 450
// apgd_contact_velocity: contact_velocity.comp (out = Dᵀ dv, the second half
// of the Schur product N x) and, when withG is set, g = out + r as well,
// run only while the device APGD solver's phase is one of those in the gate
// mask (gpu/apgd.go).
//
// Loop: if (gate & (1 << s.phase)) == 0 return; then for each contact k
// contact_velocity.comp's loop (lib/contact_velocity.glsl's contactVelocity),
// operation for operation, and
// if withG { g[3k+d] = out[3k+d] + r[3k+d] } (axpby's 1·out + 1·r, the
// same value).
// Joint rows (items k in [nc, nc+nj), row i = 3nc + k − nc): out_i =
// D_rᵀ v (lib/joint_row.glsl's jointVelocity, r = k − nc), g_i = out_i +
// r_i when withG.
// Bindings (set 0): 0 out (written; 3 float64 per contact, then 1 per
// joint row), 1 g (written when withG), 2 r (read), 3–6 v, a, b, jac as
// bindings 1–4 of contact_velocity.comp, 7 s (read; the solver's
// scalars), 8–12 jlin, jrotA, jrotB, jrowA, jrowB (read) as
// lib/joint_row.glsl.
// Arguments: uint nc, uint nj, uint gate, uint withG (16 bytes).
// Dispatch: (min(⌈(nc+nj)/64⌉, max group count), 1, 1) workgroups of 64.
layout(local_size_x = 64) in;

#include "store.glsl"
layout(std430, set = 0, binding = 0) writeonly buffer Out { STORE outv[]; };
layout(std430, set = 0, binding = 1) writeonly buffer G { STORE g[]; };
layout(std430, set = 0, binding = 2) readonly buffer R { double r[]; };
#define CONTACT_VELOCITY_BINDING 3
#include "contact_velocity.glsl"
#define SCALARS_BINDING 7
#define SCALARS_ACCESS readonly
#include "apgd_scalars.glsl"

#define JOINT_ROW_BINDING 8
#define JOINT_ROW_ACCESS readonly
#define JOINT_V(j) v[j]
#include "joint_row.glsl"

layout(std430, binding = 31) restrict readonly buffer Push {
	uint nc;
	uint nj;
	uint gate;
	uint withG;
} p;

void main() {
	if ((p.gate & (1u << s.phase)) == 0u) {
		return;
	}
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint k = gl_GlobalInvocationID.x; k < p.nc + p.nj; k += stride) {
		if (k >= p.nc) {
			uint i = 3u * p.nc + (k - p.nc);
			double o = jointVelocity(k - p.nc);
			outv[i] = STORE(o);
			if (p.withG != 0u) {
				precise double gi = ROUND(o) + r[i];
				g[i] = STORE(gi);
			}
			continue;
		}
		double o[3];
		contactVelocity(k, o);
		for (uint d = 0u; d < 3u; d++) {
			outv[3u * k + d] = STORE(o[d]);
			if (p.withG != 0u) {
				precise double gk = ROUND(o[d]) + r[3u * k + d];
				g[3u * k + d] = STORE(gk);
			}
		}
	}
}
