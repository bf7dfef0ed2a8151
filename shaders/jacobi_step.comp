#version 450
// jacobi_step: one iteration of projected Jacobi, Algorithm 2 of the APGD
// paper without the immediate update of its line 6 (engine.Jacobi), for
// every contact k; run only while the device Jacobi solver's phase is one
// of those in the gate mask (gpu/jacobi.go).
//
// Loop: if (gate & (1 << s.phase)) == 0 return; then for each contact k,
// d = 0, 1, 2 (i = 3k + d):
//
//	u_i := 1·nx[i] + 1·r[i]                // Axpby(step, 1, nx, 1, r)
//	v_i := inv[i]·u_i                      // MulElem(step, inv, step)
//	z_i := 1·γ[i] + (−ω)·v_i               // Axpby(step, 1, γ, −ω, step)
//	(p_0, p_1, p_2) := Π_k(z)              // Project(step, step): project.comp's branches
//	γ[i] = λ·p_d + (1 − λ)·γ[i]            // Axpby(γ, λ, step, 1 − λ, γ)
//
// engine.Jacobi's iteration on the Vulkan backend (three Axpby, a MulElem,
// a Project and an Axpby, with −ω and 1 − λ computed on the host) operation
// for operation, every one `precise`: the same values bit for bit. γ is
// read and written in place: contact k's rows depend only on contact k's.
// Joint rows: items k in [nc, nc+nj) are the single rows i = 3nc + k − nc
// after the contacts (gpu's joint rows), each given the same sequence of
// operations on its one row with the projection clampRow onto
// [jlo, jhi] (lib/joint_bounds.glsl) — what engine's host loop does with
// the Problem's elementwise operations and Project on a joint row.
// Bindings (set 0): 0 γ (read and written; 3 float64 per contact, then 1
// per joint row), 1 nx = Nγ, 2 r, 3 inv = 1/g_k on contact k's rows and
// 1/N_rr on joint row r (as γ), 4 mu, 5 coh (1 per contact), 6 s (read;
// the solver's scalars, layout in gpu/apgd.go), 7 jlo, 8 jhi (1 per joint
// row).
// Arguments: double negOmega, double lambda, double oneMinusLambda,
// uint nc, uint nj, uint gate (40 bytes).
// Dispatch: (min(⌈(nc+nj)/64⌉, max group count), 1, 1) workgroups of 64; a
// grid-stride loop covers any nc.
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) buffer Gamma { double gamma[]; };
layout(std430, set = 0, binding = 1) readonly buffer NX { double nx[]; };
layout(std430, set = 0, binding = 2) readonly buffer R { double r[]; };
layout(std430, set = 0, binding = 3) readonly buffer Inv { double inv[]; };
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
	double negOmega;
	double lambda;
	double oneMinusLambda;
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
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint k = gl_GlobalInvocationID.x; k < p.nc + p.nj; k += stride) {
		if (k >= p.nc) {
			uint rj = k - p.nc;
			uint i = 3u * p.nc + rj;
			double u = axpby(1.0lf, nx[i], 1.0lf, r[i]);
			precise double v = inv[i] * u;
			double z = axpby(1.0lf, gamma[i], p.negOmega, v);
			gamma[i] = axpby(p.lambda, clampRow(z, jlo[rj], jhi[rj]), p.oneMinusLambda, gamma[i]);
			continue;
		}
		double z[3];
		for (uint d = 0u; d < 3u; d++) {
			uint i = 3u * k + d;
			double u = axpby(1.0lf, nx[i], 1.0lf, r[i]);
			precise double v = inv[i] * u;
			z[d] = axpby(1.0lf, gamma[i], p.negOmega, v);
		}
		double pz[3];
		proj(z[0], z[1], z[2], MU(k), COH(k), pz[0], pz[1], pz[2]);
		for (uint d = 0u; d < 3u; d++) {
			uint i = 3u * k + d;
			gamma[i] = axpby(p.lambda, pz[d], p.oneMinusLambda, gamma[i]);
		}
	}
}
