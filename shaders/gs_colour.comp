#version 450
// gs_colour: the contact colouring of the gs sweep, cpuref's colour.go
// (Jones–Plassmann rounds, then a stable counting sort of the contacts by
// colour), the same colours bit for bit: contacts are neighbours when
// they share a movable body; a colour's contacts are pairwise not
// neighbours (gs_colour_sweep runs them in parallel). Priority of contact
// k: lowbias32(k), a bijection on 32 bits (ties, impossible below 2³²,
// would go to the larger index). MAXC = 32 colours (a uint mask), TAIL =
// 32 the colour of the contacts swept by gs_sweep's one invocation, NONE =
// 0xffffffff uncoloured; BUCKETS = 33 (the colours and the tail).
//
// Loop (nc contacts, blocks = ⌈nc/64⌉; adjacency as collide_adj builds
// it: body i's contacts 2j + side in adj[adjOff[i]:adjOff[i+1]], none for
// fixed bodies):
//
//	mode 0, each k: dst[k] = NONE
//	mode 1, one round, each k (src read only, so that two neighbours are
//	        never coloured in one round: one beats the other):
//	        if src[k] != NONE { dst[k] = src[k]; continue }
//	        mask, blocked := 0, false
//	        for j in the lists of a[k] and b[k], j != k:
//	                if src[j] == NONE { blocked |= prio(j, j) > prio(k, k) }
//	                else if src[j] < MAXC { mask |= 1 << src[j] }
//	                (stopping at the first blocker when the two lists hold
//	                at most MAXC entries: the mask cannot fill)
//	        dst[k] = mask full ? TAIL : !blocked ? lowest zero bit of mask : NONE
//	mode 2, each block w (a workgroup): src[k] = TAIL where NONE (after
//	        the last round); blk[BUCKETS·w + c] = #{k in block w: src[k] = c}
//	mode 3, one workgroup: blk's columns become exclusive prefix sums over
//	        the blocks; start[0] = 0, start[c+1] = start[c] + total of c
//	mode 4, each block w: k goes to perm[start[c] + blk[BUCKETS·w + c] +
//	        #{j in block w, j < k: src[j] = c}], c = src[k] (stable)
//
// Bindings (set 0): 0 a, 1 b (uint32 per contact), 2 adjOff (uint32,
// n+1), 3 adj (uint32, 2 per contact at most), read; 4 src, 5 dst
// (uint32 per contact: the rounds' two buffers, swapped each round),
// 6 blk (uint32, 33 per block), 7 start (uint32, 34), 8 perm (uint32 per
// contact).
// Arguments: uint nc, uint mode, uint blocks (12 bytes).
// Dispatch: workgroups of 64; modes 0 and 1 (⌈nc/64⌉, 1, 1) or fewer,
// modes 2 and 4 (blocks, 1, 1) or fewer (grid-stride loops), mode 3 (1,
// 1, 1).
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer A { uint ca[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { uint cb[]; };
layout(std430, set = 0, binding = 2) readonly buffer AdjOff { uint adjOff[]; };
layout(std430, set = 0, binding = 3) readonly buffer Adj { uint adj[]; };
layout(std430, set = 0, binding = 4) buffer Src { uint src[]; };
layout(std430, set = 0, binding = 5) buffer Dst { uint dst[]; };
layout(std430, set = 0, binding = 6) buffer Blk { uint blk[]; };
layout(std430, set = 0, binding = 7) buffer Start { uint start[]; };
layout(std430, set = 0, binding = 8) buffer Perm { uint perm[]; };

layout(std430, binding = 31) restrict readonly buffer Push {
	uint nc;
	uint mode;
	uint blocks;
} p;

const uint MAXC = 32u;
const uint TAIL = 32u;
const uint BUCKETS = 33u;
const uint NONE = 0xffffffffu;

shared uint hist[BUCKETS];
shared uint cols[64];

// prio is Wellons' lowbias32 hash (cpuref's ColourPriority).
uint prio(uint k) {
	k ^= k >> 16;
	k *= 0x7feb352du;
	k ^= k >> 15;
	k *= 0x846ca68bu;
	k ^= k >> 16;
	return k;
}

void jpRound(uint k) {
	uint c = src[k];
	if (c != NONE) {
		dst[k] = c;
		return;
	}
	uint mask = 0u;
	bool blocked = false;
	uint ia = ca[k], ib = cb[k];
	// With at most MAXC list entries (k's own among them), the neighbours
	// cannot hold every colour: the scan may stop at the first blocker.
	bool mayFill = adjOff[ia + 1u] - adjOff[ia] + adjOff[ib + 1u] - adjOff[ib] > MAXC;
	uint pk = prio(k);
	for (uint side = 0u; side < 2u && !(blocked && !mayFill); side++) {
		uint i = side == 0u ? ia : ib;
		for (uint e = adjOff[i]; e < adjOff[i + 1u]; e++) {
			uint j = adj[e] >> 1;
			if (j == k) {
				continue;
			}
			uint cj = src[j];
			if (cj == NONE) {
				uint pj = prio(j);
				if (pj > pk || (pj == pk && j > k)) {
					blocked = true;
					if (!mayFill) {
						break;
					}
				}
			} else if (cj < MAXC) {
				mask |= 1u << cj;
			}
		}
	}
	if (mask == 0xffffffffu) {
		dst[k] = TAIL;
	} else if (!blocked) {
		dst[k] = uint(findLSB(~mask));
	} else {
		dst[k] = NONE;
	}
}

void main() {
	uint t = gl_LocalInvocationID.x;
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	if (p.mode == 0u) {
		for (uint k = gl_GlobalInvocationID.x; k < p.nc; k += stride) {
			dst[k] = NONE;
		}
	} else if (p.mode == 1u) {
		for (uint k = gl_GlobalInvocationID.x; k < p.nc; k += stride) {
			jpRound(k);
		}
	} else if (p.mode == 2u) {
		// Uniform loop over the blocks: every invocation reaches the barriers.
		for (uint w = gl_WorkGroupID.x; w < p.blocks; w += gl_NumWorkGroups.x) {
			if (t < BUCKETS) {
				hist[t] = 0u;
			}
			barrier();
			uint k = 64u * w + t;
			if (k < p.nc) {
				uint c = src[k];
				if (c == NONE) {
					c = TAIL;
					src[k] = c;
				}
				atomicAdd(hist[c], 1u);
			}
			barrier();
			if (t < BUCKETS) {
				blk[BUCKETS * w + t] = hist[t];
			}
			barrier();
		}
	} else if (p.mode == 3u) {
		if (t < BUCKETS) {
			uint sum = 0u;
			for (uint w = 0u; w < p.blocks; w++) {
				uint v = blk[BUCKETS * w + t];
				blk[BUCKETS * w + t] = sum;
				sum += v;
			}
			hist[t] = sum;
		}
		barrier();
		if (t == 0u) {
			uint s = 0u;
			start[0] = 0u;
			for (uint c = 0u; c < BUCKETS; c++) {
				s += hist[c];
				start[c + 1u] = s;
			}
		}
	} else {
		for (uint w = gl_WorkGroupID.x; w < p.blocks; w += gl_NumWorkGroups.x) {
			uint k = 64u * w + t;
			cols[t] = k < p.nc ? src[k] : NONE;
			barrier();
			if (k < p.nc) {
				uint c = cols[t];
				uint rank = 0u;
				for (uint q = 0u; q < t; q++) {
					rank += cols[q] == c ? 1u : 0u;
				}
				perm[start[c] + blk[BUCKETS * w + c] + rank] = k;
			}
			barrier();
		}
	}
}
