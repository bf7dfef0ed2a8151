// rolling_row.glsl: the rolling blocks' rows (engine.RollingRows, cpuref's
// rolling.go) for rolling_ops and gs_sweep: block k (contact rcon[k], whose
// bodies are bodyA and bodyB of the includer) has three rows d ∈ {u, w, n}
// (the contact frame) acting on angular velocities only,
//
//	D_k,dᵀ v = rotA_k,d·ω_A + rotB_k,d·ω_B,  rotA_k,d = −d, rotB_k,d = d
//
// (ω in the world frame, as the solve takes it: (ω_B − ω_A)·d), and the set
// ‖(γ_ru, γ_rw)‖ ≤ μ_r max(γ_n, 0), |γ_s| ≤ μ_s max(γ_n, 0) with γ_n its
// contact's projected normal impulse.
//
// It declares, at bindings ROLLING_ROW_BINDING to ROLLING_ROW_BINDING + 4
// of set 0, with the access qualifier ROLLING_ROW_ACCESS (both defined by
// the includer): rcon (uint32 per block: its contact), rrotA, rrotB (9
// float64 per block: rows u, w, n), rmur, rmus (1 float64 per block: μ_r
// and μ_s, m). The includer declares bodyA and bodyB (uint32 per contact)
// and defines ROLLING_V(j), the j-th component of the 6-per-body velocity
// vector that rollingVelocity reads.
layout(std430, set = 0, binding = ROLLING_ROW_BINDING) ROLLING_ROW_ACCESS buffer RCon { uint rcon[]; };
layout(std430, set = 0, binding = ROLLING_ROW_BINDING + 1) ROLLING_ROW_ACCESS buffer RRotA { double rrotA[]; };
layout(std430, set = 0, binding = ROLLING_ROW_BINDING + 2) ROLLING_ROW_ACCESS buffer RRotB { double rrotB[]; };
layout(std430, set = 0, binding = ROLLING_ROW_BINDING + 3) ROLLING_ROW_ACCESS buffer RMur { double rmur[]; };
layout(std430, set = 0, binding = ROLLING_ROW_BINDING + 4) ROLLING_ROW_ACCESS buffer RMus { double rmus[]; };

// rollingVelocity returns row d of block k's D_kᵀ v: six products summed
// left to right, A's then B's (cpuref's rollingVelocity).
precise double rollingVelocity(uint k, uint d) {
	uint c = rcon[k];
	uint oa = 6u * bodyA[c] + 3u;
	uint ob = 6u * bodyB[c] + 3u;
	uint b = 9u * k + 3u * d;
	return rrotA[b] * ROLLING_V(oa) + rrotA[b + 1u] * ROLLING_V(oa + 1u) + rrotA[b + 2u] * ROLLING_V(oa + 2u) +
		rrotB[b] * ROLLING_V(ob) + rrotB[b + 1u] * ROLLING_V(ob + 1u) + rrotB[b + 2u] * ROLLING_V(ob + 2u);
}

// projectRolling projects (ru, rw, s) onto the rolling set of a contact
// whose projected normal impulse is gn, as cpuref's ProjectRolling:
// n = max(gn, 0) (NaN stays NaN); (ru, rw) onto the disc of radius μ_r n
// (0 when the radius is 0, else scaled back to the rim by rad/t when
// t = sqrt(ru² + rw²) > rad); s clamped into [−μ_s n, μ_s n] (Go's
// math.Max(−lim, math.Min(lim, s)): NaN where s or the limit is).
void projectRolling(double gn, inout double ru, inout double rw, inout double s, double mur, double mus) {
	double n = isnan(gn) ? gn : (gn > 0.0lf ? gn : 0.0lf);
	precise double rad = mur * n;
	if (rad == 0.0lf) {
		ru = 0.0lf;
		rw = 0.0lf;
	} else {
		precise double t = sqrt(ru * ru + rw * rw);
		if (t > rad) {
			precise double f = rad / t;
			precise double a = ru * f;
			precise double b = rw * f;
			ru = a;
			rw = b;
		}
	}
	precise double lim = mus * n;
	if (isnan(lim)) {
		s = lim;
	} else if (!isnan(s)) {
		if (s > lim) {
			s = lim;
		}
		if (s < -lim) {
			s = -lim;
		}
	}
}
