#version 450
// apgd_anti_relax: r_3k = r0_3k + μ_k‖(u_3k+1, u_3k+2)‖ and
// r_3k+1, r_3k+2 = r0_3k+1, r0_3k+2 for every contact k, with u = nx + r0
// the contact velocities: lines 33–37 of the anti-relaxation paper's
// algorithm as engine.APGD takes them (Axpby(u, 1, nx, 1, r0) then
// AntiRelax(r, u)); run only while the device APGD solver's phase is one of
// those in the gate mask (gpu/apgd.go).
//
// Loop: if (gate & (1 << s.phase)) == 0 return; then for each contact k
//
//	u1 := 1·nx[3k+1] + 1·r0[3k+1]; u2 := 1·nx[3k+2] + 1·r0[3k+2]
//	r[3k] = r0[3k] + MU(k)·Hypot(u1, u2)
//	r[3k+1], r[3k+2] = r0[3k+1], r0[3k+2]
//
// with lib/hypot.glsl's Hypot (Go's math.Hypot on amd64, as in
// anti_relax.comp); every operation `precise`: the values of axpby.comp
// then anti_relax.comp bit for bit.
// Joint rows (items k in [nc, nc+nj), row i = 3nc + k − nc): r_i = r0_i,
// as the Problem's AntiRelax leaves them (the anti-relaxation is for
// contacts).
// Bindings (set 0): 0 r (written; 3 float64 per contact, then 1 per joint
// row), 1 r0, 2 nx (as r), 3 mu (1 per contact), 4 s (read; the solver's
// scalars).
// Arguments: uint nc, uint nj, uint gate (12 bytes).
// Dispatch: (min(⌈(nc+nj)/64⌉, max group count), 1, 1) workgroups of 64; a
// grid-stride loop covers any nc.
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) writeonly buffer R { double r[]; };
layout(std430, set = 0, binding = 1) readonly buffer R0 { double r0[]; };
#include "store.glsl"
layout(std430, set = 0, binding = 2) readonly buffer NX { STORE nx[]; };
layout(std430, set = 0, binding = 3) readonly buffer Mu { double mu[]; };
#include "contact_material.glsl"
#define SCALARS_BINDING 4
#define SCALARS_ACCESS readonly
#include "apgd_scalars.glsl"
layout(std430, binding = 31) restrict readonly buffer Push {
	uint nc;
	uint nj;
	uint gate;
} p;

#include "axpby.glsl"
#include "hypot.glsl"

void main() {
	if ((p.gate & (1u << s.phase)) == 0u) {
		return;
	}
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint k = gl_GlobalInvocationID.x; k < p.nc + p.nj; k += stride) {
		if (k >= p.nc) {
			uint i = 3u * p.nc + (k - p.nc);
			r[i] = r0[i];
			continue;
		}
		double u1 = axpby(1.0lf, nx[3u * k + 1u], 1.0lf, r0[3u * k + 1u]);
		double u2 = axpby(1.0lf, nx[3u * k + 2u], 1.0lf, r0[3u * k + 2u]);
		double a0 = r0[3u * k];
		double a1 = r0[3u * k + 1u];
		double a2 = r0[3u * k + 2u];
		precise double a = a0 + MU(k) * hypot(u1, u2);
		r[3u * k] = a;
		r[3u * k + 1u] = a1;
		r[3u * k + 2u] = a2;
	}
}
