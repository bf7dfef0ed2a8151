#version 450
// apgd_accept: the accepted trial's two dot products of the device APGD
// solver (gpu/apgd.go), with the residual vector formed in shared memory
// instead of a vector in device memory: apgd_residual then apgd_dot's
// mode 2 in one pass, the same values bit for bit; run only while the
// solver's phase is one of those in the gate mask.
//
// For each chunk c of 2048 rows [lo, hi) (one workgroup; thread t of 256):
//
//	for each contact k with a row in [lo, hi), and each joint row i there,
//	apgd_residual's operations (u = 1·nx + 1·r; z = 1·x + (−g_d)·u;
//	tmp = 1·x + (−1)·Π(z), Π the contact's cone or the row's clampRow):
//	    rt[i − lo] = tmp_i   for the rows i in [lo, hi)
//	acc0 = Σ_{i = lo+t, lo+t+256, … < hi} rt[i−lo]·rt[i−lo]         // ‖tmp‖²
//	acc1 = Σ_{i = lo+t, lo+t+256, … < hi} g[i]·(1·x[i] + (−1)·xOld[i]) // gᵀ(γ' − γ_k)
//	then lib/dot_chunk.glsl's chunkPartials (partial[q·chunks + c], q < 2)
//
// A contact whose rows straddle two chunks is projected by both
// workgroups (the same values). With apgd_sum, s.dots[0] and s.dots[1] are
// engine's residual² and gᵀ(γ_{k+1} − γ_k) of LinAlg.Dot bit for bit: every
// operation `precise`, the order dot.comp's.
// Bindings (set 0): 0 partial (written; 2 per chunk used), 1 x (γ', 3
// float64 per contact, then 1 per joint row), 2 nx (Nγ'), 3 r, 4 g, 5 xOld
// (γ_k; all as x), 6 mu, 7 coh (1 per contact), 8 s (read; the solver's
// scalars), 9 jlo, 10 jhi (1 per joint row).
// Push constants: double gd, uint nc, uint nj, uint gate (24 bytes).
// Dispatch: (min(⌈(3nc+nj)/2048⌉, max group count), 1, 1) workgroups of
// 256; a workgroup loops over chunks c, c + groups, ….
layout(local_size_x = 256) in;

layout(std430, set = 0, binding = 0) writeonly buffer Partial { double partial[]; };
layout(std430, set = 0, binding = 1) readonly buffer X { double x[]; };
layout(std430, set = 0, binding = 2) readonly buffer NX { double nx[]; };
layout(std430, set = 0, binding = 3) readonly buffer R { double r[]; };
layout(std430, set = 0, binding = 4) readonly buffer G { double g[]; };
layout(std430, set = 0, binding = 5) readonly buffer XOld { double xOld[]; };
layout(std430, set = 0, binding = 6) readonly buffer Mu { double mu[]; };
layout(std430, set = 0, binding = 7) readonly buffer Coh { double coh[]; };
#define SCALARS_BINDING 8
#define SCALARS_ACCESS readonly
#include "apgd_scalars.glsl"

#define JOINT_BOUNDS_BINDING 9
#define JOINT_BOUNDS_ACCESS readonly
#include "joint_bounds.glsl"
layout(push_constant) uniform Push {
	double gd;
	uint nc;
	uint nj;
	uint gate;
} p;

#include "dot_chunk.glsl"
#include "axpby.glsl"
#include "cone.glsl"

shared double rt[CHUNK];

void main() {
	if ((p.gate & (1u << s.phase)) == 0u) {
		return;
	}
	uint t = gl_LocalInvocationID.x;
	uint cn = 3u * p.nc;
	uint n = cn + p.nj;
	uint chunks = (n + CHUNK - 1) / CHUNK;
	double ngd = -p.gd;
	for (uint c = gl_WorkGroupID.x; c < chunks; c += gl_NumWorkGroups.x) {
		uint lo = c * CHUNK;
		uint hi = min(lo + CHUNK, n);
		if (lo < cn) {
			uint k1 = (min(hi, cn) + 2u) / 3u;
			for (uint k = lo / 3u + t; k < k1; k += WG) {
				double z[3];
				for (uint d = 0u; d < 3u; d++) {
					uint i = 3u * k + d;
					double u = axpby(1.0lf, nx[i], 1.0lf, r[i]);
					z[d] = axpby(1.0lf, x[i], ngd, u);
				}
				double pz[3];
				proj(z[0], z[1], z[2], mu[k], coh[k], pz[0], pz[1], pz[2]);
				for (uint d = 0u; d < 3u; d++) {
					uint i = 3u * k + d;
					if (i >= lo && i < hi) {
						rt[i - lo] = axpby(1.0lf, x[i], -1.0lf, pz[d]);
					}
				}
			}
		}
		for (uint i = max(lo, cn) + t; i < hi; i += WG) {
			uint rj = i - cn;
			double u = axpby(1.0lf, nx[i], 1.0lf, r[i]);
			double z = axpby(1.0lf, x[i], ngd, u);
			rt[i - lo] = axpby(1.0lf, x[i], -1.0lf, clampRow(z, jlo[rj], jhi[rj]));
		}
		barrier();
		precise double acc0 = 0.0lf;
		precise double acc1 = 0.0lf;
		for (uint i = lo + t; i < hi; i += WG) {
			double v = rt[i - lo];
			double d = axpby(1.0lf, x[i], -1.0lf, xOld[i]);
			precise double a = v * v;
			precise double b = g[i] * d;
			acc0 = acc0 + a;
			acc1 = acc1 + b;
		}
		chunkPartials(t, acc0, acc1, 0.0lf, 0.0lf, 2u, c, chunks);
	}
}
