#version 450
// collide_pairs: the candidate pairs (i, j), i < j, of the broadphase,
// each found once by its lower body i, counted (mode 0) or written and
// sorted by j (mode 1); after the scan of the counts the pairs come sorted
// by i then j: collide's Grid.Pairs (appendBodyPairs, bigPairs,
// planePairs) with the Collider's filter gives the same list: two binned
// spheres certainly out of reach (collide.Apart: |c_j − c_i|² >
// (r_i + r_j + env')²·apartFactor, env' = env + m_i + m_j) are not
// emitted, as the narrowphase would give them no contact.
//
// Loop, for each body i (boxes closed, pairs of two fixed bodies skipped,
// reach(b, p): the corner of box b deepest along −n_p, Min_k where
// n_k > 0 else Max_k, has Σ_k n_k·(c_k − o_k) ≤ 0 to plane p, point o_p,
// normal n_p in box_p's first three values):
//
//	binned i: for each bin c of i's range, for each entry (j, at) in
//	          slot(c): j > i, boxes overlap, the owner bin
//	          max(l_i, l_j) is c and is j's bin at, not
//	          apart(i, j): emit j
//	          for each big j > i: boxes overlap: emit j
//	          for each plane j > i: reach(box_i, j): emit j
//	big i, plane i: nothing here; collide_big, recorded after this
//	          kernel in each mode, counts and writes their lists
//	mode 0: pairOff[i] = number emitted; the first K = 8 in cand[K·i:]
//	mode 1: pairA, pairB[pairOff[i]+t] = (i, t-th j), then sorted by j
//	        (copied from cand when at most K, else found again)
//
// The owner bin holds the minimum corner of the two boxes' intersection,
// which both boxes contain, and each body has one entry per bin, so each
// binned pair is emitted once whatever the order of entries in a slot
// (cpuref's owner-bin rule); slots shared by other bins are skipped by the
// bin comparison. emit drops a pair the model excludes (bodies jointed
// without "collide": body i's excluded partners j > i are
// excl[exclOff[i]:exclOff[i+1]]), as collide.Collider drops it from its
// list. Every operation is `precise`.
// Bindings (set 0): 0 box (8 float64 per body; a plane's normal in
// place of min), 1 pos (3 per body: a plane's point), 2 cell (4 int32 per
// body), 3 fixedBody (uint32), 4 special (uint32, meta[0] of them), 5
// slots (uint32 starts, S+1), 6 entries (uint32, ecap), all read; 7
// pairOff (uint32, n+1: written in mode 0, read in mode 1), 8 pairA, 9
// pairB (uint32, pcap, written in mode 1), 10 meta (uint32, read), 11
// cand (uint32, K per body: written in mode 0, read in mode 1), 12 exclOff
// (uint32, n+1), 13 excl (uint32), 14 shape (5 float64 per body: kind,
// size, bounding radius), read.
// Arguments: uint n, uint S, uint brickBits, uint mode, uint pcap,
// uint ecap, double env (the envelope, m), double apartFactor
// (collide.ApartFactor) (40 bytes).
// Dispatch: (min(⌈n/64⌉, max group count), 1, 1) workgroups of 64; a
// grid-stride loop covers any n.
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 5) readonly buffer Slots { uint slots[]; };
layout(std430, set = 0, binding = 6) readonly buffer Entries { uint entries[]; };
layout(std430, set = 0, binding = 7) buffer PairOff { uint pairOff[]; };
layout(std430, set = 0, binding = 8) writeonly buffer PairA { uint pairA[]; };
layout(std430, set = 0, binding = 9) buffer PairB { uint pairB[]; };
layout(std430, set = 0, binding = 10) readonly buffer Meta { uint meta[]; };
layout(std430, set = 0, binding = 11) buffer Cand { uint cand[]; };
#define BROADPHASE_EXCL_BINDING 12
#include "broadphase.glsl"
layout(std430, set = 0, binding = 14) readonly buffer Shape { double shape[]; };

const uint K = 8u;
const uint SPHERE = 0u;

layout(std430, binding = 31) restrict readonly buffer Push {
	uint n;
	uint S;
	uint brickBits;
	uint mode;
	uint pcap;
	uint ecap;
	double env;
	double apartFactor;
} p;

