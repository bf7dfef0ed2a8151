#version 450
// apgd_residual: tmp_k = x_k − Π_Υk(x_k − g_d(nx_k + r_k)) for every contact
// k, the vector whose norm is the residual of eq. 25 of the APGD paper
// (engine's residual, with nx = Nx); run only while the device APGD
// solver's phase is one of those in the gate mask (gpu/apgd.go).
//
// Loop: if (gate & (1 << s.phase)) == 0 return; then for each contact k,
// d = 0, 1, 2 (i = 3k + d):
//
//	u_i := 1·nx[i] + 1·r[i]
//	z_i := 1·x[i] + (−g_d)·u_i
//	(p_0, p_1, p_2) := Π_k(z)             // project.comp's branches
//	tmp[i] = 1·x[i] + (−1)·p_d
//
// engine's residual on the Vulkan backend (three Axpby and a Project)
// operation for operation, every one `precise`: the same values bit for bit.
// Joint rows: items k in [nc, nc+nj) are the single rows i = 3nc + k − nc
// after the contacts (gpu's joint rows), each given the same sequence of
// operations on its one row with the projection clampRow onto
// [jlo, jhi] (lib/joint_bounds.glsl) — what engine's host loop does with
// the Problem's elementwise operations and Project on a joint row.
// In apgd_residual_f32 (lib/store.glsl) the residual is taken at Π(x)
// instead of x: the iterate as stored in float32 may lie an ulp off its
// cone, which the residual, divided by g_d, would count as a velocity
// error of 2⁻²⁴|γ|/g_d and floor it there.
// Bindings (set 0): 0 tmp (written; 3 float64 per contact, then 1 per
// joint row), 1 x, 2 nx, 3 r (as tmp), 4 mu, 5 coh (1 per contact), 6 s
// (read; the solver's scalars), 7 jlo, 8 jhi (1 per joint row).
// Arguments: double gd, uint nc, uint nj, uint gate (24 bytes).
// Dispatch: (min(⌈(nc+nj)/64⌉, max group count), 1, 1) workgroups of 64; a
// grid-stride loop covers any nc.
layout(local_size_x = 64) in;

#include "store.glsl"
layout(std430, set = 0, binding = 0) writeonly buffer Tmp { STORE tmp[]; };
layout(std430, set = 0, binding = 1) readonly buffer X { STORE x[]; };
layout(std430, set = 0, binding = 2) readonly buffer NX { STORE nx[]; };
layout(std430, set = 0, binding = 3) readonly buffer R { double r[]; };
layout(std430, set = 0, binding = 4) readonly buffer Mu { double mu[]; };
layout(std430, set = 0, binding = 5) readonly buffer Coh { double coh[]; };
#include "contact_material.glsl"
#define SCALARS_BINDING 6
#define SCALARS_ACCESS readonly
#include "apgd_scalars.glsl"

#define JOINT_BOUNDS_BINDING 7
#define JOINT_BOUNDS_ACCESS readonly
#include "joint_bounds.glsl"
layout(std430, binding = 31) restrict readonly buffer Push {
	double gd;
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
	double ngd = -p.gd;
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint k = gl_GlobalInvocationID.x; k < p.nc + p.nj; k += stride) {
		if (k >= p.nc) {
			uint rj = k - p.nc;
			uint i = 3u * p.nc + rj;
			double xi = x[i];
#ifdef STORE_F32
			xi = clampRow(xi, jlo[rj], jhi[rj]);
#endif
			double u = axpby(1.0lf, nx[i], 1.0lf, r[i]);
			double z = axpby(1.0lf, xi, ngd, u);
			tmp[i] = STORE(axpby(1.0lf, xi, -1.0lf, clampRow(z, jlo[rj], jhi[rj])));
			continue;
		}
		double xk[3];
#ifdef STORE_F32
		// The iterate as stored may lie an ulp off its cone: the residual
		// is taken at its projection (lib/store.glsl; cpuref's
		// residualVector).
		proj(x[3u * k], x[3u * k + 1u], x[3u * k + 2u], MU(k), COH(k), xk[0], xk[1], xk[2]);
#else
		for (uint d = 0u; d < 3u; d++) {
			xk[d] = x[3u * k + d];
		}
#endif
		double z[3];
		for (uint d = 0u; d < 3u; d++) {
			uint i = 3u * k + d;
			double u = axpby(1.0lf, nx[i], 1.0lf, r[i]);
			z[d] = axpby(1.0lf, xk[d], ngd, u);
		}
		double pz[3];
		proj(z[0], z[1], z[2], MU(k), COH(k), pz[0], pz[1], pz[2]);
		for (uint d = 0u; d < 3u; d++) {
			uint i = 3u * k + d;
			tmp[i] = STORE(axpby(1.0lf, xk[d], -1.0lf, pz[d]));
		}
	}
}
