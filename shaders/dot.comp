#version 450
// dot: partial_c = Σ x_i·y_i over chunk c = [2048c, min(2048(c+1), n)), the
// first pass of the deterministic dot product (sum.comp is the second).
//
// Loop, for each chunk c (one workgroup; thread t of 256):
//
//	for t := 0; t < 256; t++ {          // in parallel
//		s[t] = 0
//		for k := 0; k < 8; k++ {        // i = lo + t + 256k, i < hi
//			s[t] += float64(x[i] * y[i])
//		}
//	}
//	for h := 128; h > 0; h /= 2 {       // fixed tree: lib/reduce.glsl
//		for t := 0; t < h; t++ { s[t] += s[t+h] }
//	}
//	partial[c] = s[0]
//
// The chunk size matches cpuref's chunk (2048). Every operation is `precise`
// (no fused multiply-add) and the order is fixed, so the partials are the
// same bit for bit on every run and on every device whose float64
// arithmetic is correctly rounded (as Vulkan requires) and keeps denormals.
// Bindings (set 0): 0 partial (written; ⌈n/2048⌉ float64), 1 x (read),
// 2 y (read); float64 arrays of at least n elements.
// Arguments: uint n (4 bytes).
// Dispatch: (min(⌈n/2048⌉, max group count), 1, 1) workgroups of 256; a
// workgroup loops over chunks c, c + groups, … when there are more chunks
// than workgroups.
layout(local_size_x = 256) in;

const uint CHUNK = 2048;
const uint WG = 256;

layout(std430, set = 0, binding = 0) writeonly buffer Partial { double partial[]; };
layout(std430, set = 0, binding = 1) readonly buffer X { double x[]; };
layout(std430, set = 0, binding = 2) readonly buffer Y { double y[]; };

layout(std430, binding = 31) restrict readonly buffer Push {
	uint n;
} p;

#include "reduce.glsl"

void main() {
	uint t = gl_LocalInvocationID.x;
	uint nc = (p.n + CHUNK - 1) / CHUNK;
	for (uint c = gl_WorkGroupID.x; c < nc; c += gl_NumWorkGroups.x) {
		uint lo = c * CHUNK;
		uint hi = min(lo + CHUNK, p.n);
		precise double acc = 0.0;
		for (uint i = lo + t; i < hi; i += WG) {
			precise double xy = x[i] * y[i];
			acc = acc + xy;
		}
		treeSum(t, acc);
		if (t == 0) {
			partial[c] = red[0];
		}
		barrier();
	}
}
