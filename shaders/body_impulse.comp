#version 450
// body_impulse: dv_i = M_i⁻¹ (D x)_i for every body i, the first half of
// the matrix-free Schur product N x = Dᵀ M⁻¹ D x (cpuref's bodyImpulse): a
// gather over the body's contacts in contact order, so the sum is
// deterministic and needs no atomics.
//
// Loop, for each body i (entries e of the CSR list adj[adjOff[i]:adjOff[i+1]],
// e = 2k + side, side 0: body A of contact k, 1: body B; n, u, s_A, s_B =
// jac[12k:12k+12], world frame):
//
//	if fixed[i] { dv[6i:6i+6] = 0; continue }
//	f, τ := 0, 0
//	for _, e := range adj[adjOff[i]:adjOff[i+1]] {
//		k := e >> 1; F := γ_0 n + γ_1 u + γ_2 w   // γ = x[3k:3k+3], w = n × u
//		if e&1 == 0 { F = −F; s := s_A } else { s := s_B }
//		f += F; τ += s × F
//	}
//	dv[6i:6i+6] = (invMass[i]·f, invInertiaW_i τ)    // j·τ for an isotropic body
//
// componentwise, each sum left to right, every operation `precise`: bit for
// bit cpuref's bodyImpulse (lib/body_impulse.glsl's bodyImpulse, which
// also adds the body's joint rows first, and each contact's rolling
// block's torques to the contact's: engine.RollingRows).
// Bindings (set 0, declared by lib/body_impulse.glsl): 0 dv (written;
// 6 float64 per body: linear m/s, angular rad/s, world frame), 1 x
// (3 per contact, N·s), 2 adjOff (n+1 uint32), 3 adj (uint32 entries),
// 4 jac (12 per contact, 8 with lib/jac.glsl's JAC_ARMS), 5 invMass (1 per
// body), 6 invInertia (3 per body), 7 fixedBody (uint32 per body), 8
// jadjOff (n+1 uint32), 9 jadj (uint32 entries), 10 jlin, 11 jrotA, 12
// jrotB (3 per joint row), 13 invInertiaW (6 per body), 14 ridx (uint32 per
// contact: its rolling block or 0xffffffff), 15 rrotA, 16 rrotB (9 float64
// per rolling block); all read except dv.
// Arguments: uint n, uint jbase (3nc: x's first joint row), uint nr
// (rolling blocks), uint rbase (3nc + nj: x's first rolling row) (16
// bytes).
// Dispatch: (min(⌈n/64⌉, max group count), 1, 1) workgroups of 64; a
// grid-stride loop covers any n.
layout(local_size_x = 64) in;

layout(std430, binding = 31) restrict readonly buffer Push {
	uint n;
	uint jbase;
	uint nr;
	uint rbase;
} p;

#define BODY_IMPULSE_ROLLING
#define BODY_IMPULSE_NR p.nr
#define BODY_IMPULSE_RBASE p.rbase
#include "store.glsl"
#include "body_impulse.glsl"

void main() {
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) {
		bodyImpulse(i, p.jbase);
	}
}
