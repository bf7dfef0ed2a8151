#version 450
// sweep: one projected Gauss–Seidel sweep over the contacts in order
// (Algorithm 2 of the APGD paper, lines 3–7; cpuref's Sweep), updating
// gamma in place, each contact seeing the updates of those before it.
// Gauss–Seidel is sequential by nature: ONE invocation runs the whole loop,
// so this kernel is correct but slow (it uses one GPU thread); it exists so
// that the "gs" solver runs on the device without a round trip per contact.
//
// Before it, body_impulse sets dv = M⁻¹Dγ in the same batch. Loop (one
// invocation; A = a[k], B = b[k]):
//
//	for k := 0; k < nc; k++ {
//		u := D_kᵀ dv                                   // as contact_velocity
//		s := ω/diag[3k]
//		p := ProjectCone(γ_k − s·(u + r_k), mu[k], coh[k])   // as project
//		δ := λp + (1−λ)γ_k − γ_k                       // per component, left to right
//		γ_k += δ
//		dv_A += M_A⁻¹ D_k,A δ; dv_B += M_B⁻¹ D_k,B δ    // fixed bodies skipped
//	}
//
// with M⁻¹D_k,side δ = (im·sign·(δ_0 d̂_0,j + δ_1 d̂_1,j + δ_2 d̂_2,j),
// J⁻¹_j(δ_0 ρ_0,j + δ_1 ρ_1,j + δ_2 ρ_2,j)), sign −1 for A and +1 for B
// (cpuref's addContactImpulse). Every operation `precise`, in cpuref's
// order: bit for bit equal where float64 division and square root are
// correctly rounded.
// Bindings (set 0): 0 gamma (read and written; 3 float64 per contact),
// 1 dv (read and written; 6 per body), 2 diag (3 per contact, g_k as
// block_diag writes it), 3 r (3 per contact), 4 a, 5 b (uint32 body
// indices), 6 basis, 7 rhoA, 8 rhoB (9 per contact), 9 mu, 10 coh (1 per
// contact), 11 invMass (1 per body), 12 invInertia (3 per body),
// 13 fixedBody (uint32 per body).
// Push constants: double omega, double lambda, uint nc (20 bytes).
// Dispatch: (1, 1, 1), one workgroup of one invocation.
layout(local_size_x = 1) in;

layout(std430, set = 0, binding = 0) buffer Gamma { double gamma[]; };
layout(std430, set = 0, binding = 1) buffer DV { double dv[]; };
layout(std430, set = 0, binding = 2) readonly buffer Diag { double diag[]; };
layout(std430, set = 0, binding = 3) readonly buffer R { double r[]; };
layout(std430, set = 0, binding = 4) readonly buffer BodyA { uint bodyA[]; };
layout(std430, set = 0, binding = 5) readonly buffer BodyB { uint bodyB[]; };
layout(std430, set = 0, binding = 6) readonly buffer Basis { double basis[]; };
layout(std430, set = 0, binding = 7) readonly buffer RhoA { double rhoA[]; };
layout(std430, set = 0, binding = 8) readonly buffer RhoB { double rhoB[]; };
layout(std430, set = 0, binding = 9) readonly buffer Mu { double mu[]; };
layout(std430, set = 0, binding = 10) readonly buffer Coh { double coh[]; };
layout(std430, set = 0, binding = 11) readonly buffer InvMass { double invMass[]; };
layout(std430, set = 0, binding = 12) readonly buffer InvInertia { double invInertia[]; };
layout(std430, set = 0, binding = 13) readonly buffer FixedBody { uint fixedBody[]; };

layout(push_constant) uniform Push {
	double omega;
	double lambda;
	uint nc;
} p;

