// pcg_scalars.glsl: the scalar buffer of the device PCG solve of PDIP's
// Newton systems (gpu/pcg.go), std430, as the storage block instance s:
// the first 128 bytes in apgd_scalars.glsl's layout where the shared
// kernels read and write them (dots at 72, phase at 104, iter at 112; the
// device solvers' scalar buffer, gpu/devsolve.go).
//
// The includer defines, before the #include:
//
//	SCALARS_BINDING  its binding in set 0, e.g. #define SCALARS_BINDING 9
//	SCALARS_ACCESS   readonly, or empty for a kernel that writes s
#if !defined(SCALARS_BINDING) || !defined(SCALARS_ACCESS)
#error define SCALARS_BINDING and SCALARS_ACCESS before including pcg_scalars.glsl
#endif
layout(std430, set = 0, binding = SCALARS_BINDING) SCALARS_ACCESS buffer Scalars {
	double rz;      // rᵀz of the current residual
	double stop;    // the stopping threshold tol²·r₀ᵀz₀
	double alpha;   // rz / dᵀq of this iteration
	double beta;    // rᵀz of the next residual over rz
	double value;   // the value that was not finite (err 1 to 3) or dᵀq ≤ 0
	double pad[4];
	double dots[4]; // the reductions of apgd_sum
	uint phase;     // 0 running, 4 done
	uint flags;     // 1: x = z (curvature dᵀq ≤ 0 at the first iteration)
	uint iter;      // iterations completed
	uint bt;        // unused, 0 (runBlocks reads it)
	uint err;       // 0; 1 r₀ᵀz₀, 2 dᵀq, 3 rᵀz not finite
} s;
