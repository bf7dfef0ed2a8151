#version 450
// copy: dst_i = src_i for i in [0, n).
//
// Loop: for i := 0; i < n; i++ { dst[i] = src[i] }
// The elements move as pairs of 32-bit words, so every float64 (NaN
// payloads and signed zeros included) is copied bit for bit.
// Bindings (set 0): 0 dst (written), 1 src (read); float64 arrays of at
// least n elements, seen as uvec2.
// Arguments: uint n (4 bytes).
// Dispatch: (min(⌈n/256⌉, max group count), 1, 1) workgroups of 256,
// grid-stride loop.
layout(local_size_x = 256) in;

layout(std430, set = 0, binding = 0) writeonly buffer Dst { uvec2 dst[]; };
layout(std430, set = 0, binding = 1) readonly buffer Src { uvec2 src[]; };

layout(std430, binding = 31) restrict readonly buffer Push {
	uint n;
} p;

void main() {
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) {
		dst[i] = src[i];
	}
}
