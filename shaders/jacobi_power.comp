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
// Push constants: uint mode (4 bytes).
// Dispatch: (1, 1, 1), one workgroup of 1.
layout(local_size_x = 1) in;

layout(std430, set = 0, binding = 0) buffer Scalars {
	double L;        // Lipschitz estimate
	double t;        // step size 1/L
	double theta;    // θ_k
	double thetaNew; // θ_{k+1}
	double beta;     // β_{k+1}
	double fx;       // f(γ_{k+1}) of the accepted trial
	double res;      // r(γ_{k+1}), eq. 25
	double rmin;     // smallest residual so far
	double fBest;    // objective at the best iterate
	double dots[4];  // the reductions of apgd_sum
	uint phase;      // 0 start, 1 trial, 2 accept, 3 step, 4 done
	uint flags;      // 1 improved, 2 restart, 4 stop
	uint iter;       // iterations completed
	uint bt;         // step-size halvings of this iteration
	uint err;        // 0, 1 backtracking did not end, 2 objective NaN
	uint pad;
} s;
layout(push_constant) uniform Push {
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
