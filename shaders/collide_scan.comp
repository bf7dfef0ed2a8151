#version 450
// collide_scan: exclusive prefix sum in place of a uint32 array, the scan
// stage of collision's counting sorts (cpuref's Grid.scan): data[0:len]
// becomes its exclusive scan and data[len] the total, which is also stored
// in meta[out].
//
// Loop (len = nIdx == 0xffffffff ? n : min(meta[nIdx], n), counts that a
// device stage wrote, bounded by the buffer's capacity n):
//
//	s := 0
//	for i := 0; i < len; i++ { c := data[i]; data[i] = s; s += c }
//	data[len] = s; meta[out] = s
//
// Modes (argument mode):
//
//	0: one workgroup of 256 does it all: thread t scans the block
//	   [t·b, (t+1)·b) of b = ⌈len/256⌉ elements, the 256 block sums are
//	   scanned in shared memory, and each thread adds its block's offset.
//	1, 2, 3: the same over the whole device, for long arrays, in three
//	   dispatches of chunks of CHUNK = 4096 elements (g < ⌈len/CHUNK⌉):
//	   1 (⌈n/CHUNK⌉ workgroups): workgroup g sums chunk g into parts[2g]
//	     (parts[2g+1]: its sum wrapped);
//	   2 (one workgroup): the chunk sums are scanned in place as mode 0
//	     scans data, and data[len], meta[out] and the wrap flag written;
//	   3 (⌈n/CHUNK⌉ workgroups): workgroup g scans chunk g as mode 0 scans
//	     data, from offset parts[2g].
//
// Integer sums: exact, the result does not depend on the partition. A
// total beyond 2³²−1 wraps: then bit 3 + out of meta[5] is set, and the
// host reports the count too large.
// Bindings (set 0): 0 data (uint32, read and written, len + 1), 1 meta
// (uint32, read at nIdx, written at out and 5), 2 parts (uint32, 2 per
// chunk; modes 1 to 3).
// Arguments: uint n, uint nIdx, uint out, uint mode (16 bytes).
// Dispatch: mode 0 and 2 (1, 1, 1); modes 1 and 3 (⌈n/CHUNK⌉, 1, 1);
// workgroups of 256.
layout(local_size_x = 256) in;

const uint WG = 256u;

layout(std430, set = 0, binding = 0) buffer Data { uint data[]; };
layout(std430, set = 0, binding = 1) buffer Meta { uint meta[]; };
layout(std430, set = 0, binding = 2) buffer Parts { uint parts[]; };

const uint CHUNK = 4096u;

layout(std430, binding = 31) restrict readonly buffer Push {
	uint n;
	uint nIdx;
	uint out_;
	uint mode;
} p;

shared uint part[WG];
shared bool wrapped;

// value and store are the array a scan works on: data in modes 0 and 3,
// the chunk sums (parts[2g]) in mode 2.
uint value(uint i) { return p.mode == 2u ? parts[2u * i] : data[i]; }
void store(uint i, uint v) {
	if (p.mode == 2u) {
		parts[2u * i] = v;
	} else {
		data[i] = v;
	}
}

// scanRange scans [lo, hi) in place as one workgroup, from offset base;
// it returns the total (base excluded) and whether a sum wrapped (the
// same in every thread).
uint scanRange(uint lo, uint hi, uint base, inout bool wrap) {
	uint t = gl_LocalInvocationID.x;
	uint len = hi - lo;
	uint b = (len + WG - 1u) / WG;
	uint blo = lo + min(t * b, len), bhi = min(blo + b, hi);
	if (t == 0u) {
		wrapped = false;
	}
	barrier();
	uint s = 0u;
	bool w = false;
	for (uint i = blo; i < bhi; i++) {
		uint c = value(i);
		w = w || s + c < s;
		s += c;
	}
	part[t] = s;
	barrier();
	// Hillis–Steele inclusive scan of the block sums.
	for (uint d = 1u; d < WG; d <<= 1) {
		uint v = t >= d ? part[t - d] : 0u;
		barrier();
		w = w || part[t] + v < part[t];
		part[t] += v;
		barrier();
	}
	uint off = t == 0u ? 0u : part[t - 1u];
	w = w || base + off < base;
	off += base;
	if (w) {
		wrapped = true;
	}
	for (uint i = blo; i < bhi; i++) {
		uint c = value(i);
		store(i, off);
		off += c;
	}
	barrier();
	wrap = wrap || wrapped;
	uint total = part[WG - 1u];
	barrier();
	return total;
}

void main() {
	uint t = gl_LocalInvocationID.x;
	uint len = p.n;
	if (p.nIdx != 0xffffffffu) {
		len = min(meta[p.nIdx], p.n);
	}
	uint chunks = (len + CHUNK - 1u) / CHUNK;
	uint g = gl_WorkGroupID.x;
	if (p.mode == 1u) {
		if (g >= chunks) {
			return;
		}
		// Coalesced: thread t reads elements t, t + 256, … of the chunk.
		uint lo = g * CHUNK, hi = min(lo + CHUNK, len);
		uint s = 0u;
		bool w = false;
		for (uint i = lo + t; i < hi; i += WG) {
			uint c = data[i];
			w = w || s + c < s;
			s += c;
		}
		part[t] = s;
		if (t == 0u) {
			wrapped = false;
		}
		barrier();
		if (w) {
			wrapped = true;
		}
		for (uint d = WG / 2u; d > 0u; d >>= 1) {
			if (t < d) {
				if (part[t] + part[t + d] < part[t]) {
					wrapped = true;
				}
				part[t] += part[t + d];
			}
			barrier();
		}
		if (t == 0u) {
			parts[2u * g] = part[0];
			parts[2u * g + 1u] = wrapped ? 1u : 0u;
		}
		return;
	}
	if (p.mode == 3u) {
		if (g >= chunks) {
			return;
		}
		bool wrap = false;
		scanRange(g * CHUNK, min(g * CHUNK + CHUNK, len), parts[2u * g], wrap);
		return;
	}
	bool wrap = false;
	uint n = len;
	if (p.mode == 2u) {
		n = chunks;
		for (uint i = t; i < chunks; i += WG) {
			if (parts[2u * i + 1u] != 0u) {
				wrap = true;
			}
		}
	}
	uint total = scanRange(0u, n, 0u, wrap);
	// Every thread's wrap is the workgroup's after scanRange, save the
	// chunk flags read above: gather them.
	if (t == 0u) {
		wrapped = false;
	}
	barrier();
	if (wrap) {
		wrapped = true;
	}
	barrier();
	if (t == WG - 1u) {
		data[len] = total;
		meta[p.out_] = total;
		if (wrapped) {
			meta[5] |= 8u << p.out_;
		}
	}
}
