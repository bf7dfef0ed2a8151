#version 450
// apgd_scalar: the scalar steps of the device APGD solver (gpu/apgd.go), one
// invocation; engine.APGD's host arithmetic, operation for operation, on
// the dot products apgd_sum.comp left in s.dots. It runs only while the
// solver's phase is one of those in the gate mask.
//
// mode 0, init (lines 1–5 of Algorithm 1 of the APGD paper), dots = ‖γ₀ − 1‖²,
// ‖N(γ₀ − 1)‖²:
//
//	L = sqrt(dots[1]) / sqrt(dots[0]); if !(L > 0) || isinf(L) { L = 1 }
//	Lmin = L·2⁻⁵²; t = 1/L; θ = 1; bt = 0; Lrej = 0; trials = 0
//
// mode 1, a line-search trial (lines 8–12), dots = γ'ᵀNγ', rᵀγ', ΔᵀNΔ, ‖Δ‖²:
//
//	trials++
//	f := 0.5·dots[0] + dots[1]
//	if !(dots[2] > L·dots[3]) {                  // accepted
//		if isnan(f) { err = 2; phase = done } else { fx = f; phase = accept }
//	} else if bt == 200 { err = 1; phase = done } // engine's apgdMaxBacktrack
//	else { q = dots[2]/dots[3]; if q is finite { Lrej = q }
//	       L = 2L; t = 1/L; bt++; phase = trial }
//
// mode 2, accept (lines 14–24), dots = ‖γ' − Π(γ' − g_d(Nγ' + r))‖²,
// gᵀ(γ' − γ_k):
//
//	θ' = (−θ·θ + θ·sqrt(θ·θ + 4))/2; β = θ(1 − θ)/(θ·θ + θ')
//	res = sqrt(dots[0])/(n·g_d); iter++
//	flags = 0; if res < rmin { rmin = res; fBest = fx; flags |= 1 }
//	if dots[1] > 0 { θ' = 1; flags |= 2 }        // adaptive restart
//	hist[4(iter−1):4iter] = (res, fx, t, restart) while iter ≤ histCap
//	if res < tol || iter ≥ maxIter { flags |= 4 }
//	phase = step
//
// mode 3, finish (lines 28–29):
//
//	if flags&4 != 0 { phase = done }
//	else { L' = 0.9L; if 1.1·Lrej > L' { L' = min(1.1·Lrej, L) }
//	       if L' < Lmin { L' = Lmin }; L = L'; t = 1/L; Lrej = 0.99·Lrej
//	       θ = θ'; bt = 0; phase = start }
//
// Lmin is engine.APGD's floor εL₀ under L (engine's apgdFloor), which keeps
// t finite where the line search never raises L: s.Lmin at byte 128 of
// lib/apgd_scalars.glsl's block; no other kernel reads it. Lrej (byte 144)
// is the curvature the last rejected trial needed, which L does not shrink
// below (engine.APGDReject and APGDNextL).
//
// apgd_scalar_f32 (settings.precision "mixed", lib/store.glsl) takes the
// accepted iterate as the best also when res < 2·rlow and fx < fBest,
// rlow (byte 136) being the smallest residual so far (rmin is then the
// best iterate's), as cpuref's solveAPGD does with mixed precision.
//
// Every operation `precise`: the host's float64 values bit for bit where
// division and square root are correctly rounded.
// Bindings (set 0): 0 s (the solver's scalars, read and written; layout in
// gpu/apgd.go), 1 hist (written; 4 float64 per iteration).
// Arguments: double tol, double gd, uint mode, uint gate, uint n,
// uint maxIter, uint histCap (36 bytes).
// Dispatch: (1, 1, 1), one workgroup of 1.
#include "store.glsl"
#define SCALARS_BINDING 0
#define SCALARS_ACCESS
#include "apgd_scalars.glsl"
#include "scalar_kernel.glsl"

