#version 450
// collide_adj: the body → contact adjacency (CSR) of the contacts
// collide_narrow wrote, as cpuref's Collider.buildAdjacency makes it: each
// movable body's list holds 2k + side for its contacts k (side 0: the body
// is A, 1: B) in increasing order; fixed bodies get none. Deterministic:
// the atomics only count and place, and modes 2 and 3 sort each list.
//
// Loop (nc = min(meta[3], cap) contacts, n bodies):
//
//	mode 0, each contact k: if !fixed[a_k] { atomicAdd(adjOff[a_k], 1) }; same for b_k
//	        (collide_scan then turns adjOff into offsets, total at adjOff[n])
//	mode 1, each contact k: if !fixed[a_k] { adj[adjOff[a_k] + atomicAdd(cursor[a_k], 1)] = 2k }
//	        if !fixed[b_k] { adj[adjOff[b_k] + atomicAdd(cursor[b_k], 1)] = 2k + 1 }
//	mode 2, each body i with at most LONG = 64 entries: insertion sort of
//	        adj[adjOff[i]:adjOff[i+1]]; and out[0:8] = meta[0:8] (the
//	        counts, for the host)
//	mode 3, each body i with more (a lid on a bed, a blade in a mixer:
//	        thousands, where one invocation's insertion sort is quadratic):
//	        its workgroup sorts the list together, a bitonic network
//	        whose merges start with a flip (every comparator puts the
//	        smaller entry first, so the missing entries of a length that
//	        is no power of two act as +∞ and are skipped); workgroup w
//	        takes bodies w, w + groups, …
//
// Bindings (set 0): 0 a, 1 b (uint32 per contact), 2 fixedBody (uint32 per
// body), read; 3 adjOff (uint32, n+1), 4 cursor (uint32, n), 5 adj
// (uint32, acap), 6 meta (uint32, 8), 7 out (uint32, 8, host-visible).
// Arguments: uint n, uint mode, uint cap, uint acap (16 bytes).
// Dispatch: (min(⌈cap/64⌉, max group count), 1, 1) workgroups of 64 in
// modes 0 and 1, (min(⌈n/64⌉, …), 1, 1) in mode 2, any number in mode 3;
// grid-stride loops.
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer A { uint ca[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { uint cb[]; };
layout(std430, set = 0, binding = 2) readonly buffer FixedBody { uint fixedBody[]; };
layout(std430, set = 0, binding = 3) buffer AdjOff { uint adjOff[]; };
layout(std430, set = 0, binding = 4) buffer Cursor { uint cursor[]; };
layout(std430, set = 0, binding = 5) buffer Adj { uint adj[]; };
layout(std430, set = 0, binding = 6) readonly buffer Meta { uint meta[]; };
layout(std430, set = 0, binding = 7) writeonly buffer Out { uint out_[]; };

layout(std430, binding = 31) restrict readonly buffer Push {
	uint n;
	uint mode;
	uint cap;
	uint acap;
} p;

void place(uint body, uint e) {
	uint at = adjOff[body] + atomicAdd(cursor[body], 1u);
	if (at < p.acap) {
		adj[at] = e;
	}
}

const uint LONG = 64u;

// compareSwap orders adj[lo+i] ≤ adj[lo+j] (i < j < m).
void compareSwap(uint lo, uint i, uint j) {
	uint x = adj[lo + i], y = adj[lo + j];
	if (x > y) {
		adj[lo + i] = y;
		adj[lo + j] = x;
	}
}

// sortLong sorts the m entries of adj from lo with the workgroup.
void sortLong(uint lo, uint m) {
	uint t = gl_LocalInvocationID.x;
	uint size = 1u;
	while (size < m) {
		size <<= 1u;
	}
	for (uint k = 2u; k <= size; k <<= 1u) {
		// Flip: within each block of k, i and its mirror k − 1 − i.
		uint h = k >> 1u;
		for (uint q = t; q < size >> 1u; q += gl_WorkGroupSize.x) {
			uint blk = (q / h) * k;
			uint off = q % h;
			uint i = blk + off, j = blk + k - 1u - off;
			if (j < m) {
				compareSwap(lo, i, j);
			}
		}
		memoryBarrierBuffer();
		barrier();
		// Half-cleaners of d = k/4, …, 1.
		for (uint d = k >> 2u; d > 0u; d >>= 1u) {
			for (uint q = t; q < size >> 1u; q += gl_WorkGroupSize.x) {
				uint i = (q / d) * 2u * d + q % d;
				uint j = i + d;
				if (j < m) {
					compareSwap(lo, i, j);
				}
			}
			memoryBarrierBuffer();
			barrier();
		}
	}
}

void main() {
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	if (p.mode == 3u) {
		for (uint i = gl_WorkGroupID.x; i < p.n; i += gl_NumWorkGroups.x) {
			uint lo = adjOff[i], hi = min(adjOff[i + 1u], p.acap);
			if (hi > lo + LONG) {
				sortLong(lo, hi - lo);
			}
		}
		return;
	}
	if (p.mode == 2u) {
		if (gl_GlobalInvocationID.x == 0u) {
			for (uint k = 0u; k < 8u; k++) {
				out_[k] = meta[k];
			}
		}
		for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) {
			uint lo = adjOff[i], hi = min(adjOff[i + 1u], p.acap);
			if (hi > lo + LONG) {
				continue; // mode 3
			}
			for (uint a = lo + 1u; a < hi; a++) {
				uint v = adj[a];
				uint b = a;
				for (; b > lo && adj[b - 1u] > v; b--) {
					adj[b] = adj[b - 1u];
				}
				adj[b] = v;
			}
		}
		return;
	}
	uint nc = min(meta[3], p.cap);
	for (uint k = gl_GlobalInvocationID.x; k < nc; k += stride) {
		uint a = ca[k], b = cb[k];
		if (p.mode == 0u) {
			if (fixedBody[a] == 0u) {
				atomicAdd(adjOff[a], 1u);
			}
			if (fixedBody[b] == 0u) {
				atomicAdd(adjOff[b], 1u);
			}
		} else {
			if (fixedBody[a] == 0u) {
				place(a, 2u * k);
			}
			if (fixedBody[b] == 0u) {
				place(b, 2u * k + 1u);
			}
		}
	}
}
