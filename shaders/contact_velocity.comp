#version 450
// contact_velocity: out_k = D_kᵀ v for every contact k, the second half of
// the matrix-free Schur product N x = Dᵀ (M⁻¹ D x) (cpuref's
// contactVelocity) with v = dv from body_impulse: the relative velocity of
// the contact in its frame (n, u, w).
//
// Loop, for each contact k (A = a[k], B = b[k], v_i = v[6i:6i+3],
// ω̄_i = v[6i+3:6i+6]):
//
//	for d := 0; d < 3; d++ {
//		out[3k+d] = d̂_d·(v_B − v_A) + ρ_A,d·ω̄_A + ρ_B,d·ω̄_B   // nine products, summed left to right
//	}
//
// Every operation is `precise`: bit for bit cpuref's contactVelocity.
// Bindings (set 0): 0 out (written; 3 float64 per contact), 1 v (6 per
// body), 2 a, 3 b (uint32 body indices), 4 basis, 5 rhoA, 6 rhoB (9 per
// contact); all read except out.
// Push constants: uint nc (4 bytes).
// Dispatch: (min(⌈nc/64⌉, max group count), 1, 1) workgroups of 64; a
// grid-stride loop covers any nc.
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) writeonly buffer Out { double outv[]; };
layout(std430, set = 0, binding = 1) readonly buffer V { double v[]; };
layout(std430, set = 0, binding = 2) readonly buffer BodyA { uint bodyA[]; };
layout(std430, set = 0, binding = 3) readonly buffer BodyB { uint bodyB[]; };
layout(std430, set = 0, binding = 4) readonly buffer Basis { double basis[]; };
layout(std430, set = 0, binding = 5) readonly buffer RhoA { double rhoA[]; };
layout(std430, set = 0, binding = 6) readonly buffer RhoB { double rhoB[]; };

layout(push_constant) uniform Push {
	uint nc;
} p;

void main() {
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint k = gl_GlobalInvocationID.x; k < p.nc; k += stride) {
		uint ia = 6u * bodyA[k];
		uint ib = 6u * bodyB[k];
		precise double dx = v[ib] - v[ia];
		precise double dy = v[ib + 1u] - v[ia + 1u];
		precise double dz = v[ib + 2u] - v[ia + 2u];
		double wa0 = v[ia + 3u], wa1 = v[ia + 4u], wa2 = v[ia + 5u];
		double wb0 = v[ib + 3u], wb1 = v[ib + 4u], wb2 = v[ib + 5u];
		for (uint d = 0u; d < 9u; d += 3u) {
			uint b = 9u * k + d;
			precise double o = basis[b] * dx + basis[b + 1u] * dy + basis[b + 2u] * dz +
				rhoA[b] * wa0 + rhoA[b + 1u] * wa1 + rhoA[b + 2u] * wa2 +
				rhoB[b] * wb0 + rhoB[b + 1u] * wb1 + rhoB[b + 2u] * wb2;
			outv[3u * k + d / 3u] = o;
		}
	}
}
