// spg_scalars.glsl: the scalar buffer of the device P-SPG-FB solver
// (gpu/spg.go), std430, as the storage block instance s.
//
// The includer defines, before the #include:
//
//	SCALARS_BINDING  its binding in set 0, e.g. #define SCALARS_BINDING 10
//	SCALARS_ACCESS   readonly, or empty for a kernel that writes s
#if !defined(SCALARS_BINDING) || !defined(SCALARS_ACCESS)
#error define SCALARS_BINDING and SCALARS_ACCESS before including spg_scalars.glsl
#endif
layout(std430, set = 0, binding = SCALARS_BINDING) SCALARS_ACCESS buffer Scalars {
	double alpha;     // α̂_j
	double lambda;    // λ of the line search
	double dg;        // ⟨d_j, g_j⟩
	double f;         // f(x_j)
	double fNew;      // f(x_j + λd_j)
	double fMax;      // max of the last N_GLL + 1 objectives
	double w;         // the last residual (eq. 25)
	double wMin;      // the smallest residual so far (x_FB's)
	double fBest;     // f(x_FB)
	double dots[4];   // the reductions of apgd_sum
	uint phase;       // 0 dir, 1 dir2, 2 trial, 3 accept, 4 done, 5 resid
	uint flags;       // 1: x_FB = x_{j+1} (the last residual is the smallest)
	uint iter;        // iterations completed
	uint bt;          // reductions of λ in this line search
	uint err;         // 0; 1 initial guess, 2 objective, 3 residual not finite
	uint nHist;       // objectives in fHist
	double fHist[11]; // f(x_{j−i}), i = 0…N_GLL
	double step;      // λα̂ of the accepted step, for the history
} s;
