#version 450
// apgd_init: the device APGD solver's vectors at the start and at the end
// of a solve (gpu/apgd.go), for every contact k (its three rows) and joint
// row: mode 0 sets x = Π(γ₀), y = x, best = 1 and nxNew = 1·x + (−1)·best
// (lines 1–3 of Algorithm 1 of the APGD paper: engine.APGD's Project,
// Copy, Fill and Axpby), mode 1 sets nx = ny (N γ₀ from N y₀), mode 2
// sets γ = best (the solve's answer).
//
// Loop, for each item k < nc + nj (a contact's rows i = 3k, 3k+1, 3k+2,
// projected as project.comp's branches; joint row rj = k − nc is row
// i = 3nc + rj, clamped to [jlo, jhi] as apgd_step's):
//
//	mode 0: x[i] = Π(γ[i]); y[i] = x[i]; best[i] = 1; nxNew[i] = 1·x[i] + (−1)·1
//	mode 1: nx[i] = ny[i]
//	mode 2: γ[i] = best[i]
//
// every operation `precise`: the values of engine.APGD's calls bit for bit.
// In apgd_init_f32 (lib/store.glsl) x, y, best, nxNew, ny and nx are
// float32: nxNew is formed from x as stored, and mode 2 sets γ = Π(best)
// (float64), since best as stored may lie an ulp off its cone.
// Bindings (set 0): 0 γ (float64; read in mode 0, written in mode 2), 1 x,
// 2 y, 3 best, 4 nxNew, 5 ny, 6 nx (STORE; 3 per contact, then 1 per joint
// row), 7 mu, 8 coh (read; 1 per contact), 9 jlo, 10 jhi (read; 1 per
// joint row).
// Arguments: uint nc, uint nj, uint mode (12 bytes).
// Dispatch: (min(⌈(nc+nj)/64⌉, max group count), 1, 1) workgroups of 64; a
// grid-stride loop covers any nc.
layout(local_size_x = 64) in;

#include "store.glsl"
layout(std430, set = 0, binding = 0) buffer Gamma { double gamma[]; };
layout(std430, set = 0, binding = 1) buffer X { STORE x[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Y { STORE y[]; };
layout(std430, set = 0, binding = 3) buffer Best { STORE best[]; };
layout(std430, set = 0, binding = 4) writeonly buffer NXNew { STORE nxNew[]; };
layout(std430, set = 0, binding = 5) readonly buffer NY { STORE ny[]; };
layout(std430, set = 0, binding = 6) writeonly buffer NX { STORE nx[]; };
layout(std430, set = 0, binding = 7) readonly buffer Mu { double mu[]; };
layout(std430, set = 0, binding = 8) readonly buffer Coh { double coh[]; };
#include "contact_material.glsl"

#define JOINT_BOUNDS_BINDING 9
#define JOINT_BOUNDS_ACCESS readonly
#include "joint_bounds.glsl"
layout(std430, binding = 31) restrict readonly buffer Push {
	uint nc;
	uint nj;
	uint mode;
} p;

#include "axpby.glsl"
#include "cone.glsl"

// start stores x = v (already projected) and the rows that follow from it.
void start(uint i, double v) {
	x[i] = STORE(v);
	y[i] = STORE(v);
	best[i] = STORE(1.0lf);
	nxNew[i] = STORE(axpby(1.0lf, ROUND(v), -1.0lf, 1.0lf));
}

void main() {
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint k = gl_GlobalInvocationID.x; k < p.nc + p.nj; k += stride) {
		uint i0 = 3u * k;
		uint m = 3u;
		if (k >= p.nc) {
			i0 = 3u * p.nc + (k - p.nc);
			m = 1u;
		}
		if (p.mode == 1u) {
			for (uint d = 0u; d < m; d++) {
				nx[i0 + d] = ny[i0 + d];
			}
			continue;
		}
		if (p.mode == 2u) {
#ifdef STORE_F32
			// The answer is the best iterate's projection: as stored it
			// may lie an ulp off its cone (lib/store.glsl).
			if (k >= p.nc) {
				gamma[i0] = clampRow(best[i0], jlo[k - p.nc], jhi[k - p.nc]);
			} else {
				proj(best[i0], best[i0 + 1u], best[i0 + 2u], MU(k), COH(k), gamma[i0], gamma[i0 + 1u], gamma[i0 + 2u]);
			}
#else
			for (uint d = 0u; d < m; d++) {
				gamma[i0 + d] = double(best[i0 + d]);
			}
#endif
			continue;
		}
		if (k >= p.nc) {
			uint rj = k - p.nc;
			start(i0, clampRow(gamma[i0], jlo[rj], jhi[rj]));
			continue;
		}
		double on, ou, ow;
		proj(gamma[i0], gamma[i0 + 1u], gamma[i0 + 2u], MU(k), COH(k), on, ou, ow);
		start(i0, on);
		start(i0 + 1u, ou);
		start(i0 + 2u, ow);
	}
}
