#version 450
// guard_check: the guard's check of the body state on the device (the
// gpu backend's engine.StateGuard), engine.GuardOffenders' loop with its
// lists cut to their first K = 8 ids:
//
//	for i := 0; i < n; i++ {
//		kind := none
//		if any of pos_i, rot_i, vel_i, omega_i is NaN or ±Inf { kind = nonFinite }
//		else if v_x·v_x + v_y·v_y + v_z·v_z > speed2         { kind = fast }
//		else if skip[i] == 0 && pos_i ∉ [lo, hi]              { kind = out }
//		if kind != none { count[kind]++; if count[kind] ≤ K { ids[kind] += i } }
//	}
//
// The sum of squares is `precise` (each product rounded, summed left to
// right, as GuardOffenders' host loop); speed2 is the largest s with
// √s ≤ maxSpeed in float64 (gpu's speedThreshold), so that s > speed2 is
// the host's √s > maxSpeed exactly, without a square root here.
//
// Two passes, by mode:
//   - mode 0, over chunks c = [2048c, min(2048(c+1), n)) (one workgroup
//     each; a workgroup loops over c, c + groups, … when there are more
//     chunks than workgroups): the 256 threads count each kind over the
//     chunk (shared atomics); if any body failed, thread 0 walks the chunk
//     in order for the first K ids of each kind. partial[32c + k] = count
//     of kind k (k = 0 non-finite, 1 fast, 2 out); partial[32c + 3 + 8k +
//     j] = the j-th id of kind k in the chunk, 0xFFFFFFFF past the count.
//   - mode 1, one workgroup: thread k < 3 adds up the chunks' counts of
//     kind k in chunk order and takes their ids in chunk order until it
//     has K: report[k] = count, report[3 + 8k + j] = the j-th id of kind
//     k over all bodies (ascending: chunks are in order, ids within a
//     chunk in order), 0xFFFFFFFF past the count.
//
// Bindings (set 0): 0 report (uint32 ×27, written by mode 1), 1 partial
// (uint32, 32 per chunk: written by mode 0, read by mode 1), 2 pos (3 per
// body, m), 3 rot (4), 4 vel (3, m/s), 5 omega (3, rad/s), 6 skip (uint32
// per body, nonzero: no centre to check).
// Arguments: double lox, loy, loz, hix, hiy, hiz (m), double speed2
// (m²/s²), uint n (bodies), uint mode (64 bytes).
// Dispatch: mode 0 (min(⌈n/2048⌉, max group count), 1, 1) workgroups of
// 256; mode 1 (1, 1, 1).
layout(local_size_x = 256) in;

#include "finite.glsl"

const uint CHUNK = 2048;
const uint WG = 256;
const uint K = 8;
const uint STRIDE = 32; // uints of partial per chunk
const uint NONE = 3;
const uint NOID = 0xFFFFFFFFu;

layout(std430, set = 0, binding = 0) buffer Report { uint report[]; };
layout(std430, set = 0, binding = 1) buffer Partial { uint partial[]; };
layout(std430, set = 0, binding = 2) readonly buffer Pos { double pos[]; };
layout(std430, set = 0, binding = 3) readonly buffer Rot { double rot[]; };
layout(std430, set = 0, binding = 4) readonly buffer Vel { double vel[]; };
layout(std430, set = 0, binding = 5) readonly buffer Omega { double omega[]; };
layout(std430, set = 0, binding = 6) readonly buffer Skip { uint skip[]; };

layout(std430, binding = 31) restrict readonly buffer Push {
	double lox;
	double loy;
	double loz;
	double hix;
	double hiy;
	double hiz;
	double speed2;
	uint n;
	uint mode;
} p;

shared uint counts[3];

// kind returns body i's kind: 0 non-finite, 1 fast, 2 out, NONE.
uint kind(uint i) {
	dvec3 x = dvec3(pos[3 * i], pos[3 * i + 1], pos[3 * i + 2]);
	dvec3 v = dvec3(vel[3 * i], vel[3 * i + 1], vel[3 * i + 2]);
	dvec3 w = dvec3(omega[3 * i], omega[3 * i + 1], omega[3 * i + 2]);
	bool ok = true;
	for (uint k = 0; k < 3; k++) {
		ok = ok && finite(x[k]) && finite(v[k]) && finite(w[k]);
	}
	for (uint k = 0; k < 4; k++) {
		ok = ok && finite(rot[4 * i + k]);
	}
	if (!ok) {
		return 0;
	}
	precise double vx2 = v.x * v.x;
	precise double vy2 = v.y * v.y;
	precise double vz2 = v.z * v.z;
	precise double s = (vx2 + vy2) + vz2;
	if (s > p.speed2) {
		return 1;
	}
	if (skip[i] != 0u) {
		return NONE;
	}
	if (x.x < p.lox || x.x > p.hix || x.y < p.loy || x.y > p.hiy || x.z < p.loz || x.z > p.hiz) {
		return 2;
	}
	return NONE;
}

void main() {
	uint t = gl_LocalInvocationID.x;
	if (p.mode == 1u) {
		if (t >= 3u) {
			return;
		}
		uint nch = (p.n + CHUNK - 1u) / CHUNK;
		uint total = 0;
		uint have = 0;
		for (uint c = 0; c < nch; c++) {
			uint m = partial[STRIDE * c + t];
			total += m;
			for (uint j = 0; j < min(m, K) && have < K; j++) {
				report[3 + K * t + have] = partial[STRIDE * c + 3 + K * t + j];
				have++;
			}
		}
		report[t] = total;
		for (; have < K; have++) {
			report[3 + K * t + have] = NOID;
		}
		return;
	}
	uint nch = (p.n + CHUNK - 1u) / CHUNK;
	for (uint c = gl_WorkGroupID.x; c < nch; c += gl_NumWorkGroups.x) {
		uint lo = c * CHUNK;
		uint hi = min(lo + CHUNK, p.n);
		if (t < 3u) {
			counts[t] = 0;
		}
		barrier();
		uint mine[3] = uint[3](0, 0, 0);
		for (uint i = lo + t; i < hi; i += WG) {
			uint k = kind(i);
			if (k != NONE) {
				mine[k]++;
			}
		}
		for (uint k = 0; k < 3; k++) {
			if (mine[k] != 0u) {
				atomicAdd(counts[k], mine[k]);
			}
		}
		barrier();
		if (t == 0u) {
			uint base = STRIDE * c;
			uint want[3];
			uint have[3] = uint[3](0, 0, 0);
			for (uint k = 0; k < 3; k++) {
				partial[base + k] = counts[k];
				want[k] = min(counts[k], K);
			}
			for (uint i = lo; i < hi && have[0] + have[1] + have[2] < want[0] + want[1] + want[2]; i++) {
				uint k = kind(i);
				if (k != NONE && have[k] < want[k]) {
					partial[base + 3 + K * k + have[k]] = i;
					have[k]++;
				}
			}
			for (uint k = 0; k < 3; k++) {
				for (uint j = have[k]; j < K; j++) {
					partial[base + 3 + K * k + j] = NOID;
				}
			}
		}
		barrier();
	}
}
