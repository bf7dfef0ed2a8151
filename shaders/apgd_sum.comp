#version 450
// apgd_sum: s.dots[q] = Σ_c partial[q·chunks + c] for q < pairs, the second
// pass of the device APGD solver's dot products (apgd_dot.comp writes the
// partials), in sum.comp's fixed order; run only while the solver's phase
// is one of those in the gate mask (gpu/apgd.go).
//
// Loop, for each q (one workgroup each; thread t of 256):
//
//	for t := 0; t < 256; t++ { s[t] = Σ_{i = t, t+256, … < chunks} partial[q·chunks + i] }
//	for h := 128; h > 0; h /= 2 { for t := 0; t < h; t++ { s[t] += s[t+h] } }
//	dots[q] = s[0]
//
// Every operation `precise` and the order sum.comp's (the tree is
// lib/reduce.glsl's treeSum): with apgd_dot.comp,
// LinAlg.Dot's value bit for bit.
// Bindings (set 0): 0 s (the solver's scalars; dots written), 1 partial
// (read).
// Arguments: uint chunks, uint gate (8 bytes).
// Dispatch: (pairs, 1, 1) workgroups of 256, pairs ≤ 4.
layout(local_size_x = 256) in;

const uint WG = 256;

#define SCALARS_BINDING 0
#define SCALARS_ACCESS
#include "apgd_scalars.glsl"
layout(std430, set = 0, binding = 1) readonly buffer Partial { double partial[]; };

layout(std430, binding = 31) restrict readonly buffer Push {
	uint chunks;
	uint gate;
} p;

#include "reduce.glsl"

void main() {
	if ((p.gate & (1u << s.phase)) == 0u) {
		return;
	}
	uint t = gl_LocalInvocationID.x;
	uint base = gl_WorkGroupID.x * p.chunks;
	precise double acc = 0.0;
	for (uint i = t; i < p.chunks; i += WG) {
		acc = acc + partial[base + i];
	}
	treeSum(t, acc);
	if (t == 0) {
		s.dots[gl_WorkGroupID.x] = red[0];
	}
}
