// apgd_scalars.glsl: the scalar buffer of the device APGD solver
// (gpu/apgd.go; the device Jacobi solver, gpu/jacobi.go, uses the same
// layout), std430, as the storage block instance s: 152 bytes, the last 24
// of them Lmin, rlow and Lrej, which only apgd_scalar reads and writes. Every buffer bound
// to it is the backend's scalar buffer (gpu/devsolve.go's
// devScalarBuffer, 256 bytes).
//
// The includer defines, before the #include:
//
//	SCALARS_BINDING  its binding in set 0, e.g. #define SCALARS_BINDING 4
//	SCALARS_ACCESS   readonly, or empty for a kernel that writes s
#if !defined(SCALARS_BINDING) || !defined(SCALARS_ACCESS)
#error define SCALARS_BINDING and SCALARS_ACCESS before including apgd_scalars.glsl
#endif
layout(std430, set = 0, binding = SCALARS_BINDING) SCALARS_ACCESS buffer Scalars {
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
	uint trials;     // line-search trials so far, one product with N each (apgd_scalar)
	double Lmin;     // the floor under L, εL₀ (apgd_scalar)
	double rlow;     // smallest residual so far, where rmin is the best iterate's (apgd_scalar_f32)
	double Lrej;     // the curvature the last rejected trial needed (apgd_scalar)
} s;
