#version 450
// spg_scalar: the scalar steps of the device P-SPG-FB solver (gpu/spg.go),
// one invocation: engine.SPG's host arithmetic, operation for operation, on
// the dot products apgd_sum.comp left in s.dots. It runs only while the
// solver's phase is the one in the gate mask. With n = 3n_c, DONE = 4:
//
//	mode 0, init (lines 1–3), dots = ‖x₀ − Π(x₀ − g_d(Nx₀ + r))‖², x₀ᵀNx₀, rᵀx₀:
//		w = sqrt(dots[0])/(n·g_d); f = 0.5·dots[1] + dots[2]
//		not finite: err = 1, DONE
//		wMin = w; fBest = f; α̂ = 1; fHist[0] = f; nHist = 1
//		phase = maxIter > 0 && wMin ≥ tol ? dir : DONE
//	mode 1, dir (line 7), dots[0] = ⟨d, g⟩: dg = dots[0]; dg ≥ 0 ? phase = dir2 : start the line search
//	mode 2, dir2 (line 8): dg = dots[0]; start the line search
//	    start: fMax = max of fHist[0…nHist); λ = 1; bt = 0; phase = trial
//	mode 3, trial (lines 11–16), dots = x'ᵀNx', rᵀx':
//		fNew = 0.5·dots[0] + dots[1]; not finite: err = 2, DONE
//		fNew ≤ fMax + (γλ)·dg: phase = accept
//		else bt == 100: DONE (stalled: x_FB is returned)
//		else next = σ_max·λ; den = (fNew − f) − λ·dg
//		     if den > 0 { next = min(next, max(σ_min·λ, (((−0.5λ)λ)dg)/den)) }
//		     λ = next; bt++
//	mode 4, accept (lines 17–20), dots = ⟨d, y⟩, ⟨d∘d, diag⟩, ⟨y∘y, inv⟩:
//		step = λα̂; sy = λ·dots[0]
//		α̂ = !(sy > 0) ? α_max : iter odd ? ((λλ)·dots[1])/sy : sy/dots[2]
//		α̂ = min(α_max, max(α_min, α̂)); f = fNew; fHist shifts, fHist[0] = f
//		phase = resid
//	mode 5, resid (lines 21–22), dots[0] = ‖x' − Π(x' − g_d(Nx' + r))‖²:
//		w = sqrt(dots[0])/(n·g_d); not finite: err = 3, DONE
//		flags = 0; if w ≤ wMin { wMin = w; fBest = f; flags = 1 }
//		iter++; hist[3(iter−1):3iter] = (w, f, step) while iter ≤ histCap
//		phase = iter < maxIter && wMin ≥ tol ? dir : DONE
//
// with engine.SPG's constants: α_min = 1e-9, α_max = 1e9, N_GLL = 10,
// γ = 1e-4, σ_min = 0.1, σ_max = 0.9, 100 reductions of λ at most. Every
// operation `precise`: the host's float64 values bit for bit where
// division and square root are correctly rounded.
// Bindings (set 0): 0 s (the solver's scalars, read and written; layout in
// gpu/spg.go), 1 hist (written; 3 float64 per iteration).
// Arguments: double tol, double gd, uint mode, uint gate, uint n,
// uint maxIter, uint histCap (36 bytes).
// Dispatch: (1, 1, 1), one workgroup of 1.
#define SCALARS_BINDING 0
#define SCALARS_ACCESS
#include "spg_scalars.glsl"
#include "scalar_kernel.glsl"

const uint DIR = 0u;
const uint DIR2 = 1u;
const uint TRIAL = 2u;
const uint ACCEPT = 3u;
const uint DONE = 4u;
const uint RESID = 5u;
const double ALPHA_MIN = 1e-9lf;
const double ALPHA_MAX = 1e9lf;
const uint GLL = 10u;
const double GAMMA = 1e-4lf;
const double SIGMA_MIN = 0.1lf;
const double SIGMA_MAX = 0.9lf;
const uint MAX_BACKTRACK = 100u;

#include "finite.glsl"

