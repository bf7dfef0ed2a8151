#version 450
// rolling_ops: the rolling blocks (engine.RollingRows: per contact with a
// nonzero combined μ_r or μ_s, three rows after the joint rows, block k at
// γ[off+3k:off+3k+3], off = 3nc + nj, blocks in contact order) on the
// device, bit for bit cpuref's rolling.go, by mode (argument mode;
// n items: contacts or blocks as said):
//
//	0 coeff (n = nc contacts; only with fromBodies): cmur[c], cmus[c] =
//	  min(bmat[2A], bmat[2B]), min(bmat[2A+1], bmat[2B+1]) (the bodies'
//	  materials' μ_r, μ_s: engine.CombineRolling); without fromBodies the
//	  host wrote them (its collider's contacts)
//	1 place (n = nc; ONE workgroup of 256): the contacts c with
//	  cmur[c] ≠ 0 or cmus[c] ≠ 0 get blocks k in contact order (a block
//	  scan of the flags): ridx[c] = k, rcon[k] = c, rmur[k], rmus[k] =
//	  cmur[c], cmus[c]; the others ridx[c] = 0xffffffff; count[0] = nr
//	2 build (n = nr blocks): rrotA_k,d = −d, rrotB_k,d = d for the
//	  frame rows d = u, w, n of jac (world frame, w = n × u), and
//	  dst[off+3k+d] = D_k,dᵀ v (r: v = vfree in the world frame, no bias)
//	3 velocity (n = nr): dst[dstOff+3k+d] = D_k,dᵀ v (Schur: v = dv)
//	4 project (n = nr): dst[off+3k:off+3k+3] = projectRolling(dst[3c],
//	  src[off+3k:off+3k+3], rmur[k], rmus[k]) with c = rcon[k], dst's
//	  contact rows already projected (dst may be src)
//	5 diag (n = nr): dst[off+3k+d] = tr(N_kk)/3 = (Σ over the movable
//	  bodies, A then B, and the rows d of Σ_m ρ_m·ρ_m·J⁻¹_m) / 3 with
//	  ρ = inBodyFrame(rot_d) (lib/contact_row.glsl's inBodyFrameOf)
//	6 copy (n = nr): dst[dstOff+3k+d] = src[srcOff+3k+d]
//	7 keep (n = nc): dst[3c+d] = ridx[c] = k ≠ none ? src[off+3k+d] : 0
//	  (the impulses kept per contact for the next warm start)
//	8 warm (n = nr): dst[off+3k+d] = src[3·rcon[k]+d] (the kept impulses
//	  that collide_keys merged per contact)
//
// Every operation `precise`: bit for bit cpuref's listRolling,
// buildRolling, rollingVelocities, projectRolling, rollingDiag,
// keepRolling and warmRolling.
// Bindings (set 0): 0 dst (read and written), 1 src (read), 2 v (6 float64
// per body, read), 3 bodyA, 4 bodyB (uint32 per contact), 5 ridx (uint32
// per contact), 6–10 rcon, rrotA, rrotB, rmur, rmus as
// lib/rolling_row.glsl, 11 cmur, 12 cmus (1 float64 per contact),
// 13 bmat (2 float64 per body: μ_r, μ_s), 14 jac (12 per contact: n, u,
// s_A, s_B; 8 with lib/jac.glsl's JAC_ARMS), 15 rot (4 per body), 16 invInertia (3 per body), 17 fixedBody
// (uint32 per body), 18 count (uint32; count[0] = nr, written by mode 1).
// Arguments: uint mode, uint n, uint off (3nc + nj), uint dstOff,
// uint srcOff, uint fromBodies (24 bytes).
// Dispatch: mode 1 (1, 1, 1); the others (min(⌈n/256⌉, max group count),
// 1, 1) workgroups of 256; a grid-stride loop covers any n.
layout(local_size_x = 256) in;

layout(std430, set = 0, binding = 0) buffer Dst { double dst[]; };
layout(std430, set = 0, binding = 1) readonly buffer Src { double src[]; };
layout(std430, set = 0, binding = 2) readonly buffer V { double v[]; };
layout(std430, set = 0, binding = 3) readonly buffer BodyA { uint bodyA[]; };
layout(std430, set = 0, binding = 4) readonly buffer BodyB { uint bodyB[]; };
layout(std430, set = 0, binding = 5) buffer RIdx { uint ridx[]; };
#define ROLLING_ROW_BINDING 6
#define ROLLING_ROW_ACCESS
#define ROLLING_V(j) v[j]
#include "rolling_row.glsl"
layout(std430, set = 0, binding = 11) buffer CMur { double cmur[]; };
layout(std430, set = 0, binding = 12) buffer CMus { double cmus[]; };
layout(std430, set = 0, binding = 13) readonly buffer BMat { double bmat[]; };
#define JAC_BINDING 14
#include "jac.glsl"
layout(std430, set = 0, binding = 15) readonly buffer Rot { double rot[]; };
layout(std430, set = 0, binding = 16) readonly buffer InvInertia { double invInertia[]; };
layout(std430, set = 0, binding = 17) readonly buffer FixedBody { uint fixedBody[]; };
layout(std430, set = 0, binding = 18) buffer Count { uint count[]; };

layout(std430, binding = 31) restrict readonly buffer Push {
	uint mode;
	uint n;
	uint off;
	uint dstOff;
	uint srcOff;
	uint fromBodies;
} p;

#include "contact_row.glsl"

