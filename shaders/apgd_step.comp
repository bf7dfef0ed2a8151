#version 450
// apgd_step: x'_k = Π_Υk(y_k − t g_k) for every contact k, line 8 of
// Algorithm 1 of the APGD paper, with the step size t read from the device
// APGD solver's scalars; run only while the solver's phase is one of those
// in the gate mask (gpu/apgd.go).
//
// Loop: if (gate & (1 << s.phase)) == 0 return; then for each contact k
//
//	z := y[3k:3k+3]·1 + g[3k:3k+3]·(−s.t)  // axpby.comp's two rounded products and sum
//	xNew[3k:3k+3] = Π(z)                    // project.comp's branches
//
// the operations of engine.APGD's Axpby(xNew, 1, y, −t, g) then
// Project(xNew, xNew) on the Vulkan backend, every one `precise`: the same
// values bit for bit.
// Bindings (set 0): 0 xNew (written; 3 float64 per contact), 1 y, 2 g
// (3 per contact), 3 mu, 4 coh (1 per contact), 5 s (read; the solver's
// scalars).
// Push constants: uint nc, uint gate (8 bytes).
// Dispatch: (min(⌈nc/64⌉, max group count), 1, 1) workgroups of 64; a
// grid-stride loop covers any nc.
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) writeonly buffer XNew { double xNew[]; };
layout(std430, set = 0, binding = 1) readonly buffer Y { double y[]; };
layout(std430, set = 0, binding = 2) readonly buffer G { double g[]; };
layout(std430, set = 0, binding = 3) readonly buffer Mu { double mu[]; };
layout(std430, set = 0, binding = 4) readonly buffer Coh { double coh[]; };
layout(std430, set = 0, binding = 5) readonly buffer Scalars {
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
	uint nc;
	uint gate;
} p;

// proj is project.comp's Π_Υ of (xn, xu, xw) for friction μ = m and
// cohesion impulse c, branch for branch and operation for operation.
void proj(double xn, double xu, double xw, double m, double c, out double on, out double ou, out double ow) {
	precise double n = xn + c;
	precise double t = sqrt(xu * xu + xw * xw);
	precise double mn = m * n;
	precise double mt = m * t;
	if (m == 0.0lf) {
		double mx = n;
		if (!(n > 0.0lf) && !isnan(n)) {
			mx = 0.0lf;
		}
		precise double o = mx - c;
		on = o;
		ou = 0.0lf;
		ow = 0.0lf;
	} else if (t <= mn) {
		on = xn;
		ou = xu;
		ow = xw;
	} else if (mt <= -n) {
		on = -c;
		ou = 0.0lf;
		ow = 0.0lf;
	} else {
		precise double np = (mt + n) / (m * m + 1.0lf);
		precise double sc = m * np / t;
		precise double o0 = np - c;
		precise double o1 = xu * sc;
		precise double o2 = xw * sc;
		on = o0;
		ou = o1;
		ow = o2;
	}
}
void main() {
	if ((p.gate & (1u << s.phase)) == 0u) {
		return;
	}
	double nt = -s.t;
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint k = gl_GlobalInvocationID.x; k < p.nc; k += stride) {
		double z[3];
		for (uint d = 0u; d < 3u; d++) {
			uint i = 3u * k + d;
			precise double ax = 1.0lf * y[i];
			precise double by = nt * g[i];
			precise double zi = ax + by;
			z[d] = zi;
		}
		double on, ou, ow;
		proj(z[0], z[1], z[2], mu[k], coh[k], on, ou, ow);
		xNew[3u * k] = on;
		xNew[3u * k + 1u] = ou;
		xNew[3u * k + 2u] = ow;
	}
}
