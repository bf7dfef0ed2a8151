#version 450
// block_diag: dst_3k = dst_3k+1 = dst_3k+2 = g_k = tr(N_kk)/3 for every
// contact k, N_kk = D_kᵀ M⁻¹ D_k, the block-Jacobi preconditioner of eq. 27
// of the APGD paper (cpuref's BlockDiag).
//
// Loop, for each contact k (A = a[k], B = b[k]; n, u, s_A, s_B =
// jac[12k:12k+12], w = n × u):
//
//	tr := 3*(invMass[A] + invMass[B])            // |d|² = 1 for n, u, w
//	for _, d := range {n, u, w} {
//		ρ_A := inBodyFrame(A, d × s_A); ρ_B := inBodyFrame(B, s_B × d)
//		for m := 0; m < 3; m++ {
//			tr += ρ_A,m·ρ_A,m·invInertia[3A+m] + ρ_B,m·ρ_B,m·invInertia[3B+m]
//		}
//	}
//	dst[3k], dst[3k+1], dst[3k+2] = tr/3, tr/3, tr/3
//
// with inBodyFrame(i, ρ) = Rᵀρ, or ρ for an isotropic body
// (lib/contact_row.glsl's inBodyFrameOf). Every operation `precise`, in
// cpuref's order: bit for bit equal where float64 division is correctly
// rounded.
// Bindings (set 0): 0 dst (written; 3 float64 per contact), 1 a, 2 b
// (uint32 body indices), 3 jac (12 per contact, 8 with lib/jac.glsl's
// JAC_ARMS), 4 invMass (1 per body), 5 invInertia (3 per body), 6 rot (4
// per body).
// Arguments: uint nc (4 bytes).
// Dispatch: (min(⌈nc/64⌉, max group count), 1, 1) workgroups of 64; a
// grid-stride loop covers any nc.
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) writeonly buffer Dst { double dst[]; };
layout(std430, set = 0, binding = 1) readonly buffer BodyA { uint bodyA[]; };
layout(std430, set = 0, binding = 2) readonly buffer BodyB { uint bodyB[]; };
#define JAC_BINDING 3
#include "jac.glsl"
layout(std430, set = 0, binding = 4) readonly buffer InvMass { double invMass[]; };
layout(std430, set = 0, binding = 5) readonly buffer InvInertia { double invInertia[]; };
layout(std430, set = 0, binding = 6) readonly buffer Rot { double rot[]; };

#include "contact_row.glsl"

layout(std430, binding = 31) restrict readonly buffer Push {
	uint nc;
} p;

void main() {
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint k = gl_GlobalInvocationID.x; k < p.nc; k += stride) {
		uint ia = bodyA[k];
		uint ib = bodyB[k];
		precise double tr = 3.0lf * (invMass[ia] + invMass[ib]);
		dvec3 n = jacVec(k, JAC_N);
		dvec3 u = jacVec(k, JAC_U);
		dvec3 sa = jacVec(k, JAC_SA);
		dvec3 sb = jacVec(k, JAC_SB);
		precise dvec3 w = contactW(n, u);
		dvec3 jia = dvec3(invInertia[3u * ia], invInertia[3u * ia + 1u], invInertia[3u * ia + 2u]);
		dvec3 jib = dvec3(invInertia[3u * ib], invInertia[3u * ib + 1u], invInertia[3u * ib + 2u]);
		double qaw = rot[4u * ia];
		dvec3 qa = dvec3(rot[4u * ia + 1u], rot[4u * ia + 2u], rot[4u * ia + 3u]);
		double qbw = rot[4u * ib];
		dvec3 qb = dvec3(rot[4u * ib + 1u], rot[4u * ib + 2u], rot[4u * ib + 3u]);
		dvec3 dirs[3] = dvec3[3](n, u, w);
		for (uint d = 0u; d < 3u; d++) {
			precise dvec3 ra = inBodyFrameOf(jia, qaw, qa, cross3(dirs[d], sa));
			precise dvec3 rb = inBodyFrameOf(jib, qbw, qb, cross3(sb, dirs[d]));
			for (uint m = 0u; m < 3u; m++) {
				tr = tr + (ra[m] * ra[m] * jia[m] + rb[m] * rb[m] * jib[m]);
			}
		}
		precise double g = tr / 3.0lf;
		dst[3u * k] = g;
		dst[3u * k + 1u] = g;
		dst[3u * k + 2u] = g;
	}
}
