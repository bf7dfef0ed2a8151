#version 450
// block_diag: dst_3k = dst_3k+1 = dst_3k+2 = g_k = tr(N_kk)/3 for every
// contact k, N_kk = D_kᵀ M⁻¹ D_k, the block-Jacobi preconditioner of eq. 27
// of the APGD paper (cpuref's BlockDiag).
//
// Loop, for each contact k (A = a[k], B = b[k]):
//
//	tr := 3*(invMass[A] + invMass[B])            // |d̂|² = 1 for n, u, w
//	for e := 0; e < 9; e++ {
//		j := e % 3
//		tr += rhoA[9k+e]*rhoA[9k+e]*invInertia[3A+j] + rhoB[9k+e]*rhoB[9k+e]*invInertia[3B+j]
//	}
//	dst[3k], dst[3k+1], dst[3k+2] = tr/3, tr/3, tr/3
//
// Every operation `precise`, in cpuref's order: bit for bit equal where
// float64 division is correctly rounded.
// Bindings (set 0): 0 dst (written; 3 float64 per contact), 1 a, 2 b
// (uint32 body indices), 3 rhoA, 4 rhoB (9 per contact), 5 invMass (1 per
// body), 6 invInertia (3 per body).
// Push constants: uint nc (4 bytes).
// Dispatch: (min(⌈nc/64⌉, max group count), 1, 1) workgroups of 64; a
// grid-stride loop covers any nc.
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) writeonly buffer Dst { double dst[]; };
layout(std430, set = 0, binding = 1) readonly buffer BodyA { uint bodyA[]; };
layout(std430, set = 0, binding = 2) readonly buffer BodyB { uint bodyB[]; };
layout(std430, set = 0, binding = 3) readonly buffer RhoA { double rhoA[]; };
layout(std430, set = 0, binding = 4) readonly buffer RhoB { double rhoB[]; };
layout(std430, set = 0, binding = 5) readonly buffer InvMass { double invMass[]; };
layout(std430, set = 0, binding = 6) readonly buffer InvInertia { double invInertia[]; };

layout(push_constant) uniform Push {
	uint nc;
} p;

void main() {
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint k = gl_GlobalInvocationID.x; k < p.nc; k += stride) {
		uint ia = bodyA[k];
		uint ib = bodyB[k];
		precise double tr = 3.0lf * (invMass[ia] + invMass[ib]);
		for (uint e = 0u; e < 9u; e++) {
			uint j = e % 3u;
			double a = rhoA[9u * k + e];
			double b = rhoB[9u * k + e];
			tr = tr + (a * a * invInertia[3u * ia + j] + b * b * invInertia[3u * ib + j]);
		}
		precise double g = tr / 3.0lf;
		dst[3u * k] = g;
		dst[3u * k + 1u] = g;
		dst[3u * k + 2u] = g;
	}
}
