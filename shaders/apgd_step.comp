#version 450
// apgd_step: x'_k = Π_Υk(y_k − t g_k) for every contact k, line 8 of
// Algorithm 1 of the APGD paper, with the step size t read from the device
// APGD solver's scalars; run only while the solver's phase is one of those
// in the gate mask (gpu/apgd.go).
//
// Loop: if (gate & (1 << s.phase)) == 0 return; then for each contact k
//
//	z := y[3k:3k+3]·1 + g[3k:3k+3]·(−s.t)  // axpby.comp's two rounded products and sum
//	xNew[3k:3k+3] = Π(z)                    // project.comp's branches
//
// the operations of engine.APGD's Axpby(xNew, 1, y, −t, g) then
// Project(xNew, xNew) on the Vulkan backend, every one `precise`: the same
// values bit for bit.
// Joint rows: items k in [nc, nc+nj) are the single rows i = 3nc + k − nc
// after the contacts (gpu's joint rows), each given the same sequence of
// operations on its one row with the projection clampRow onto
// [jlo, jhi] (lib/joint_bounds.glsl) — what engine's host loop does with
// the Problem's elementwise operations and Project on a joint row.
// Bindings (set 0): 0 xNew (written; 3 float64 per contact, then 1 per
// joint row), 1 y, 2 g (as xNew), 3 mu, 4 coh (1 per contact), 5 s (read;
// the solver's scalars), 6 jlo, 7 jhi (1 per joint row).
// Arguments: uint nc, uint nj, uint gate (12 bytes).
// Dispatch: (min(⌈(nc+nj)/64⌉, max group count), 1, 1) workgroups of 64; a
// grid-stride loop covers any nc.
layout(local_size_x = 64) in;

#include "store.glsl"
layout(std430, set = 0, binding = 0) writeonly buffer XNew { STORE xNew[]; };
layout(std430, set = 0, binding = 1) readonly buffer Y { STORE y[]; };
layout(std430, set = 0, binding = 2) readonly buffer G { STORE g[]; };
layout(std430, set = 0, binding = 3) readonly buffer Mu { double mu[]; };
layout(std430, set = 0, binding = 4) readonly buffer Coh { double coh[]; };
#include "contact_material.glsl"
#define SCALARS_BINDING 5
#define SCALARS_ACCESS readonly
#include "apgd_scalars.glsl"

#define JOINT_BOUNDS_BINDING 6
#define JOINT_BOUNDS_ACCESS readonly
#include "joint_bounds.glsl"
layout(std430, binding = 31) restrict readonly buffer Push {
	uint nc;
	uint nj;
	uint gate;
} p;

#include "axpby.glsl"
#include "cone.glsl"
void main() {
	if ((p.gate & (1u << s.phase)) == 0u) {
		return;
	}
	double nt = -s.t;
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint k = gl_GlobalInvocationID.x; k < p.nc + p.nj; k += stride) {
		if (k >= p.nc) {
			uint rj = k - p.nc;
			uint i = 3u * p.nc + rj;
			xNew[i] = STORE(clampRow(axpby(1.0lf, y[i], nt, g[i]), jlo[rj], jhi[rj]));
			continue;
		}
		double z[3];
		for (uint d = 0u; d < 3u; d++) {
			uint i = 3u * k + d;
			z[d] = axpby(1.0lf, y[i], nt, g[i]);
		}
		double on, ou, ow;
		proj(z[0], z[1], z[2], MU(k), COH(k), on, ou, ow);
		xNew[3u * k] = STORE(on);
		xNew[3u * k + 1u] = STORE(ou);
		xNew[3u * k + 2u] = STORE(ow);
	}
}
