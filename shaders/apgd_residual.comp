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
// Bindings (set 0): 0 tmp (written; 3 float64 per contact), 1 x, 2 nx, 3 r
// (3 per contact), 4 mu, 5 coh (1 per contact), 6 s (read; the solver's
// scalars).
// Push constants: double gd, uint nc, uint gate (16 bytes).
// Dispatch: (min(⌈nc/64⌉, max group count), 1, 1) workgroups of 64; a
// grid-stride loop covers any nc.
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) writeonly buffer Tmp { double tmp[]; };
layout(std430, set = 0, binding = 1) readonly buffer X { double x[]; };
layout(std430, set = 0, binding = 2) readonly buffer NX { double nx[]; };
layout(std430, set = 0, binding = 3) readonly buffer R { double r[]; };
layout(std430, set = 0, binding = 4) readonly buffer Mu { double mu[]; };
layout(std430, set = 0, binding = 5) readonly buffer Coh { double coh[]; };
#define SCALARS_BINDING 6
#define SCALARS_ACCESS readonly
#include "apgd_scalars.glsl"
layout(push_constant) uniform Push {
	double gd;
	uint nc;
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
	for (uint k = gl_GlobalInvocationID.x; k < p.nc; k += stride) {
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
			tmp[i] = axpby(1.0lf, x[i], -1.0lf, pz[d]);
		}
	}
}
