#version 450
// apgd_body_impulse: body_impulse.comp (dv = M⁻¹ D x, the first half of the
// Schur product N x), run only while the device APGD solver's phase is one
// of those in the gate mask: the kernel of gpu's device APGD (gpu/apgd.go).
//
// Loop: if (gate & (1 << s.phase)) == 0 return; then body_impulse.comp's
// loop, operation for operation (bit for bit cpuref's bodyImpulse).
// Bindings (set 0): 0–9 as body_impulse.comp, 10 s (read; the solver's
// scalars, layout in gpu/apgd.go).
// Push constants: uint n, uint gate (8 bytes).
// Dispatch: (min(⌈n/64⌉, max group count), 1, 1) workgroups of 64.
layout(local_size_x = 64) in;

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

#define SCALARS_BINDING 10
#define SCALARS_ACCESS readonly
#include "apgd_scalars.glsl"

layout(push_constant) uniform Push {
	uint n;
	uint gate;
} p;

void main() {
	if ((p.gate & (1u << s.phase)) == 0u) {
		return;
	}
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) {
		if (fixedBody[i] != 0u) {
			for (uint k = 0u; k < 6u; k++) {
				dv[6u * i + k] = 0.0lf;
			}
			continue;
		}
		precise double f0 = 0.0lf;
		precise double f1 = 0.0lf;
		precise double f2 = 0.0lf;
		precise double t0 = 0.0lf;
		precise double t1 = 0.0lf;
		precise double t2 = 0.0lf;
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
			t0 = t0 + (g0 * r0 + g1 * r3 + g2 * r6);
			t1 = t1 + (g0 * r1 + g1 * r4 + g2 * r7);
			t2 = t2 + (g0 * r2 + g1 * r5 + g2 * r8);
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
}
