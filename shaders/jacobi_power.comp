#version 450
// jacobi_power: the scalar steps of the device estimate of ρ(BN) that
// engine.Jacobi takes its step ω from (engine's spectralRadius: the power
// iteration v ← B N v and the Rayleigh quotient vᵀNv / vᵀB⁻¹v), one
// invocation, on the dot product apgd_sum.comp left in s.dots[0]:
//
//	mode 0: s.L = dots[0]              // vᵀ(G v), G = B⁻¹
//	mode 1: s.t = dots[0] / s.L        // ρ̂ = vᵀNv / vᵀGv
//
// Every operation `precise`: the host's float64 value bit for bit where
// division is correctly rounded (gpu/jacobi.go).
// Bindings (set 0): 0 s (the solver's scalars, read and written; layout in
// gpu/apgd.go).
// Arguments: uint mode (4 bytes).
// Dispatch: (1, 1, 1), one workgroup of 1.
layout(local_size_x = 1) in;

#define SCALARS_BINDING 0
#define SCALARS_ACCESS
#include "apgd_scalars.glsl"
layout(std430, binding = 31) restrict readonly buffer Push {
	uint mode;
} p;

void main() {
	if (p.mode == 0u) {
		s.L = s.dots[0];
	} else {
		precise double rho = s.dots[0] / s.L;
		s.t = rho;
	}
}