// apart is collide.Apart for binned bodies i < j with the envelope and
// margins Narrow is given (collide_narrow's env'), in its order: true
// only for two spheres farther apart than their radii and env' by more
// than the factor's allowance.
bool apart(uint i, uint j) {
	if (uint(shape[5u * i]) != SPHERE || uint(shape[5u * j]) != SPHERE) {
		return false;
	}
	precise double e = (p.env + box[8u * i + 6u]) + box[8u * j + 6u];
	precise double dx = pos[3u * j] - pos[3u * i];
	precise double dy = pos[3u * j + 1u] - pos[3u * i + 1u];
	precise double dz = pos[3u * j + 2u] - pos[3u * i + 2u];
	precise double r = (shape[5u * i + 1u] + shape[5u * j + 1u]) + e;
	precise double d2 = (dx * dx + dy * dy) + dz * dz;
	precise double r2 = (r * r) * p.apartFactor;
	return d2 > r2;
}

uint slotOf(int x, int y, int z) {
	uint h = uint(x >> 2) * 73856093u ^ uint(y >> 2) * 19349663u ^ uint(z >> 2) * 83492791u;
	uint brick = (h * 0x9e3779b9u) >> (32u - p.brickBits);
	return brick << 6 | uint(x & 3) | uint(y & 3) << 2 | uint(z & 3) << 4;
}

uint cnt;
uint base;

void emit(uint i, uint j) {
	if (excluded(i, j)) {
		return;
	}
	if (p.mode == 0u && cnt < K) {
		cand[K * i + cnt] = j;
	} else if (p.mode == 1u && base + cnt < p.pcap) {
		pairA[base + cnt] = i;
		pairB[base + cnt] = j;
	}
	cnt++;
}

// search emits body i's partners j > i.
void search(uint i, uint nspecial) {
	bool fi = fixedBody[i] != 0u;
	int c = cell[4u * i + 3u];
	int cls = c >> 24;
	if (cls == 0) {
		int l0 = cell[4u * i], l1 = cell[4u * i + 1u], l2 = cell[4u * i + 2u];
		int n0 = c & 255, n1 = (c >> 8) & 255, n2 = (c >> 16) & 255;
		for (int z = l2; z < l2 + n2; z++) {
			for (int y = l1; y < l1 + n1; y++) {
				for (int x = l0; x < l0 + n0; x++) {
					uint s = slotOf(x, y, z);
					uint end = min(slots[s + 1u], p.ecap);
					for (uint e = slots[s]; e < end; e++) {
						uint ent = entries[e];
						uint j = ent >> 6;
						if (j <= i || fi && fixedBody[j] != 0u || !overlap(i, j)) {
							continue;
						}
						int m0 = cell[4u * j], m1 = cell[4u * j + 1u], m2 = cell[4u * j + 2u];
						int o0 = max(l0, m0), o1 = max(l1, m1), o2 = max(l2, m2);
						if (o0 != x || o1 != y || o2 != z) {
							continue;
						}
						int cj = cell[4u * j + 3u];
						int at = (o0 - m0) + (cj & 255) * ((o1 - m1) + ((cj >> 8) & 255) * (o2 - m2));
						if (uint(at) == (ent & 63u) && !apart(i, j)) {
							emit(i, j);
						}
					}
				}
			}
		}
		for (uint t = 0u; t < nspecial; t++) {
			uint j = special[t];
			if (j <= i || fi && fixedBody[j] != 0u) {
				continue;
			}
			if ((cell[4u * j + 3u] >> 24) == 1 ? overlap(i, j) : reach(i, j)) {
				emit(i, j);
			}
		}
	}
}

void main() {
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	uint nspecial = meta[0];
	for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) {
		if ((cell[4u * i + 3u] >> 24) != 0) {
			continue; // a big body or a plane: collide_big
		}
		cnt = 0u;
		base = p.mode == 1u ? pairOff[i] : 0u;
		uint known = p.mode == 1u ? pairOff[i + 1u] - base : 0u;
		if (p.mode == 1u && known <= K) {
			for (; cnt < known; cnt++) {
				if (base + cnt < p.pcap) {
					pairA[base + cnt] = i;
					pairB[base + cnt] = cand[K * i + cnt];
				}
			}
		} else {
			search(i, nspecial);
		}
		if (p.mode == 0u) {
			pairOff[i] = cnt;
		} else if (base + cnt <= p.pcap) {
			// Insertion sort of this body's partners: short lists.
			for (uint a = base + 1u; a < base + cnt; a++) {
				uint v = pairB[a];
				uint b = a;
				for (; b > base && pairB[b - 1u] > v; b--) {
					pairB[b] = pairB[b - 1u];
				}
				pairB[b] = v;
			}
		}
	}
}
