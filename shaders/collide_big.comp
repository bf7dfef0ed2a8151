#version 450
// collide_big: the broadphase partners of the big bodies and planes (the
// special list), one workgroup of 256 per special body, where
// collide_pairs' one invocation per body would walk all n bodies alone:
// for special body i of class cls (1 big, 2 plane), its partners are the
// j > i with specialHit(i, cls, j) (lib/broadphase.glsl):
//
//	big i:   for each bounded j > i: boxes overlap; for each plane j > i:
//	         reach(box_i, j)
//	plane i: for each bounded j > i: reach(box_j, i)
//
// pairs of two fixed bodies and excluded pairs left out, as collide_pairs
// had them. Mode 0: pairOff[i] = their number (a workgroup sum). Mode 1:
// pairA, pairB[pairOff[i] + t] = (i, t-th j) in increasing j: the
// invocations test 256 consecutive j at a time and place their hits by a
// workgroup prefix sum of the hit flags, so the list comes sorted, as
// collide_pairs' lists do after their sort. Writes past pcap are dropped
// (the backend grows the buffers and runs collision again).
// Bindings (set 0): 0–4 box, pos, cell, fixedBody, special as
// lib/broadphase.glsl (read), 5 pairOff (uint32, n+1: written in mode 0,
// read in mode 1), 6 pairA, 7 pairB (uint32, pcap, written in mode 1),
// 8 meta (uint32, read: meta[0] the special bodies), 9 exclOff, 10 excl
// as lib/broadphase.glsl.
// Arguments: uint n, uint mode, uint pcap (12 bytes).
// Dispatch: (min(groups, max group count), 1, 1) workgroups of 256, any
// number: workgroup w takes special bodies w, w + groups, …
layout(local_size_x = 256) in;

layout(std430, set = 0, binding = 5) buffer PairOff { uint pairOff[]; };
layout(std430, set = 0, binding = 6) writeonly buffer PairA { uint pairA[]; };
layout(std430, set = 0, binding = 7) writeonly buffer PairB { uint pairB[]; };
layout(std430, set = 0, binding = 8) readonly buffer Meta { uint meta[]; };

#define BROADPHASE_EXCL_BINDING 9
#include "broadphase.glsl"

layout(std430, binding = 31) restrict readonly buffer Push {
	uint n;
	uint mode;
	uint pcap;
} p;

shared uint scan[256];

void main() {
	uint nspecial = meta[0];
	uint t = gl_LocalInvocationID.x;
	for (uint w = gl_WorkGroupID.x; w < nspecial; w += gl_NumWorkGroups.x) {
		uint i = special[w];
		int cls = cell[4u * i + 3u] >> 24;
		uint base = p.mode == 1u ? pairOff[i] : 0u;
		uint cnt = 0u; // hits so far (uniform across the workgroup)
		for (uint j0 = i + 1u; j0 < p.n; j0 += 256u) {
			uint j = j0 + t;
			uint hit = j < p.n && specialHit(i, cls, j) ? 1u : 0u;
			// Inclusive prefix sum of the hit flags (Hillis–Steele).
			scan[t] = hit;
			barrier();
			for (uint d = 1u; d < 256u; d <<= 1u) {
				uint v = t >= d ? scan[t - d] : 0u;
				barrier();
				scan[t] += v;
				barrier();
			}
			if (p.mode == 1u && hit != 0u) {
				uint at = base + cnt + scan[t] - 1u;
				if (at < p.pcap) {
					pairA[at] = i;
					pairB[at] = j;
				}
			}
			cnt += scan[255];
			barrier();
		}
		if (p.mode == 0u && t == 0u) {
			pairOff[i] = cnt;
		}
		barrier();
	}
}
