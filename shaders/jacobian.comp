#version 450
// jacobian: for every contact k, the Jacobian block D_k of eq. 4 of the
// APGD paper in the solve's world frame (cpuref's Build and frame.go):
// the normal n, the tangent u, the contact points from the bodies'
// centres s_A = R_A s̄_A and s_B = R_B s̄_B (s̄ the contact point in the
// body frame), the cohesion impulse h·ĉ, and r_k = D_kᵀ vfree + b_k.
//
// Loop, for each contact k (A = a[k], B = b[k]):
//
//	n := normal_k; u, _ := TangentBasis(n)   // cpuref.TangentBasis
//	s_A, s_B := Rotate(rot_A, pa_k), Rotate(rot_B, pb_k)
//	jac[12k:12k+12] = n, u, s_A, s_B
//	// or, with JAC_ARMS (lib/jac.glsl; the contact points on the normal):
//	// jac[8k:8k+8] = n, u, ρ_A, ρ_B with ρ = s·n, and s := ρ n below
//	coh[k] = h*cohesion[k]                  // one value for every contact where
//	                                        // cohesion holds one (lib/contact_material.glsl)
//	r[3k:3k+3] = contactRow(n, u, s_A, s_B, vfree_A, vfree_B)   // lib/contact_row.glsl
//	bn := phi[k]/h; if maxRecovery > 0 { bn = max(bn, −maxRecovery) }
//	r[3k] += bn
//
// TangentBasis picks the coordinate axis e least aligned with n (x on
// ties, then y), u = normalise(n × e). Every operation is `precise` and in
// cpuref's order: bit for bit cpuref's Build where float64 division and
// square root are correctly rounded.
// jacobian_f32 (settings.precision "mixed", lib/store.glsl) rounds the
// block to float32 and forms r from the block as rounded (with JAC_ARMS,
// ρ from s and the rounded n, then rounded).
// Bindings (set 0): 0 jac (written; 12 float64 per contact, 8 with
// JAC_ARMS, float32 in jacobian_f32), 1 coh
// (written; 1 per contact, or 1, N·s), 2 r (written; 3 per contact, m/s), 3 a,
// 4 b (uint32 body indices), 5 normal (3), 6 pa, 7 pb (3, body frames, m),
// 8 phi (1, m), 9 cohesion (1 per contact, or 1, N), 10 rot (4 per body), 11 vfree (6 per
// body, world frame: world_velocity's turn of free_velocity's).
// Arguments: double h (s), double maxRecovery (m/s, 0: no cap),
// uint nc (20 bytes).
// Dispatch: (min(⌈nc/64⌉, max group count), 1, 1) workgroups of 64; a
// grid-stride loop covers any nc.
layout(local_size_x = 64) in;

#include "store.glsl"
#define JAC_BINDING 0
#define JAC_WRITE
#include "jac.glsl"
layout(std430, set = 0, binding = 1) writeonly buffer Coh { double coh[]; };
layout(std430, set = 0, binding = 2) writeonly buffer R { double r[]; };
layout(std430, set = 0, binding = 3) readonly buffer BodyA { uint bodyA[]; };
layout(std430, set = 0, binding = 4) readonly buffer BodyB { uint bodyB[]; };
layout(std430, set = 0, binding = 5) readonly buffer Normal { double normal[]; };
layout(std430, set = 0, binding = 6) readonly buffer PA { double pa[]; };
layout(std430, set = 0, binding = 7) readonly buffer PB { double pb[]; };
layout(std430, set = 0, binding = 8) readonly buffer Phi { double phi[]; };
layout(std430, set = 0, binding = 9) readonly buffer Cohesion { double cohesion[]; };
#include "contact_material.glsl"
layout(std430, set = 0, binding = 10) readonly buffer Rot { double rot[]; };
layout(std430, set = 0, binding = 11) readonly buffer VFree { double vfree[]; };

layout(std430, binding = 31) restrict readonly buffer Push {
	double h;
	double maxRecovery;
	uint nc;
} p;

#include "quat.glsl"

#include "contact_row.glsl"

void main() {
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint k = gl_GlobalInvocationID.x; k < p.nc; k += stride) {
		uint ia = bodyA[k];
		uint ib = bodyB[k];
		dvec3 n = dvec3(normal[3u * k], normal[3u * k + 1u], normal[3u * k + 2u]);
		double ax = abs(n.x);
		double ay = abs(n.y);
		double az = abs(n.z);
		dvec3 e;
		if (ax <= ay && ax <= az) {
			e = dvec3(1.0lf, 0.0lf, 0.0lf);
		} else if (ay <= az) {
			e = dvec3(0.0lf, 1.0lf, 0.0lf);
		} else {
			e = dvec3(0.0lf, 0.0lf, 1.0lf);
		}
		precise dvec3 ne = cross3(n, e);
		precise double len = sqrt(ne.x * ne.x + ne.y * ne.y + ne.z * ne.z);
		precise double il = 1.0lf / len;
		precise dvec3 u = dvec3(ne.x * il, ne.y * il, ne.z * il);

		precise dvec3 sa = rotate(rot[4u * ia], dvec3(rot[4u * ia + 1u], rot[4u * ia + 2u], rot[4u * ia + 3u]),
			dvec3(pa[3u * k], pa[3u * k + 1u], pa[3u * k + 2u]));
		precise dvec3 sb = rotate(rot[4u * ib], dvec3(rot[4u * ib + 1u], rot[4u * ib + 2u], rot[4u * ib + 3u]),
			dvec3(pb[3u * k], pb[3u * k + 1u], pb[3u * k + 2u]));
		// As stored (lib/store.glsl, lib/jac.glsl): r below is formed
		// from the block every product reads. With the arms along the
		// normal, ρ = s·n with n as stored, and s = ρ n as stored.
		n = ROUND3(n);
		u = ROUND3(u);
		double ra = 0.0lf;
		double rb = 0.0lf;
		if (JAC_ARMS) {
			ra = ROUND(jacRho(sa, n));
			rb = ROUND(jacRho(sb, n));
			sa = jacArm(ra, n);
			sb = jacArm(rb, n);
		} else {
			sa = ROUND3(sa);
			sb = ROUND3(sb);
		}
		jacStore(k, n, u, sa, sb, ra, rb);
		precise double ch = p.h * cohesion[min(k, uint(cohesion.length()) - 1u)];
		if (ROOM(coh, k)) {
			coh[k] = ch;
		}

		dvec3 va = dvec3(vfree[6u * ia], vfree[6u * ia + 1u], vfree[6u * ia + 2u]);
		dvec3 wa = dvec3(vfree[6u * ia + 3u], vfree[6u * ia + 4u], vfree[6u * ia + 5u]);
		dvec3 vb = dvec3(vfree[6u * ib], vfree[6u * ib + 1u], vfree[6u * ib + 2u]);
		dvec3 wb = dvec3(vfree[6u * ib + 3u], vfree[6u * ib + 4u], vfree[6u * ib + 5u]);
		precise dvec3 rv = contactRow(n, u, sa, sb, va, wa, vb, wb);
		precise double bn = phi[k] / p.h;
		if (p.maxRecovery > 0.0lf && bn < -p.maxRecovery) {
			bn = -p.maxRecovery;
		}
		precise double rn = rv.x + bn;
		r[3u * k] = rn;
		r[3u * k + 1u] = rv.y;
		r[3u * k + 2u] = rv.z;
	}
}
