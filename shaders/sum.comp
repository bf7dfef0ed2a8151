#version 450
// sum: dst_index = Σ src_i over i in [0, n), in a fixed order: the second
// pass of the deterministic dot product (dot.comp writes the src partials).
//
// Loop (one workgroup; thread t of 256):
//
//	for t := 0; t < 256; t++ {          // in parallel
//		s[t] = 0
//		for i := t; i < n; i += 256 { s[t] += src[i] }
//	}
//	for h := 128; h > 0; h /= 2 {       // fixed tree: lib/reduce.glsl
//		for t := 0; t < h; t++ { s[t] += s[t+h] }
//	}
//	dst[index] = s[0]
//
// Every operation is `precise` and the order fixed: bit-identical run to run.
// Bindings (set 0): 0 dst (written at dst[index] only), 1 src (read); float64
// arrays.
// Arguments: uint n, uint index (8 bytes).
// Dispatch: (1, 1, 1), one workgroup of 256.
layout(local_size_x = 256) in;

const uint WG = 256;

layout(std430, set = 0, binding = 0) writeonly buffer Dst { double dst[]; };
layout(std430, set = 0, binding = 1) readonly buffer Src { double src[]; };

layout(std430, binding = 31) restrict readonly buffer Push {
	uint n;
	uint index;
} p;

#include "reduce.glsl"

void main() {
	uint t = gl_LocalInvocationID.x;
	precise double acc = 0.0;
	for (uint i = t; i < p.n; i += WG) {
		acc = acc + src[i];
	}
	treeSum(t, acc);
	if (t == 0) {
		dst[p.index] = red[0];
	}
}