const uint WG = 256u;
const uint NONE = 0xffffffffu;

shared uint sums[WG];

bool flagged(uint c) {
	return cmur[c] != 0.0lf || cmus[c] != 0.0lf;
}

// place lists the blocks (mode 1): thread t takes the contacts
// [t·b, min((t+1)·b, n)), b = ⌈n/256⌉.
void place() {
	uint t = gl_LocalInvocationID.x;
	uint b = (p.n + WG - 1u) / WG;
	uint lo = min(t * b, p.n);
	uint hi = min(lo + b, p.n);
	uint s = 0u;
	for (uint c = lo; c < hi; c++) {
		if (flagged(c)) {
			s++;
		}
	}
	sums[t] = s;
	barrier();
	if (t == 0u) {
		uint acc = 0u;
		for (uint i = 0u; i < WG; i++) {
			uint x = sums[i];
			sums[i] = acc;
			acc += x;
		}
		count[0] = acc;
	}
	barrier();
	uint k = sums[t];
	for (uint c = lo; c < hi; c++) {
		if (flagged(c)) {
			ridx[c] = k;
			rcon[k] = c;
			rmur[k] = cmur[c];
			rmus[k] = cmus[c];
			k++;
		} else {
			ridx[c] = NONE;
		}
	}
}

// build writes block k's rows and r (mode 2).
void build(uint k) {
	uint c = rcon[k];
	dvec3 n = jacVec(c, JAC_N);
	dvec3 u = jacVec(c, JAC_U);
	precise dvec3 w = contactW(n, u);
	dvec3 dirs[3] = dvec3[3](u, w, n);
	for (uint d = 0u; d < 3u; d++) {
		uint o = 9u * k + 3u * d;
		for (uint m = 0u; m < 3u; m++) {
			precise double na = dirs[d][m] * -1.0lf;
			rrotA[o + m] = na;
			rrotB[o + m] = dirs[d][m];
		}
	}
	memoryBarrierBuffer();
	for (uint d = 0u; d < 3u; d++) {
		dst[p.off + 3u * k + d] = rollingVelocity(k, d);
	}
}

// diag returns tr(N_kk)/3 of block k (mode 5).
double diag(uint k) {
	uint c = rcon[k];
	precise double tr = 0.0lf;
	for (uint side = 0u; side < 2u; side++) {
		uint i = side == 0u ? bodyA[c] : bodyB[c];
		if (fixedBody[i] != 0u) {
			continue;
		}
		dvec3 ji = dvec3(invInertia[3u * i], invInertia[3u * i + 1u], invInertia[3u * i + 2u]);
		double qw = rot[4u * i];
		dvec3 qv = dvec3(rot[4u * i + 1u], rot[4u * i + 2u], rot[4u * i + 3u]);
		for (uint d = 0u; d < 3u; d++) {
			uint b = 9u * k + 3u * d;
			dvec3 rv = side == 0u ? dvec3(rrotA[b], rrotA[b + 1u], rrotA[b + 2u]) : dvec3(rrotB[b], rrotB[b + 1u], rrotB[b + 2u]);
			precise dvec3 rb = inBodyFrameOf(ji, qw, qv, rv);
			for (uint m = 0u; m < 3u; m++) {
				tr = tr + rb[m] * rb[m] * ji[m];
			}
		}
	}
	precise double g = tr / 3.0lf;
	return g;
}

void main() {
	if (p.mode == 1u) {
		place();
		return;
	}
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint k = gl_GlobalInvocationID.x; k < p.n; k += stride) {
		if (p.mode == 0u) {
			if (p.fromBodies != 0u) {
				uint ia = bodyA[k];
				uint ib = bodyB[k];
				cmur[k] = min(bmat[2u * ia], bmat[2u * ib]);
				cmus[k] = min(bmat[2u * ia + 1u], bmat[2u * ib + 1u]);
			}
		} else if (p.mode == 2u) {
			build(k);
		} else if (p.mode == 3u) {
			double u0 = rollingVelocity(k, 0u);
			double u1 = rollingVelocity(k, 1u);
			double u2 = rollingVelocity(k, 2u);
			dst[p.dstOff + 3u * k] = u0;
			dst[p.dstOff + 3u * k + 1u] = u1;
			dst[p.dstOff + 3u * k + 2u] = u2;
		} else if (p.mode == 4u) {
			uint o = p.off + 3u * k;
			double ru = src[o];
			double rw = src[o + 1u];
			double s = src[o + 2u];
			projectRolling(dst[3u * rcon[k]], ru, rw, s, rmur[k], rmus[k]);
			dst[o] = ru;
			dst[o + 1u] = rw;
			dst[o + 2u] = s;
		} else if (p.mode == 5u) {
			double g = diag(k);
			uint o = p.off + 3u * k;
			dst[o] = g;
			dst[o + 1u] = g;
			dst[o + 2u] = g;
		} else if (p.mode == 6u) {
			for (uint d = 0u; d < 3u; d++) {
				dst[p.dstOff + 3u * k + d] = src[p.srcOff + 3u * k + d];
			}
		} else if (p.mode == 7u) {
			uint r = ridx[k];
			for (uint d = 0u; d < 3u; d++) {
				dst[3u * k + d] = r == NONE ? 0.0lf : src[p.off + 3u * r + d];
			}
		} else {
			uint c = rcon[k];
			for (uint d = 0u; d < 3u; d++) {
				dst[p.off + 3u * k + d] = src[3u * c + d];
			}
		}
	}
}
