// body_impulse.glsl: bodyImpulse, dv_i = M_i⁻¹ (D x)_i for body i, the
// first half of the matrix-free Schur product N x = Dᵀ M⁻¹ D x (cpuref's
// bodyImpulse), for body_impulse and apgd_body_impulse: a gather over the
// body's contacts in contact order, so the sum is deterministic and needs
// no atomics.
//
// For body i (entries e of the CSR list adj[adjOff[i]:adjOff[i+1]],
// e = 2k + side, side 0: body A of contact k, 1: body B; d̂ = basis rows):
//
//	if fixed[i] { dv[6i:6i+6] = 0; return }
//	f, τ := 0, 0
//	for _, e := range adj[adjOff[i]:adjOff[i+1]] {
//		k := e >> 1; γ := x[3k:3k+3]
//		if e&1 == 0 { f += (−γ_0)d̂_0 + (−γ_1)d̂_1 + (−γ_2)d̂_2; ρ := rhoA_k }
//		else        { f +=   γ_0 d̂_0 +   γ_1 d̂_1 +   γ_2 d̂_2;  ρ := rhoB_k }
//		τ += γ_0 ρ_0 + γ_1 ρ_1 + γ_2 ρ_2
//	}
//	dv[6i:6i+6] = (invMass[i]·f, invInertia_i ∘ τ)
//
// componentwise, each sum left to right, every operation `precise`: bit for
// bit cpuref's bodyImpulse. With joints, f and τ start from the sums over
// the body's joint rows instead of 0, as cpuref's (its rows first, so that
// contacts add in the same order as without joints): for the entries
// e = 2r + side of jadj[jadjOff[i]:jadjOff[i+1]], γ_r = x[jbase + r],
//
//	f += (sign·γ_r)·lin_r;  τ += γ_r·rot_r    (A: sign −1, rot = rotA; B: +1, rotB)
//
// (cpuref's addJointImpulses); a model without joints has empty lists.
//
// With BODY_IMPULSE_ROLLING defined (body_impulse.comp), a contact k with a
// rolling block q = ridx[k] ≠ 0xffffffff (engine.RollingRows; its impulses
// γ_q = x[rbase+3q:rbase+3q+3]) adds the block's torque to the contact's
// before the body's sum takes it, as cpuref's addRollingTorques adds it to
// the contact's imp:
//
//	τ += (γ_0 ρ_0 + γ_1 ρ_1 + γ_2 ρ_2) + (γ_q,0 rot_0 + γ_q,1 rot_1 + γ_q,2 rot_2)
//
// (rot = rrotA_q for A, rrotB_q for B, rows u, w, n); the includer defines
// BODY_IMPULSE_NR and BODY_IMPULSE_RBASE (expressions: nr, 3nc + nj) and
// binds ridx (uint32 per contact) at 15, rrotA and rrotB (9 float64 per
// block) at 16 and 17. Without rolling blocks (nr = 0) they are not read.
//
// It declares the buffers it uses at bindings 0–14 of set 0: 0 dv (written;
// 6 float64 per body: linear m/s, angular rad/s in the body frame), 1 x (3
// per contact, N·s), 2 adjOff (n+1 uint32), 3 adj (uint32 entries),
// 4 basis, 5 rhoA, 6 rhoB (9 per contact), 7 invMass (1 per body),
// 8 invInertia (3 per body), 9 fixedBody (uint32 per body), 10 jadjOff
// (n+1 uint32), 11 jadj (uint32 entries), 12 jlin, 13 jrotA, 14 jrotB (3
// float64 per joint row). The includer defines nothing and binds its own
// buffers from 15.
layout(std430, set = 0, binding = 0) writeonly buffer DV { double dv[]; };
layout(std430, set = 0, binding = 1) readonly buffer X { double x[]; };
layout(std430, set = 0, binding = 2) readonly buffer AdjOff { uint adjOff[]; };
layout(std430, set = 0, binding = 3) readonly buffer Adj { uint adj[]; };
layout(std430, set = 0, binding = 4) readonly buffer Basis { double basis[]; };
layout(std430, set = 0, binding = 5) readonly buffer RhoA { double rhoA[]; };
layout(std430, set = 0, binding = 6) readonly buffer RhoB { double rhoB[]; };
layout(std430, set = 0, binding = 7) readonly buffer InvMass { double invMass[]; };
layout(std430, set = 0, binding = 8) readonly buffer InvInertia { double invInertia[]; };
layout(std430, set = 0, binding = 9) readonly buffer FixedBody { uint fixedBody[]; };
layout(std430, set = 0, binding = 10) readonly buffer JAdjOff { uint jadjOff[]; };
layout(std430, set = 0, binding = 11) readonly buffer JAdj { uint jadj[]; };
layout(std430, set = 0, binding = 12) readonly buffer JLin { double jlin[]; };
layout(std430, set = 0, binding = 13) readonly buffer JRotA { double jrotA[]; };
layout(std430, set = 0, binding = 14) readonly buffer JRotB { double jrotB[]; };
#ifdef BODY_IMPULSE_ROLLING
layout(std430, set = 0, binding = 15) readonly buffer RIdx { uint ridx[]; };
layout(std430, set = 0, binding = 16) readonly buffer RRotA { double rrotA[]; };
layout(std430, set = 0, binding = 17) readonly buffer RRotB { double rrotB[]; };
#endif

