#version 450
// fill: dst_i = v for i in [0, n).
//
// Loop: for i := 0; i < n; i++ { dst[i] = v }
// Bindings (set 0): 0 dst (written), a float64 array of at least n elements.
// Arguments: double v, uint n (12 bytes).
// Dispatch: (min(⌈n/256⌉, max group count), 1, 1) workgroups of 256,
// grid-stride loop.
layout(local_size_x = 256) in;

layout(std430, set = 0, binding = 0) writeonly buffer Dst { double dst[]; };

layout(std430, binding = 31) restrict readonly buffer Push {
	double v;
	uint n;
} p;

void main() {
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) {
		dst[i] = p.v;
	}
}
