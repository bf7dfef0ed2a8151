#version 450
// guard_keep: dst_i = src_i for i in [0, n), 32-bit words, unless cond is
// set and guard_check's report counts a failed body: the device-side
// copies of the gpu backend's guard (engine.StateGuard), which keep the
// last state that passed the check, of float64 (2 words each, every bit
// kept: NaN payloads, signed zeros) and uint32 buffers alike. Recorded
// after guard_check in the same batch, the copy happens only when the
// check passed, with no read-back between.
//
// Loop: if cond != 0 && report[0] + report[1] + report[2] != 0 { return }
//
//	for i := 0; i < n; i++ { dst[i] = src[i] }
//
// Bindings (set 0): 0 dst (written), 1 src (read); at least n words each;
// 2 report (read; guard_check's: 3 uint32 counts first).
// Arguments: uint n, uint cond (8 bytes).
// Dispatch: (min(⌈n/256⌉, max group count), 1, 1) workgroups of 256,
// grid-stride loop.
layout(local_size_x = 256) in;

layout(std430, set = 0, binding = 0) writeonly buffer Dst { uint dst[]; };
layout(std430, set = 0, binding = 1) readonly buffer Src { uint src[]; };
layout(std430, set = 0, binding = 2) readonly buffer Report { uint report[]; };

layout(std430, binding = 31) restrict readonly buffer Push {
	uint n;
	uint cond;
} p;

void main() {
	if (p.cond != 0u && report[0] + report[1] + report[2] != 0u) {
		return;
	}
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) {
		dst[i] = src[i];
	}
}
