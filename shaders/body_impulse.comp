#version 450
// body_impulse: dv_i = M_i⁻¹ (D x)_i for every body i, the first half of
// the matrix-free Schur product N x = Dᵀ M⁻¹ D x (cpuref's bodyImpulse): a
// gather over the body's contacts in contact order, so the sum is
// deterministic and needs no atomics.
//
// Loop, for each body i (entries e of the CSR list adj[adjOff[i]:adjOff[i+1]],
// e = 2k + side, side 0: body A of contact k, 1: body B; d̂ = basis rows):
//
//	if fixed[i] { dv[6i:6i+6] = 0; continue }
//	f, τ := 0, 0
//	for _, e := range adj[adjOff[i]:adjOff[i+1]] {
//		k := e >> 1; γ := x[3k:3k+3]
//		if e&1 == 0 { f += (−γ_0)d̂_0 + (−γ_1)d̂_1 + (−γ_2)d̂_2; ρ := rhoA_k }
//		else        { f +=   γ_0 d̂_0 +   γ_1 d̂_1 +   γ_2 d̂_2;  ρ := rhoB_k }
//		τ += γ_0 ρ_0 + γ_1 ρ_1 + γ_2 ρ_2
//	}
//	dv[6i:6i+6] = (invMass[i]·f, invInertia_i ∘ τ)
//
// componentwise, each sum left to right, every operation `precise`: bit for
// bit cpuref's bodyImpulse (lib/body_impulse.glsl's bodyImpulse, which
// also adds the body's joint rows first, and each contact's rolling
// block's torques to the contact's: engine.RollingRows).
// Bindings (set 0, declared by lib/body_impulse.glsl): 0 dv (written;
// 6 float64 per body: linear m/s, angular rad/s in the body frame), 1 x
// (3 per contact, N·s), 2 adjOff (n+1 uint32), 3 adj (uint32 entries),
// 4 basis, 5 rhoA, 6 rhoB (9 per contact), 7 invMass (1 per body),
// 8 invInertia (3 per body), 9 fixedBody (uint32 per body), 10 jadjOff
// (n+1 uint32), 11 jadj (uint32 entries), 12 jlin, 13 jrotA, 14 jrotB (3
// per joint row), 15 ridx (uint32 per contact: its rolling block or
// 0xffffffff), 16 rrotA, 17 rrotB (9 float64 per rolling block); all read
// except dv.
// Push constants: uint n, uint jbase (3nc: x's first joint row), uint nr
// (rolling blocks), uint rbase (3nc + nj: x's first rolling row) (16
// bytes).
// Dispatch: (min(⌈n/64⌉, max group count), 1, 1) workgroups of 64; a
// grid-stride loop covers any n.
layout(local_size_x = 64) in;

layout(push_constant) uniform Push {
	uint n;
	uint jbase;
	uint nr;
	uint rbase;
} p;

#define BODY_IMPULSE_ROLLING
#define BODY_IMPULSE_NR p.nr
#define BODY_IMPULSE_RBASE p.rbase
#include "body_impulse.glsl"

void main() {
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) {
		bodyImpulse(i, p.jbase);
	}
}