void startTrial() {
	double fm = s.fHist[0];
	for (uint i = 1u; i < s.nHist; i++) {
		if (s.fHist[i] > fm) {
			fm = s.fHist[i];
		}
	}
	s.fMax = fm;
	s.lambda = 1.0lf;
	s.bt = 0u;
	s.phase = TRIAL;
}

void main() {
	if ((p.gate & (1u << s.phase)) == 0u) {
		return;
	}
	precise double scale = double(p.n) * p.gd;
	if (p.mode == 0u) {
		precise double w = sqrt(s.dots[0]) / scale;
		precise double hf = 0.5lf * s.dots[1];
		precise double f = hf + s.dots[2];
		s.w = w;
		s.f = f;
		if (!finite(w) || !finite(f)) {
			s.err = 1u;
			s.phase = DONE;
			return;
		}
		s.wMin = w;
		s.fBest = f;
		s.alpha = 1.0lf;
		s.fHist[0] = f;
		s.nHist = 1u;
		s.phase = (p.maxIter > 0u && w >= p.tol) ? DIR : DONE;
	} else if (p.mode == 1u) {
		s.dg = s.dots[0];
		if (s.dg >= 0.0lf) {
			s.phase = DIR2;
		} else {
			startTrial();
		}
	} else if (p.mode == 2u) {
		s.dg = s.dots[0];
		startTrial();
	} else if (p.mode == 3u) {
		precise double hf = 0.5lf * s.dots[0];
		precise double fNew = hf + s.dots[1];
		s.fNew = fNew;
		if (!finite(fNew)) {
			s.err = 2u;
			s.phase = DONE;
			return;
		}
		double lam = s.lambda;
		precise double gl = GAMMA * lam;
		precise double gld = gl * s.dg;
		precise double bound = s.fMax + gld;
		if (fNew <= bound) {
			s.phase = ACCEPT;
			return;
		}
		if (s.bt == MAX_BACKTRACK) {
			s.phase = DONE; // stalled
			return;
		}
		precise double next = SIGMA_MAX * lam;
		precise double df = fNew - s.f;
		precise double ld = lam * s.dg;
		precise double den = df - ld;
		if (den > 0.0lf) {
			precise double lo = SIGMA_MIN * lam;
			precise double q0 = -0.5lf * lam;
			precise double q1 = q0 * lam;
			precise double q2 = q1 * s.dg;
			precise double q = q2 / den;
			double mx = q > lo ? q : lo;      // math.Max (finite values)
			next = mx < next ? mx : next;     // math.Min
		}
		s.lambda = next;
		s.bt = s.bt + 1u;
	} else if (p.mode == 4u) {
		double lam = s.lambda;
		precise double stp = lam * s.alpha;
		s.step = stp;
		precise double sy = lam * s.dots[0];
		double a;
		if (!(sy > 0.0lf)) {
			a = ALPHA_MAX;
		} else if ((s.iter & 1u) == 1u) {
			precise double ll = lam * lam;
			precise double num = ll * s.dots[1];
			precise double q = num / sy;
			a = q;
		} else {
			precise double q = sy / s.dots[2];
			a = q;
		}
		if (!(a > ALPHA_MIN)) {
			a = isnan(a) ? a : ALPHA_MIN;
		}
		if (a > ALPHA_MAX) {
			a = ALPHA_MAX;
		}
		s.alpha = a;
		s.f = s.fNew;
		for (uint i = GLL; i > 0u; i--) {
			s.fHist[i] = s.fHist[i - 1u];
		}
		s.fHist[0] = s.f;
		s.nHist = min(s.nHist + 1u, GLL + 1u);
		s.phase = RESID;
	} else {
		precise double w = sqrt(s.dots[0]) / scale;
		s.w = w;
		if (!finite(w)) {
			s.err = 3u;
			s.phase = DONE;
			return;
		}
		s.flags = 0u;
		if (w <= s.wMin) {
			s.wMin = w;
			s.fBest = s.f;
			s.flags = 1u;
		}
		s.iter = s.iter + 1u;
		if (s.iter <= p.histCap) {
			uint h = 3u * (s.iter - 1u);
			hist[h] = w;
			hist[h + 1u] = s.f;
			hist[h + 2u] = s.step;
		}
		s.phase = (s.iter < p.maxIter && s.wMin >= p.tol) ? DIR : DONE;
	}
}