// project is cpuref.ProjectCone (see project.comp).
precise dvec3 project(double xn, double xu, double xw, double m, double c) {
	precise double n = xn + c;
	precise double t = sqrt(xu * xu + xw * xw);
	precise double mn = m * n;
	precise double mt = m * t;
	if (m == 0.0lf) {
		double mx = n;
		if (!(n > 0.0lf) && !isnan(n)) {
			mx = 0.0lf;
		}
		precise double on = mx - c;
		return dvec3(on, 0.0lf, 0.0lf);
	}
	if (t <= mn) {
		return dvec3(xn, xu, xw);
	}
	if (mt <= -n) {
		return dvec3(-c, 0.0lf, 0.0lf);
	}
	precise double np = (mt + n) / (m * m + 1.0lf);
	precise double s = m * np / t;
	precise double on = np - c;
	precise double ou = xu * s;
	precise double ow = xw * s;
	return dvec3(on, ou, ow);
}

// addImpulse adds M_i⁻¹ D_k,side δ to dv of body i (cpuref's addContactImpulse).
void addImpulse(uint k, uint i, uint side, dvec3 delta) {
	double im = invMass[i];
	double sgn = side == 0u ? -1.0lf : 1.0lf;
	for (uint j = 0u; j < 3u; j++) {
		uint b = 9u * k;
		double r0 = side == 0u ? rhoA[b + j] : rhoB[b + j];
		double r1 = side == 0u ? rhoA[b + 3u + j] : rhoB[b + 3u + j];
		double r2 = side == 0u ? rhoA[b + 6u + j] : rhoB[b + 6u + j];
		precise double lin = dv[6u * i + j] + im * sgn * (delta.x * basis[b + j] + delta.y * basis[b + 3u + j] + delta.z * basis[b + 6u + j]);
		dv[6u * i + j] = lin;
		precise double ang = dv[6u * i + 3u + j] + invInertia[3u * i + j] * (delta.x * r0 + delta.y * r1 + delta.z * r2);
		dv[6u * i + 3u + j] = ang;
	}
}

void main() {
	for (uint k = 0u; k < p.nc; k++) {
		uint ia = bodyA[k];
		uint ib = bodyB[k];
		uint oa = 6u * ia;
		uint ob = 6u * ib;
		precise double dx = dv[ob] - dv[oa];
		precise double dy = dv[ob + 1u] - dv[oa + 1u];
		precise double dz = dv[ob + 2u] - dv[oa + 2u];
		double u[3];
		for (uint d = 0u; d < 9u; d += 3u) {
			uint b = 9u * k + d;
			precise double o = basis[b] * dx + basis[b + 1u] * dy + basis[b + 2u] * dz +
				rhoA[b] * dv[oa + 3u] + rhoA[b + 1u] * dv[oa + 4u] + rhoA[b + 2u] * dv[oa + 5u] +
				rhoB[b] * dv[ob + 3u] + rhoB[b + 1u] * dv[ob + 4u] + rhoB[b + 2u] * dv[ob + 5u];
			u[d / 3u] = o;
		}
		precise double s = p.omega / diag[3u * k];
		double x0 = gamma[3u * k];
		double x1 = gamma[3u * k + 1u];
		double x2 = gamma[3u * k + 2u];
		precise double y0 = x0 - s * (u[0] + r[3u * k]);
		precise double y1 = x1 - s * (u[1] + r[3u * k + 1u]);
		precise double y2 = x2 - s * (u[2] + r[3u * k + 2u]);
		precise dvec3 pc = project(y0, y1, y2, mu[k], coh[k]);
		precise double l1 = 1.0lf - p.lambda;
		precise double d0 = p.lambda * pc.x + l1 * x0 - x0;
		precise double d1 = p.lambda * pc.y + l1 * x1 - x1;
		precise double d2 = p.lambda * pc.z + l1 * x2 - x2;
		precise double g0 = x0 + d0;
		precise double g1 = x1 + d1;
		precise double g2 = x2 + d2;
		gamma[3u * k] = g0;
		gamma[3u * k + 1u] = g1;
		gamma[3u * k + 2u] = g2;
		dvec3 delta = dvec3(d0, d1, d2);
		if (fixedBody[ia] == 0u) {
			addImpulse(k, ia, 0u, delta);
		}
		if (fixedBody[ib] == 0u) {
			addImpulse(k, ib, 1u, delta);
		}
	}
}
