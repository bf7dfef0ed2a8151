#version 450
// mul_elem: dst_i = x_i·y_i for i in [0, n).
//
// Loop: for i := 0; i < n; i++ { dst[i] = x[i] * y[i] }
// One correctly rounded product per element: bit-identical to cpuref.
// Bindings (set 0): 0 dst (written; may be the same buffer as x or y),
// 1 x (read), 2 y (read); float64 arrays of at least n elements.
// Arguments: uint n (4 bytes).
// Dispatch: (min(⌈n/256⌉, max group count), 1, 1) workgroups of 256,
// grid-stride loop.
layout(local_size_x = 256) in;

layout(std430, set = 0, binding = 0) writeonly buffer Dst { double dst[]; };
layout(std430, set = 0, binding = 1) readonly buffer X { double x[]; };
layout(std430, set = 0, binding = 2) readonly buffer Y { double y[]; };

layout(std430, binding = 31) restrict readonly buffer Push {
	uint n;
} p;

void main() {
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) {
		precise double r = x[i] * y[i];
		dst[i] = r;
	}
}
