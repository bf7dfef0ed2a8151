#version 450
// pdip_cg_scalar: the scalar steps of the device PCG solve of PDIP's Newton
// systems (gpu/pcg.go), one invocation; engine's pdipCG.solve's host
// arithmetic and loop test, operation for operation, on the dot product
// apgd_sum.comp left in s.dots[0]. Run only while the phase is 0 (running).
//
//	mode 0 (r₀ᵀz₀): rz = dots[0]; not finite: err 1, done;
//	                stop = stopFactor·rz; done unless maxIter > 0 and rz > stop
//	mode 1 (dᵀq):   not finite: err 2, done; ≤ 0: done, flags = 1 at
//	                iteration 0 (x = z); else α = rz/dᵀq
//	mode 2 (rᵀz):   not finite: err 3, done; β = rᵀz/rz; rz = rᵀz; iter++;
//	                done unless iter < maxIter and rz > stop
//
// (value keeps the number that ended the solve for errors 1 to 3 and for
// dᵀq ≤ 0.) Every operation `precise`: the host's float64 values bit for
// bit where division is correctly rounded.
// Bindings (set 0): 0 s (read and written; lib/pcg_scalars.glsl).
// Arguments: double stopFactor, uint mode, uint maxIter (16 bytes).
// Dispatch: (1, 1, 1), one workgroup of 1.
layout(local_size_x = 1) in;

#define SCALARS_BINDING 0
#define SCALARS_ACCESS
#include "pcg_scalars.glsl"
layout(std430, binding = 31) restrict readonly buffer Push {
	double stopFactor;
	uint mode;
	uint maxIter;
} p;

#include "finite.glsl"

const uint DONE = 4u;

// fail ends the solve with error e at value v.
void fail(uint e, double v) {
	s.err = e;
	s.value = v;
	s.phase = DONE;
}

void main() {
	if (s.phase != 0u) {
		return;
	}
	double v = s.dots[0];
	if (p.mode == 0u) {
		s.rz = v;
		if (!finite(v)) {
			fail(1u, v);
			return;
		}
		precise double stop = p.stopFactor * v;
		s.stop = stop;
		if (!(0u < p.maxIter && v > stop)) {
			s.phase = DONE;
		}
		return;
	}
	if (p.mode == 1u) {
		if (!finite(v)) {
			fail(2u, v);
			return;
		}
		if (v <= 0.0lf) {
			s.value = v;
			if (s.iter == 0u) {
				s.flags = 1u;
			}
			s.phase = DONE;
			return;
		}
		precise double a = s.rz / v;
		s.alpha = a;
		return;
	}
	if (!finite(v)) {
		fail(3u, v);
		return;
	}
	precise double bt = v / s.rz;
	s.beta = bt;
	s.rz = v;
	s.iter = s.iter + 1u;
	if (!(s.iter < p.maxIter && v > s.stop)) {
		s.phase = DONE;
	}
}
