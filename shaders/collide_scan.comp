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
// One workgroup of 256: thread t scans the block [t·b, (t+1)·b) of
// b = ⌈len/256⌉ elements, the 256 block sums are scanned in shared memory,
// and each thread adds its block's offset. Integer sums: exact, the result
// does not depend on the partition. A total beyond 2³²−1 wraps: then bit
// 3 + out of meta[5] is set, and the host reports the count too large.
// Bindings (set 0): 0 data (uint32, read and written, len + 1), 1 meta
// (uint32, read at nIdx, written at out and 5).
// Push constants: uint n, uint nIdx, uint out (12 bytes).
// Dispatch: (1, 1, 1), one workgroup of 256.
layout(local_size_x = 256) in;

const uint WG = 256u;

layout(std430, set = 0, binding = 0) buffer Data { uint data[]; };
layout(std430, set = 0, binding = 1) buffer Meta { uint meta[]; };

layout(push_constant) uniform Push {
	uint n;
	uint nIdx;
	uint out_;
} p;

shared uint part[WG];
shared bool wrapped;

void main() {
	uint t = gl_LocalInvocationID.x;
	uint len = p.n;
	if (p.nIdx != 0xffffffffu) {
		len = min(meta[p.nIdx], p.n);
	}
	uint b = (len + WG - 1u) / WG;
	uint lo = min(t * b, len), hi = min(lo + b, len);
	if (t == 0u) {
		wrapped = false;
	}
	barrier();
	uint s = 0u;
	bool wrap = false;
	for (uint i = lo; i < hi; i++) {
		uint c = data[i];
		wrap = wrap || s + c < s;
		s += c;
	}
	part[t] = s;
	barrier();
	// Hillis–Steele inclusive scan of the block sums.
	for (uint d = 1u; d < WG; d <<= 1) {
		uint v = t >= d ? part[t - d] : 0u;
		barrier();
		wrap = wrap || part[t] + v < part[t];
		part[t] += v;
		barrier();
	}
	if (wrap) {
		wrapped = true;
	}
	barrier();
	uint off = t == 0u ? 0u : part[t - 1u];
	for (uint i = lo; i < hi; i++) {
		uint c = data[i];
		data[i] = off;
		off += c;
	}
	if (t == WG - 1u) {
		data[len] = part[WG - 1u];
		meta[p.out_] = part[WG - 1u];
		if (wrapped) {
			meta[5] |= 8u << p.out_;
		}
	}
}
