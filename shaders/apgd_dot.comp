#version 450
// apgd_dot: the first pass of the device APGD solver's dot products
// (gpu/apgd.go; the device Jacobi and SPG solvers' too): up to four
// at once, each summed over chunks of 2048 elements exactly as dot.comp
// sums one (apgd_sum.comp is the second pass);
// run only while the solver's phase is one of those in the gate mask.
//
// The pairs (a_q, b_q) of each mode, with d = v0 − v3 and e = v1 − v4
// formed element by element as axpby.comp's 1·x + (−1)·y:
//
//	mode 0: v0·v0, v1·v1                 (init: ‖γ₀ − 1‖², ‖N(γ₀ − 1)‖²)
//	mode 1: v0·v1, v2·v0, d·e, d·d       (trial: γ'ᵀNγ', rᵀγ', ΔᵀNΔ, ‖Δ‖²)
//	mode 2: v0·v0, v1·(v3 − v4)          (accept: residual², gᵀ(γ_{k+1} − γ_k))
//	mode 3: v0·v1, v2·v0                 (objective: γ̂ᵀNγ̂, r₀ᵀγ̂)
//	mode 4: v0·v0, v1·v2, v3·v1          (device Jacobi, gpu/jacobi.go, and SPG,
//	                                      gpu/spg.go: residual², γᵀNγ, rᵀγ)
//	mode 5: v0·v1, (v0∘v0)·v2, (v1∘v1)·v3 (device SPG: ⟨d, y⟩, ⟨d∘d, diag⟩,
//	                                      ⟨y∘y, inv⟩; ∘ a rounded product)
//
// Loop, for each pair q and chunk c (one workgroup per chunk; thread t of
// 256), dot.comp's:
//
//	for t := 0; t < 256; t++ { s[t] = Σ_{i = lo+t, lo+t+256, … < hi} a_q[i]·b_q[i] }
//	for h := 128; h > 0; h /= 2 { for t := 0; t < h; t++ { s[t] += s[t+h] } }
//	partial[q·chunks + c] = s[0]
//
// Every operation `precise`, the order fixed: each sum equals LinAlg.Dot's
// of the same vectors bit for bit.
// Bindings (set 0): 0 partial (written; 4·⌈n/2048⌉ float64), 1–5 v0–v4
// (read; n float64; unused ones may be any buffer), 6 s (read; the
// solver's scalars). apgd_dot_f32 (lib/store.glsl) reads v0, v1, v3 and
// v4 as float32 (the APGD work vectors) and v2 as float64 (r in modes 1
// and 3); only the device APGD solver binds it, in modes 0–3.
// Arguments: uint n, uint mode, uint gate (12 bytes).
// Dispatch: (min(⌈n/2048⌉, max group count), 1, 1) workgroups of 256; a
// workgroup loops over chunks c, c + groups, ….
layout(local_size_x = 256) in;

const uint CHUNK = 2048;
const uint WG = 256;

layout(std430, set = 0, binding = 0) writeonly buffer Partial { double partial[]; };
#include "store.glsl"
layout(std430, set = 0, binding = 1) readonly buffer V0 { STORE v0[]; };
layout(std430, set = 0, binding = 2) readonly buffer V1 { STORE v1[]; };
layout(std430, set = 0, binding = 3) readonly buffer V2 { double v2[]; };
layout(std430, set = 0, binding = 4) readonly buffer V3 { STORE v3[]; };
layout(std430, set = 0, binding = 5) readonly buffer V4 { STORE v4[]; };
#define SCALARS_BINDING 6
#define SCALARS_ACCESS readonly
#include "apgd_scalars.glsl"
layout(std430, binding = 31) restrict readonly buffer Push {
	uint n;
	uint mode;
	uint gate;
} p;

shared double sh[4][WG];

#include "axpby.glsl"

void main() {
	if ((p.gate & (1u << s.phase)) == 0u) {
		return;
	}
	uint t = gl_LocalInvocationID.x;
	uint nc = (p.n + CHUNK - 1) / CHUNK;
	uint pairs = p.mode == 1u ? 4u : (p.mode >= 4u ? 3u : 2u);
	for (uint c = gl_WorkGroupID.x; c < nc; c += gl_NumWorkGroups.x) {
		uint lo = c * CHUNK;
		uint hi = min(lo + CHUNK, p.n);
		precise double acc0 = 0.0lf;
		precise double acc1 = 0.0lf;
		precise double acc2 = 0.0lf;
		precise double acc3 = 0.0lf;
		for (uint i = lo + t; i < hi; i += WG) {
			if (p.mode == 0u) {
				precise double a = double(v0[i]) * double(v0[i]);
				precise double b = double(v1[i]) * double(v1[i]);
				acc0 = acc0 + a;
				acc1 = acc1 + b;
			} else if (p.mode == 1u) {
				double d = axpby(1.0lf, double(v0[i]), -1.0lf, double(v3[i]));
				double e = axpby(1.0lf, double(v1[i]), -1.0lf, double(v4[i]));
				precise double a = double(v0[i]) * double(v1[i]);
				precise double b = double(v2[i]) * double(v0[i]);
				precise double de = d * e;
				precise double dd = d * d;
				acc0 = acc0 + a;
				acc1 = acc1 + b;
				acc2 = acc2 + de;
				acc3 = acc3 + dd;
			} else if (p.mode == 2u) {
				double d = axpby(1.0lf, double(v3[i]), -1.0lf, double(v4[i]));
				precise double a = double(v0[i]) * double(v0[i]);
				precise double b = double(v1[i]) * d;
				acc0 = acc0 + a;
				acc1 = acc1 + b;
			} else if (p.mode == 5u) {
				precise double a = double(v0[i]) * double(v1[i]);
				precise double dd = double(v0[i]) * double(v0[i]);
				precise double b = dd * double(v2[i]);
				precise double yy = double(v1[i]) * double(v1[i]);
				precise double c = yy * double(v3[i]);
				acc0 = acc0 + a;
				acc1 = acc1 + b;
				acc2 = acc2 + c;
			} else if (p.mode == 4u) {
				precise double a = double(v0[i]) * double(v0[i]);
				precise double b = double(v1[i]) * double(v2[i]);
				precise double c = double(v3[i]) * double(v1[i]);
				acc0 = acc0 + a;
				acc1 = acc1 + b;
				acc2 = acc2 + c;
			} else {
				precise double a = double(v0[i]) * double(v1[i]);
				precise double b = double(v2[i]) * double(v0[i]);
				acc0 = acc0 + a;
				acc1 = acc1 + b;
			}
		}
		sh[0][t] = acc0;
		sh[1][t] = acc1;
		sh[2][t] = acc2;
		sh[3][t] = acc3;
		barrier();
		for (uint h = WG / 2; h > 0; h >>= 1) {
			if (t < h) {
				for (uint q = 0u; q < 4u; q++) {
					precise double v = sh[q][t] + sh[q][t + h];
					sh[q][t] = v;
				}
			}
			barrier();
		}
		if (t == 0) {
			for (uint q = 0u; q < pairs; q++) {
				partial[q * nc + c] = sh[q][0];
			}
		}
		barrier();
	}
}