// bodyImpulse writes dv[6i:6i+6] for body i; the joint rows' impulses
// are x[jbase:] (jbase = 3nc).
void bodyImpulse(uint i, uint jbase) {
	if (fixedBody[i] != 0u) {
		for (uint k = 0u; k < 6u; k++) {
			dv[6u * i + k] = 0.0lf;
		}
		return;
	}
	precise double f0 = 0.0lf;
	precise double f1 = 0.0lf;
	precise double f2 = 0.0lf;
	precise double t0 = 0.0lf;
	precise double t1 = 0.0lf;
	precise double t2 = 0.0lf;
	uint jend = jadjOff[i + 1u];
	for (uint j = jadjOff[i]; j < jend; j++) {
		uint e = jadj[j];
		uint r = e >> 1u;
		double g = x[jbase + r];
		uint b = 3u * r;
		bool sideB = (e & 1u) != 0u;
		precise double sg = (sideB ? 1.0lf : -1.0lf) * g;
		f0 = f0 + sg * jlin[b];
		f1 = f1 + sg * jlin[b + 1u];
		f2 = f2 + sg * jlin[b + 2u];
		t0 = t0 + g * (sideB ? jrotB[b] : jrotA[b]);
		t1 = t1 + g * (sideB ? jrotB[b + 1u] : jrotA[b + 1u]);
		t2 = t2 + g * (sideB ? jrotB[b + 2u] : jrotA[b + 2u]);
	}
	uint end = adjOff[i + 1u];
	for (uint j = adjOff[i]; j < end; j++) {
		uint e = adj[j];
		uint k = e >> 1u;
		double g0 = x[3u * k];
		double g1 = x[3u * k + 1u];
		double g2 = x[3u * k + 2u];
		uint b = 9u * k;
		double s0 = basis[b], s1 = basis[b + 1u], s2 = basis[b + 2u];
		double s3 = basis[b + 3u], s4 = basis[b + 4u], s5 = basis[b + 5u];
		double s6 = basis[b + 6u], s7 = basis[b + 7u], s8 = basis[b + 8u];
		double r0, r1, r2, r3, r4, r5, r6, r7, r8;
		if ((e & 1u) == 0u) {
			r0 = rhoA[b]; r1 = rhoA[b + 1u]; r2 = rhoA[b + 2u];
			r3 = rhoA[b + 3u]; r4 = rhoA[b + 4u]; r5 = rhoA[b + 5u];
			r6 = rhoA[b + 6u]; r7 = rhoA[b + 7u]; r8 = rhoA[b + 8u];
			double h0 = -g0, h1 = -g1, h2 = -g2;
			f0 = f0 + (h0 * s0 + h1 * s3 + h2 * s6);
			f1 = f1 + (h0 * s1 + h1 * s4 + h2 * s7);
			f2 = f2 + (h0 * s2 + h1 * s5 + h2 * s8);
		} else {
			r0 = rhoB[b]; r1 = rhoB[b + 1u]; r2 = rhoB[b + 2u];
			r3 = rhoB[b + 3u]; r4 = rhoB[b + 4u]; r5 = rhoB[b + 5u];
			r6 = rhoB[b + 6u]; r7 = rhoB[b + 7u]; r8 = rhoB[b + 8u];
			f0 = f0 + (g0 * s0 + g1 * s3 + g2 * s6);
			f1 = f1 + (g0 * s1 + g1 * s4 + g2 * s7);
			f2 = f2 + (g0 * s2 + g1 * s5 + g2 * s8);
		}
		precise double c0 = g0 * r0 + g1 * r3 + g2 * r6;
		precise double c1 = g0 * r1 + g1 * r4 + g2 * r7;
		precise double c2 = g0 * r2 + g1 * r5 + g2 * r8;
#ifdef BODY_IMPULSE_ROLLING
		if (BODY_IMPULSE_NR != 0u) {
			uint q = ridx[k];
			if (q != 0xffffffffu) {
				uint o = BODY_IMPULSE_RBASE + 3u * q;
				double q0 = x[o];
				double q1 = x[o + 1u];
				double q2 = x[o + 2u];
				uint rb = 9u * q;
				if ((e & 1u) == 0u) {
					c0 = c0 + (q0 * rrotA[rb] + q1 * rrotA[rb + 3u] + q2 * rrotA[rb + 6u]);
					c1 = c1 + (q0 * rrotA[rb + 1u] + q1 * rrotA[rb + 4u] + q2 * rrotA[rb + 7u]);
					c2 = c2 + (q0 * rrotA[rb + 2u] + q1 * rrotA[rb + 5u] + q2 * rrotA[rb + 8u]);
				} else {
					c0 = c0 + (q0 * rrotB[rb] + q1 * rrotB[rb + 3u] + q2 * rrotB[rb + 6u]);
					c1 = c1 + (q0 * rrotB[rb + 1u] + q1 * rrotB[rb + 4u] + q2 * rrotB[rb + 7u]);
					c2 = c2 + (q0 * rrotB[rb + 2u] + q1 * rrotB[rb + 5u] + q2 * rrotB[rb + 8u]);
				}
			}
		}
#endif
		t0 = t0 + c0;
		t1 = t1 + c1;
		t2 = t2 + c2;
	}
	double im = invMass[i];
	precise double o0 = im * f0;
	precise double o1 = im * f1;
	precise double o2 = im * f2;
	precise double o3 = invInertia[3u * i] * t0;
	precise double o4 = invInertia[3u * i + 1u] * t1;
	precise double o5 = invInertia[3u * i + 2u] * t2;
	dv[6u * i] = o0;
	dv[6u * i + 1u] = o1;
	dv[6u * i + 2u] = o2;
	dv[6u * i + 3u] = o3;
	dv[6u * i + 4u] = o4;
	dv[6u * i + 5u] = o5;
}
