#version 450
// pdip_cg: the vector steps of the device PCG solve of PDIP's Newton
// systems (M N̂ M + H) x = b (gpu/pcg.go; engine's pdipCG.solve), with
// N̂ = N/s_N, M = diag(mask) and H and the preconditioner P = g I + H block
// diagonal: per contact k, h_k (7: D_k's diagonal, f_k, g_k) and the LDLᵀ
// factors l_k (6: the pivots, then L_10, L_20, L_21) of engine's
// pdipWork.newton, per joint row r, H_rr and g_r + H_rr. Run only while
// the phase (lib/pcg_scalars.glsl) is 0 (running).
//
// For each contact k (rows i = 3k + d) or joint row, by mode:
//
//	mode 0 (start):  x = 0; r = b; z = P⁻¹r; d = z
//	mode 1 (q = Nd on entry): q = (1/s_N)·q + 0·q; q = q·mask (when masked);
//	                 q = 1·q + 1·(H d)
//	mode 2:          x = 1·x + α·d; r = 1·r + (−α)·q; z = P⁻¹r
//	mode 3:          d = 1·z + β·d
//
// with α and β from s. H d and P⁻¹r are engine's applyH and applyPrec:
//
//	μ_k = 0: (H d)_k = (h0·d0, 0, 0), (P⁻¹r)_k = (r0/l0, 0, 0)
//	else:    σ = h3·((h4·d0 + h5·d1) + h6·d2);
//	         (H d)_k = (h0·d0 + σ·h4, h1·d1 + σ·h5, h2·d2 + σ·h6)
//	         y1 = r1 − l3·r0; y2 = (r2 − l4·r0) − l5·y1; z2 = y2/l2;
//	         z1 = y1/l1 − l5·z2; z0 = (r0/l0 − l3·z1) − l4·z2
//	joint r: (H d)_r = H_rr·d_r, (P⁻¹r)_r = r_r/(g_r + H_rr)
//
// and every other step is the LinAlg operation engine's loop calls (Fill,
// Copy, Axpby, MulElem), operation for operation, every one `precise`: the
// host-driven solve's vectors bit for bit where division is correctly
// rounded.
// Bindings (set 0): 0 x, 1 r, 2 z, 3 d, 4 q (3 float64 per contact, then 1
// per joint row; written), 5 b (read, as x), 6 blocks (read: h, 7 per
// contact, at 0; l, 6 per contact, at 7nc; H_rr at 13nc; g_r + H_rr at
// 13nc + nj), 7 mask (read, as x; any buffer when unmasked), 8 mu (read;
// lib/contact_material.glsl), 9 s (read; lib/pcg_scalars.glsl).
// Arguments: double invSN, uint nc, uint nj, uint mode, uint masked
// (24 bytes).
// Dispatch: (min(⌈(nc+nj)/64⌉, max group count), 1, 1) workgroups of 64; a
// grid-stride loop covers any nc.
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) buffer X { double x[]; };
layout(std430, set = 0, binding = 1) buffer R { double r[]; };
layout(std430, set = 0, binding = 2) buffer Z { double z[]; };
layout(std430, set = 0, binding = 3) buffer D { double d[]; };
layout(std430, set = 0, binding = 4) buffer Q { double q[]; };
layout(std430, set = 0, binding = 5) readonly buffer B { double b[]; };
layout(std430, set = 0, binding = 6) readonly buffer Blocks { double blk[]; };
layout(std430, set = 0, binding = 7) readonly buffer Mask { double mask[]; };
layout(std430, set = 0, binding = 8) readonly buffer Mu { double mu[]; };
#include "contact_material.glsl"
#define SCALARS_BINDING 9
#define SCALARS_ACCESS readonly
#include "pcg_scalars.glsl"
layout(std430, binding = 31) restrict readonly buffer Push {
	double invSN;
	uint nc;
	uint nj;
	uint mode;
	uint masked;
} p;

#include "axpby.glsl"

// precondition sets z = P⁻¹r on contact k's rows.
void precondition(uint k) {
	uint i = 3u * k;
	uint o = 7u * p.nc + 6u * k;
	if (MU(k) == 0.0lf) {
		precise double z0 = r[i] / blk[o];
		z[i] = z0;
		z[i + 1u] = 0.0lf;
		z[i + 2u] = 0.0lf;
		return;
	}
	precise double y0 = r[i];
	precise double y1 = r[i + 1u] - blk[o + 3u] * y0;
	precise double y2 = r[i + 2u] - blk[o + 4u] * y0 - blk[o + 5u] * y1;
	precise double z2 = y2 / blk[o + 2u];
	precise double z1 = y1 / blk[o + 1u] - blk[o + 5u] * z2;
	precise double z0 = y0 / blk[o] - blk[o + 3u] * z1 - blk[o + 4u] * z2;
	z[i] = z0;
	z[i + 1u] = z1;
	z[i + 2u] = z2;
}

// applyH returns (H d) on contact k's row i = 3k + e.
precise double applyH(uint k, uint e) {
	uint i = 3u * k;
	uint o = 7u * k;
	if (MU(k) == 0.0lf) {
		precise double h0 = blk[o] * d[i];
		return e == 0u ? h0 : 0.0lf;
	}
	precise double sg = blk[o + 3u] * (blk[o + 4u] * d[i] + blk[o + 5u] * d[i + 1u] + blk[o + 6u] * d[i + 2u]);
	precise double he = blk[o + e] * d[i + e] + sg * blk[o + 4u + e];
	return he;
}

void main() {
	if (s.phase != 0u) {
		return;
	}
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint k = gl_GlobalInvocationID.x; k < p.nc + p.nj; k += stride) {
		bool joint = k >= p.nc;
		uint rj = k - p.nc;
		uint i0 = joint ? 3u * p.nc + rj : 3u * k;
		uint rows = joint ? 1u : 3u;
		if (p.mode == 0u || p.mode == 2u) {
			double a = s.alpha;
			for (uint e = 0u; e < rows; e++) {
				uint i = i0 + e;
				if (p.mode == 0u) {
					x[i] = 0.0lf;
					r[i] = b[i];
				} else {
					x[i] = axpby(1.0lf, x[i], a, d[i]);
					r[i] = axpby(1.0lf, r[i], -a, q[i]);
				}
			}
			if (joint) {
				precise double zj = r[i0] / blk[13u * p.nc + p.nj + rj];
				z[i0] = zj;
			} else {
				precondition(k);
			}
			if (p.mode == 0u) {
				for (uint e = 0u; e < rows; e++) {
					d[i0 + e] = z[i0 + e];
				}
			}
			continue;
		}
		for (uint e = 0u; e < rows; e++) {
			uint i = i0 + e;
			if (p.mode == 3u) {
				d[i] = axpby(1.0lf, z[i], s.beta, d[i]);
				continue;
			}
			precise double qi = axpby(p.invSN, q[i], 0.0lf, q[i]);
			if (p.masked != 0u) {
				qi = qi * mask[i];
			}
			precise double hd;
			if (joint) {
				hd = blk[13u * p.nc + rj] * d[i];
			} else {
				hd = applyH(k, e);
			}
			q[i] = axpby(1.0lf, qi, 1.0lf, hd);
		}
	}
}
