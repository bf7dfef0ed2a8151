#version 450
// axpby: dst_i = a·x_i + b·y_i for i in [0, n).
//
// Loop: for i := 0; i < n; i++ { dst[i] = float64(a*x[i]) + float64(b*y[i]) }
// Both products are rounded before the sum: `precise` forbids contracting
// them into a fused multiply-add, so the result is correctly rounded step by
// step and equal bit for bit to the Go loop of cpuref on amd64 (Go may fuse
// on arm64, ppc64le and s390x).
// Bindings (set 0): 0 dst (written; may be the same buffer as x or y),
// 1 x (read), 2 y (read); float64 arrays of at least n elements.
// Arguments: double a, double b, uint n (20 bytes).
// Dispatch: (min(⌈n/256⌉, max group count), 1, 1) workgroups of 256; a
// grid-stride loop covers any n, so the shape never changes the result.
layout(local_size_x = 256) in;

layout(std430, set = 0, binding = 0) writeonly buffer Dst { double dst[]; };
layout(std430, set = 0, binding = 1) readonly buffer X { double x[]; };
layout(std430, set = 0, binding = 2) readonly buffer Y { double y[]; };

layout(std430, binding = 31) restrict readonly buffer Push {
	double a;
	double b;
	uint n;
} p;

#include "axpby.glsl"

void main() {
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) {
		dst[i] = axpby(p.a, x[i], p.b, y[i]);
	}
}
