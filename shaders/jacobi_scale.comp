#version 450
// jacobi_scale: v = a·v + 0·v with a = 1/sqrt(s.dots[0]), the normalisation
// of the power iteration in engine's spectralRadius
// (Axpby(v, 1/√(vᵀv), v, 0, v), with vᵀv left in s.dots[0] by
// apgd_sum.comp): axpby.comp's two rounded products and sum, and the host's
// 1/√ as two correctly rounded operations, every one `precise`
// (gpu/jacobi.go).
// Bindings (set 0): 0 v (read and written; n float64), 1 s (read; the
// solver's scalars, layout in gpu/apgd.go).
// Arguments: uint n (4 bytes).
// Dispatch: (min(⌈n/256⌉, max group count), 1, 1) workgroups of 256; a
// grid-stride loop covers any n.
layout(local_size_x = 256) in;

layout(std430, set = 0, binding = 0) buffer V { double v[]; };
#define SCALARS_BINDING 1
#define SCALARS_ACCESS readonly
#include "apgd_scalars.glsl"
layout(std430, binding = 31) restrict readonly buffer Push {
	uint n;
} p;

#include "axpby.glsl"

void main() {
	precise double root = sqrt(s.dots[0]);
	precise double a = 1.0lf / root;
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) {
		v[i] = axpby(a, v[i], 0.0lf, v[i]);
	}
}
