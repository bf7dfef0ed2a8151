#version 450
// project: dst_k = Π_Υk(x_k) for every contact k, the projection onto the
// friction cone {‖(γ_u, γ_w)‖ ≤ μ_k(γ_n + c_k)} shifted by the cohesion
// impulse c_k (cpuref.ProjectCone, APGD paper section 2.4).
//
// Loop, for each contact k ((xn, xu, xw) = x[3k:3k+3], μ = MU(k), c = COH(k)):
//
//	n := xn + c; t := sqrt(xu*xu + xw*xw)
//	switch {
//	case μ == 0:        dst_k = (max(n, +0) − c, 0, 0)   // Go's math.Max: NaN stays NaN
//	case t <= μ*n:      dst_k = (xn, xu, xw)              // inside
//	case μ*t <= −n:     dst_k = (−c, 0, 0)                // polar cone
//	default:            n' := (μ*t + n)/(μ*μ + 1); s := μ*n'/t
//	                    dst_k = (n' − c, xu*s, xw*s)
//	}
//
// The same branches and operations as cpuref.ProjectCone (lib/cone.glsl's
// proj, shared with the kernels that fuse Π), every one `precise`: bit for
// bit equal where float64 division and square root are correctly rounded.
// Bindings (set 0): 0 dst (written; 3 float64 per contact; may be the same
// buffer as x), 1 x (3 per contact), 2 mu (1 per contact), 3 coh (1 per
// contact, N·s).
// Arguments: uint nc (4 bytes).
// Dispatch: (min(⌈nc/64⌉, max group count), 1, 1) workgroups of 64; a
// grid-stride loop covers any nc.
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) writeonly buffer Dst { double dst[]; };
layout(std430, set = 0, binding = 1) readonly buffer X { double x[]; };
layout(std430, set = 0, binding = 2) readonly buffer Mu { double mu[]; };
layout(std430, set = 0, binding = 3) readonly buffer Coh { double coh[]; };
#include "contact_material.glsl"

layout(std430, binding = 31) restrict readonly buffer Push {
	uint nc;
} p;

#include "cone.glsl"

void main() {
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint k = gl_GlobalInvocationID.x; k < p.nc; k += stride) {
		double on, ou, ow;
		proj(x[3u * k], x[3u * k + 1u], x[3u * k + 2u], MU(k), COH(k), on, ou, ow);
		dst[3u * k] = on;
		dst[3u * k + 1u] = ou;
		dst[3u * k + 2u] = ow;
	}
}
