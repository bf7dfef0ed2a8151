#version 450
// collide_keys: the warm start's contact keys and impulses on the device
// (cpuref's Collider.KeepKeys and WarmStart): mode 0 keeps the current
// contacts' keys (A, B, index within the pair) and impulses for the next
// step; mode 1 sets each current contact's impulse to the kept impulse of
// the contact with the same key, else zero. Both key lists are sorted
// (contacts come in pair order, then narrowphase order), so a binary
// search finds the match; the result is the merge cpuref does, copied bit
// for bit.
//
// Loop, for each current contact k < nc:
//
//	mode 0: prevA[k], prevB[k], prevSub[k] = a[k], b[k], sub[k]
//	        prevGamma[3k:3k+3] = STORE(g[3k:3k+3])
//	mode 1: j := the kept contact with (prevA, prevB, prevSub)[j] = (a, b, sub)[k]
//	        g[3k:3k+3] = found ? prevGamma[3j:3j+3] : 0
//
// collide_keys_f32 (settings.precision "mixed", lib/store.glsl) keeps the
// impulses as float32, rounded to nearest: the warm start is a starting
// point, which the mixed solver stores as float32 at once (apgd_init).
// Bindings (set 0): 0 a, 1 b, 2 sub (uint32 per contact), read; 3 prevA,
// 4 prevB, 5 prevSub (uint32 per kept contact; written in mode 0, read in
// mode 1); 6 prevGamma (3 STORE per kept contact, N·s; written in mode 0,
// read in mode 1); 7 g (3 float64 per contact: read in mode 0, written in
// mode 1).
// Arguments: uint nc, uint np (kept contacts), uint mode (12 bytes).
// Dispatch: (min(⌈nc/64⌉, max group count), 1, 1) workgroups of 64; a
// grid-stride loop covers any nc.
layout(local_size_x = 64) in;

#include "store.glsl"

layout(std430, set = 0, binding = 0) readonly buffer A { uint ca[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { uint cb[]; };
layout(std430, set = 0, binding = 2) readonly buffer Sub { uint sub[]; };
layout(std430, set = 0, binding = 3) buffer PrevA { uint prevA[]; };
layout(std430, set = 0, binding = 4) buffer PrevB { uint prevB[]; };
layout(std430, set = 0, binding = 5) buffer PrevSub { uint prevSub[]; };
layout(std430, set = 0, binding = 6) buffer PrevGamma { STORE prevGamma[]; };
layout(std430, set = 0, binding = 7) buffer G { double g[]; };

layout(std430, binding = 31) restrict readonly buffer Push {
	uint nc;
	uint np;
	uint mode;
} p;

// cmp compares key (a, b, s) with kept key j: −1, 0 or 1.
int cmp(uint a, uint b, uint s, uint j) {
	if (a != prevA[j]) {
		return a < prevA[j] ? -1 : 1;
	}
	if (b != prevB[j]) {
		return b < prevB[j] ? -1 : 1;
	}
	if (s != prevSub[j]) {
		return s < prevSub[j] ? -1 : 1;
	}
	return 0;
}

void main() {
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint k = gl_GlobalInvocationID.x; k < p.nc; k += stride) {
		uint a = ca[k], b = cb[k], s = sub[k];
		if (p.mode == 0u) {
			prevA[k] = a;
			prevB[k] = b;
			prevSub[k] = s;
			for (uint c = 0u; c < 3u; c++) {
				prevGamma[3u * k + c] = STORE(g[3u * k + c]);
			}
			continue;
		}
		uint lo = 0u, hi = p.np;
		bool found = false;
		while (lo < hi) {
			uint mid = lo + (hi - lo) / 2u;
			int c = cmp(a, b, s, mid);
			if (c == 0) {
				lo = mid;
				found = true;
				break;
			}
			if (c < 0) {
				hi = mid;
			} else {
				lo = mid + 1u;
			}
		}
		for (uint c = 0u; c < 3u; c++) {
			g[3u * k + c] = found ? double(prevGamma[3u * lo + c]) : 0.0lf;
		}
	}
}