void main() {
	if ((p.gate & (1u << s.phase)) == 0u) {
		return;
	}
	if (p.mode == 0u) {
		precise double den = sqrt(s.dots[0]);
		precise double L = sqrt(s.dots[1]) / den;
		if (!(L > 0.0lf) || isinf(L)) {
			L = 1.0lf;
		}
		precise double Lmin = L * 2.220446049250313080847263336181640625e-16lf; // 2⁻⁵², exactly
		precise double t = 1.0lf / L;
		s.L = L;
		s.Lmin = Lmin;
		s.t = t;
		s.theta = 1.0lf;
		s.bt = 0u;
		s.Lrej = 0.0lf;
		s.trials = 0u;
	} else if (p.mode == 1u) {
		s.trials = s.trials + 1u;
		precise double hf = 0.5lf * s.dots[0];
		precise double f = hf + s.dots[1];
		precise double Ldd = s.L * s.dots[3];
		if (!(s.dots[2] > Ldd)) {
			if (isnan(f)) {
				s.err = 2u;
				s.phase = 4u;
			} else {
				s.fx = f;
				s.phase = 2u;
			}
		} else if (s.bt == 200u) {
			s.err = 1u;
			s.phase = 4u;
		} else {
			precise double q = s.dots[2] / s.dots[3];
			if (!isinf(q) && !isnan(q)) {
				s.Lrej = q;
			}
			precise double L = s.L * 2.0lf;
			precise double t = 1.0lf / L;
			s.L = L;
			s.t = t;
			s.bt = s.bt + 1u;
			s.phase = 1u;
		}
	} else if (p.mode == 2u) {
		double th = s.theta;
		precise double nt = -th;
		precise double a = nt * th;
		precise double tt = th * th;
		precise double t4 = tt + 4.0lf;
		precise double b = th * sqrt(t4);
		precise double num = a + b;
		precise double thetaNew = num / 2.0lf;
		precise double om = 1.0lf - th;
		precise double nu = th * om;
		precise double de = tt + thetaNew;
		precise double beta = nu / de;
		precise double scale = double(p.n) * p.gd;
		precise double res = sqrt(s.dots[0]) / scale;
		uint iter = s.iter + 1u;
		uint flags = 0u;
		bool better = res < s.rmin;
#ifdef STORE_F32
		// Mixed precision (lib/store.glsl): float32 iterates floor the
		// residual, and below twice the smallest residual so far the
		// objective decides (cpuref's solveAPGD says why).
		precise double twice = 2.0lf * s.rlow;
		better = better || (res < twice && s.fx < s.fBest);
		if (res < s.rlow) {
			s.rlow = res;
		}
#endif
		if (better) {
			s.rmin = res;
			s.fBest = s.fx;
			flags |= 1u;
		}
		bool restart = s.dots[1] > 0.0lf;
		if (restart) {
			thetaNew = 1.0lf;
			flags |= 2u;
		}
		if (iter <= p.histCap) {
			uint h = 4u * (iter - 1u);
			hist[h] = res;
			hist[h + 1u] = s.fx;
			hist[h + 2u] = s.t;
			hist[h + 3u] = restart ? 1.0lf : 0.0lf;
		}
		if (res < p.tol || iter >= p.maxIter) {
			flags |= 4u;
		}
		s.thetaNew = thetaNew;
		s.beta = beta;
		s.res = res;
		s.iter = iter;
		s.flags = flags;
		s.phase = 3u;
	} else {
		if ((s.flags & 4u) != 0u) {
			s.phase = 4u;
		} else {
			precise double L = s.L * 0.9lf;
			precise double f = 1.1lf * s.Lrej;
			if (f > L) {
				L = f < s.L ? f : s.L;
			}
			if (L < s.Lmin) {
				L = s.Lmin;
			}
			precise double t = 1.0lf / L;
			precise double rej = 0.99lf * s.Lrej;
			s.L = L;
			s.t = t;
			s.Lrej = rej;
			s.theta = s.thetaNew;
			s.bt = 0u;
			s.phase = 0u;
		}
	}
}
