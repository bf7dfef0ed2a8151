#version 450
// apgd_contact_velocity: contact_velocity.comp (out = Dᵀ dv, the second half
// of the Schur product N x) and, when withG is set, g = out + r as well,
// run only while the device APGD solver's phase is one of those in the gate
// mask (gpu/apgd.go).
//
// Loop: if (gate & (1 << s.phase)) == 0 return; then for each contact k
// contact_velocity.comp's loop, operation for operation, and
// if withG { g[3k+d] = out[3k+d] + r[3k+d] } (axpby's 1·out + 1·r, the
// same value).
// Bindings (set 0): 0 out (written; 3 float64 per contact), 1 g (written
// when withG), 2 r (read), 3–8 v, a, b, basis, rhoA, rhoB as bindings 1–6
// of contact_velocity.comp, 9 s (read; the solver's scalars).
// Push constants: uint nc, uint gate, uint withG (12 bytes).
// Dispatch: (min(⌈nc/64⌉, max group count), 1, 1) workgroups of 64.
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) writeonly buffer Out { double outv[]; };
layout(std430, set = 0, binding = 1) writeonly buffer G { double g[]; };
layout(std430, set = 0, binding = 2) readonly buffer R { double r[]; };
layout(std430, set = 0, binding = 3) readonly buffer V { double v[]; };
layout(std430, set = 0, binding = 4) readonly buffer BodyA { uint bodyA[]; };
layout(std430, set = 0, binding = 5) readonly buffer BodyB { uint bodyB[]; };
layout(std430, set = 0, binding = 6) readonly buffer Basis { double basis[]; };
layout(std430, set = 0, binding = 7) readonly buffer RhoA { double rhoA[]; };
layout(std430, set = 0, binding = 8) readonly buffer RhoB { double rhoB[]; };
#define SCALARS_BINDING 9
#define SCALARS_ACCESS readonly
#include "apgd_scalars.glsl"

layout(push_constant) uniform Push {
	uint nc;
	uint gate;
	uint withG;
} p;

void main() {
	if ((p.gate & (1u << s.phase)) == 0u) {
		return;
	}
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint k = gl_GlobalInvocationID.x; k < p.nc; k += stride) {
		uint ia = 6u * bodyA[k];
		uint ib = 6u * bodyB[k];
		precise double dx = v[ib] - v[ia];
		precise double dy = v[ib + 1u] - v[ia + 1u];
		precise double dz = v[ib + 2u] - v[ia + 2u];
		double wa0 = v[ia + 3u], wa1 = v[ia + 4u], wa2 = v[ia + 5u];
		double wb0 = v[ib + 3u], wb1 = v[ib + 4u], wb2 = v[ib + 5u];
		for (uint d = 0u; d < 9u; d += 3u) {
			uint b = 9u * k + d;
			precise double o = basis[b] * dx + basis[b + 1u] * dy + basis[b + 2u] * dz +
				rhoA[b] * wa0 + rhoA[b + 1u] * wa1 + rhoA[b + 2u] * wa2 +
				rhoB[b] * wb0 + rhoB[b + 1u] * wb1 + rhoB[b + 2u] * wb2;
			outv[3u * k + d / 3u] = o;
			if (p.withG != 0u) {
				precise double gk = o + r[3u * k + d / 3u];
				g[3u * k + d / 3u] = gk;
			}
		}
	}
}
