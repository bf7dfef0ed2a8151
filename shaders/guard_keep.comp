#version 450
// guard_keep: dst_i = src_i for i in [0, n), 32-bit words: the device-side
// copies of the gpu backend's guard (engine.StateGuard's KeepState and
// the kept copy it reads back), of float64 (2 words each, every bit kept:
// NaN payloads, signed zeros) and uint32 buffers alike.
//
// Loop: for i := 0; i < n; i++ { dst[i] = src[i] }
// Bindings (set 0): 0 dst (written), 1 src (read); at least n words each.
// Push constants: uint n (4 bytes).
// Dispatch: (min(⌈n/256⌉, max group count), 1, 1) workgroups of 256,
// grid-stride loop.
layout(local_size_x = 256) in;

layout(std430, set = 0, binding = 0) writeonly buffer Dst { uint dst[]; };
layout(std430, set = 0, binding = 1) readonly buffer Src { uint src[]; };

layout(push_constant) uniform Push {
	uint n;
} p;

void main() {
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) {
		dst[i] = src[i];
	}
}
