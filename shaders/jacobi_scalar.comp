#version 450
// jacobi_scalar: the scalar steps of the device Jacobi solver (gpu/jacobi.go),
// one invocation; engine.Jacobi's host arithmetic (its progress and loop
// test), operation for operation, on the dot products apgd_sum.comp left
// in s.dots: ‖γ − Π(γ − g_d(Nγ + r))‖², γᵀNγ, rᵀγ. It runs only while the
// solver's phase is one of those in the gate mask.
//
//	mode 1 (after an iteration): iter++
//	res = sqrt(dots[0])/(n·g_d); f = 0.5·dots[1] + dots[2]
//	if res or f is NaN or infinite { err = 1; phase = done }   // at iteration iter
//	else {
//		mode 1: hist[3(iter−1):3iter] = (res, f, ω) while iter ≤ histCap
//		if !(res ≥ tol) || iter ≥ maxIter { phase = done }
//	}
//
// mode 0 is the same for the initial guess, without iter++ and history.
// Every operation `precise`: the host's float64 values bit for bit where
// division and square root are correctly rounded.
// Bindings (set 0): 0 s (the solver's scalars, read and written; layout in
// gpu/apgd.go: fx holds f, res the residual), 1 hist (written; 3 float64
// per iteration).
// Arguments: double tol, double gd, double omega, uint mode, uint gate,
// uint n, uint maxIter, uint histCap (44 bytes).
// Dispatch: (1, 1, 1), one workgroup of 1.
layout(local_size_x = 1) in;

#define SCALARS_BINDING 0
#define SCALARS_ACCESS
#include "apgd_scalars.glsl"
layout(std430, set = 0, binding = 1) writeonly buffer Hist { double hist[]; };
layout(std430, binding = 31) restrict readonly buffer Push {
	double tol;
	double gd;
	double omega;
	uint mode;
	uint gate;
	uint n;
	uint maxIter;
	uint histCap;
} p;

const uint DONE = 4u;

void main() {
	if ((p.gate & (1u << s.phase)) == 0u) {
		return;
	}
	if (p.mode == 1u) {
		s.iter = s.iter + 1u;
	}
	precise double scale = double(p.n) * p.gd;
	precise double res = sqrt(s.dots[0]) / scale;
	precise double hf = 0.5lf * s.dots[1];
	precise double f = hf + s.dots[2];
	s.res = res;
	s.fx = f;
	if (isnan(res) || isinf(res) || isnan(f) || isinf(f)) {
		s.err = 1u;
		s.phase = DONE;
		return;
	}
	if (p.mode == 1u && s.iter <= p.histCap) {
		uint h = 3u * (s.iter - 1u);
		hist[h] = res;
		hist[h + 1u] = f;
		hist[h + 2u] = p.omega;
	}
	if (!(res >= p.tol) || s.iter >= p.maxIter) {
		s.phase = DONE;
	}
}
