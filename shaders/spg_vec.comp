#version 450
// spg_vec: the vector operations of the device P-SPG-FB solver
// (gpu/spg.go), engine.SPG's LinAlg calls fused, for every contact k and
// its rows i = 3k + d; run only while the solver's phase is the one in the
// gate mask (mode 5: in any phase).
//
//	mode 0 (lines 5–6):  y_i = inv_i·g_i                    // MulElem(y, inv, g)
//	                     z_i = 1·x_i + (−α̂)·y_i             // Axpby(d, 1, x, −α̂, y)
//	                     d_i = 1·Π_k(z)_d + (−1)·x_i        // Project(d, d), Axpby(d, 1, d, −1, x)
//	mode 1 (line 8):     z_i = 1·x_i + (−α̂)·g_i, d_i as in mode 0
//	mode 2 (line 11):    xNew_i = 1·x_i + λ·d_i             // Axpby(xNew, 1, x, λ, d)
//	mode 3 (line 17):    y_i = 1·gNew_i + (−1)·g_i          // Axpby(y, 1, gNew, −1, g)
//	mode 4:              x_i = xNew_i, g_i = gNew_i         // the host's swap of x, xNew and g, gNew
//	mode 5 (line 22):    best_i = x_i if s.flags & 1        // Copy(best, x) when w ≤ w_min
//
// α̂ and λ are read from the solver's scalars. Every operation `precise`
// and in the host's order: the values of engine.SPG on the Vulkan
// backend, bit for bit.
// Joint rows: items k in [nc, nc+nj) are the single rows i = 3nc + k − nc
// after the contacts (gpu's joint rows), each given the same sequence of
// operations on its one row with the projection clampRow onto
// [jlo, jhi] (lib/joint_bounds.glsl) — what engine's host loop does with
// the Problem's elementwise operations and Project on a joint row.
// Bindings (set 0): 0 d, 1 y, 2 x, 3 g, 4 xNew, 5 gNew, 6 best, 7 inv
// (3 float64 per contact, then 1 per joint row), 8 mu, 9 coh (1 per
// contact), 10 s (read; the solver's scalars, layout in gpu/spg.go),
// 11 jlo, 12 jhi (1 per joint row).
// Arguments: uint nc, uint nj, uint mode, uint gate (16 bytes).
// Dispatch: (min(⌈(nc+nj)/64⌉, max group count), 1, 1) workgroups of 64; a
// grid-stride loop covers any nc.
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) buffer D { double d[]; };
layout(std430, set = 0, binding = 1) buffer Y { double y[]; };
layout(std430, set = 0, binding = 2) buffer X { double x[]; };
layout(std430, set = 0, binding = 3) buffer G { double g[]; };
layout(std430, set = 0, binding = 4) buffer XNew { double xNew[]; };
layout(std430, set = 0, binding = 5) buffer GNew { double gNew[]; };
layout(std430, set = 0, binding = 6) buffer Best { double best[]; };
layout(std430, set = 0, binding = 7) readonly buffer Inv { double inv[]; };
layout(std430, set = 0, binding = 8) readonly buffer Mu { double mu[]; };
layout(std430, set = 0, binding = 9) readonly buffer Coh { double coh[]; };
#include "contact_material.glsl"
#define SCALARS_BINDING 10
#define SCALARS_ACCESS readonly
#include "spg_scalars.glsl"

#define JOINT_BOUNDS_BINDING 11
#define JOINT_BOUNDS_ACCESS readonly
#include "joint_bounds.glsl"
layout(std430, binding = 31) restrict readonly buffer Push {
	uint nc;
	uint nj;
	uint mode;
	uint gate;
} p;

#include "axpby.glsl"
#include "cone.glsl"
void main() {
	if (p.mode == 5u) {
		if ((s.flags & 1u) == 0u) {
			return;
		}
	} else if ((p.gate & (1u << s.phase)) == 0u) {
		return;
	}
	double na = -s.alpha;
	double lam = s.lambda;
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint k = gl_GlobalInvocationID.x; k < p.nc + p.nj; k += stride) {
		// A contact's three rows, or joint row k − nc alone.
		bool joint = k >= p.nc;
		uint i0 = joint ? 3u * p.nc + (k - p.nc) : 3u * k;
		uint rows = joint ? 1u : 3u;
		if (p.mode <= 1u && joint) {
			uint rj = k - p.nc;
			double v = g[i0];
			if (p.mode == 0u) {
				precise double pv = inv[i0] * g[i0];
				y[i0] = pv;
				v = pv;
			}
			double z = axpby(1.0lf, x[i0], na, v);
			d[i0] = axpby(1.0lf, clampRow(z, jlo[rj], jhi[rj]), -1.0lf, x[i0]);
			continue;
		}
		if (p.mode <= 1u) {
			double z[3];
			for (uint e = 0u; e < 3u; e++) {
				uint i = 3u * k + e;
				double v = g[i];
				if (p.mode == 0u) {
					precise double pv = inv[i] * g[i];
					y[i] = pv;
					v = pv;
				}
				z[e] = axpby(1.0lf, x[i], na, v);
			}
			double pz[3];
			proj(z[0], z[1], z[2], MU(k), COH(k), pz[0], pz[1], pz[2]);
			for (uint e = 0u; e < 3u; e++) {
				uint i = 3u * k + e;
				d[i] = axpby(1.0lf, pz[e], -1.0lf, x[i]);
			}
			continue;
		}
		for (uint e = 0u; e < rows; e++) {
			uint i = i0 + e;
			if (p.mode == 2u) {
				xNew[i] = axpby(1.0lf, x[i], lam, d[i]);
			} else if (p.mode == 3u) {
				y[i] = axpby(1.0lf, gNew[i], -1.0lf, g[i]);
			} else if (p.mode == 4u) {
				x[i] = xNew[i];
				g[i] = gNew[i];
			} else {
				best[i] = x[i];
			}
		}
	}
}
