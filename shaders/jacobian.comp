#version 450
// jacobian: for every contact k, the Jacobian block D_k of eq. 4 of the
// APGD paper and r_k = D_kᵀ vfree + b_k (cpuref's Build): the contact frame
// (n, u, w), the rotational rows ρ_A,d = d̄_A × s̄_A and ρ_B,d = s̄_B × d̄_B
// (d̄ = Aᵀd in the body frame, s̄ the contact point in the body frame), the
// cohesion impulse h·ĉ, and r.
//
// Loop, for each contact k (A = a[k], B = b[k]):
//
//	n := normal_k; u, w := TangentBasis(n)    // cpuref.TangentBasis
//	for d, dir := range {n, u, w} {
//		basis[9k+3d:] = dir
//		rhoA[9k+3d:] = Rotate(Conjugate(rot_A), dir) × pa_k
//		rhoB[9k+3d:] = pb_k × Rotate(Conjugate(rot_B), dir)
//	}
//	coh[k] = h*cohesion[k]
//	r[3k+d] = dir·(v_B − v_A) + ρ_A,d·ω̄_A + ρ_B,d·ω̄_B   // of vfree, summed left to right
//	bn := phi[k]/h; if maxRecovery > 0 { bn = max(bn, −maxRecovery) }
//	r[3k] += bn
//
// TangentBasis picks the coordinate axis e least aligned with n (x on
// ties, then y), u = normalise(n × e), w = n × u. Every operation is
// `precise` and in cpuref's order: bit for bit cpuref's Build where float64
// division and square root are correctly rounded.
// Bindings (set 0): 0 basis, 1 rhoA, 2 rhoB (written; 9 float64 per
// contact), 3 coh (written; 1 per contact, N·s), 4 r (written; 3 per
// contact, m/s), 5 a, 6 b (uint32 body indices), 7 normal (3), 8 pa, 9 pb (3,
// body frames, m), 10 phi (1, m), 11 cohesion (1, N), 12 rot (4 per body),
// 13 vfree (6 per body).
// Push constants: double h (s), double maxRecovery (m/s, 0: no cap),
// uint nc (20 bytes).
// Dispatch: (min(⌈nc/64⌉, max group count), 1, 1) workgroups of 64; a
// grid-stride loop covers any nc.
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) writeonly buffer Basis { double basis[]; };
layout(std430, set = 0, binding = 1) writeonly buffer RhoA { double rhoA[]; };
layout(std430, set = 0, binding = 2) writeonly buffer RhoB { double rhoB[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Coh { double coh[]; };
layout(std430, set = 0, binding = 4) writeonly buffer R { double r[]; };
layout(std430, set = 0, binding = 5) readonly buffer BodyA { uint bodyA[]; };
layout(std430, set = 0, binding = 6) readonly buffer BodyB { uint bodyB[]; };
layout(std430, set = 0, binding = 7) readonly buffer Normal { double normal[]; };
layout(std430, set = 0, binding = 8) readonly buffer PA { double pa[]; };
layout(std430, set = 0, binding = 9) readonly buffer PB { double pb[]; };
layout(std430, set = 0, binding = 10) readonly buffer Phi { double phi[]; };
layout(std430, set = 0, binding = 11) readonly buffer Cohesion { double cohesion[]; };
layout(std430, set = 0, binding = 12) readonly buffer Rot { double rot[]; };
layout(std430, set = 0, binding = 13) readonly buffer VFree { double vfree[]; };

layout(push_constant) uniform Push {
	double h;
	double maxRecovery;
	uint nc;
} p;

#include "quat.glsl"

// conjugate returns the vector part of mgl64's Quat.Conjugate of body i.
precise dvec3 conjugate(uint i) {
	precise double x = rot[4u * i + 1u] * -1.0lf;
	precise double y = rot[4u * i + 2u] * -1.0lf;
	precise double z = rot[4u * i + 3u] * -1.0lf;
	return dvec3(x, y, z);
}

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
		precise dvec3 w = cross3(n, u);

		double qaw = rot[4u * ia];
		double qbw = rot[4u * ib];
		dvec3 qa = conjugate(ia);
		dvec3 qb = conjugate(ib);
		dvec3 sa = dvec3(pa[3u * k], pa[3u * k + 1u], pa[3u * k + 2u]);
		dvec3 sb = dvec3(pb[3u * k], pb[3u * k + 1u], pb[3u * k + 2u]);
		dvec3 dirs[3] = dvec3[3](n, u, w);
		dvec3 ras[3];
		dvec3 rbs[3];
		for (uint d = 0u; d < 3u; d++) {
			dvec3 dir = dirs[d];
			precise dvec3 ra = cross3(rotate(qaw, qa, dir), sa);
			precise dvec3 rb = cross3(sb, rotate(qbw, qb, dir));
			ras[d] = ra;
			rbs[d] = rb;
			for (uint j = 0u; j < 3u; j++) {
				basis[9u * k + 3u * d + j] = dir[j];
				rhoA[9u * k + 3u * d + j] = ra[j];
				rhoB[9u * k + 3u * d + j] = rb[j];
			}
		}
		precise double c = p.h * cohesion[k];
		coh[k] = c;

		dvec3 va = dvec3(vfree[6u * ia], vfree[6u * ia + 1u], vfree[6u * ia + 2u]);
		dvec3 wa = dvec3(vfree[6u * ia + 3u], vfree[6u * ia + 4u], vfree[6u * ia + 5u]);
		dvec3 vb = dvec3(vfree[6u * ib], vfree[6u * ib + 1u], vfree[6u * ib + 2u]);
		dvec3 wb = dvec3(vfree[6u * ib + 3u], vfree[6u * ib + 4u], vfree[6u * ib + 5u]);
		precise dvec3 dl = dvec3(vb.x - va.x, vb.y - va.y, vb.z - va.z);
		precise double r0 = row(n, ras[0], rbs[0], dl, wa, wb);
		precise double r1 = row(u, ras[1], rbs[1], dl, wa, wb);
		precise double r2 = row(w, ras[2], rbs[2], dl, wa, wb);
		precise double bn = phi[k] / p.h;
		if (p.maxRecovery > 0.0lf && bn < -p.maxRecovery) {
			bn = -p.maxRecovery;
		}
		precise double rn = r0 + bn;
		r[3u * k] = rn;
		r[3u * k + 1u] = r1;
		r[3u * k + 2u] = r2;
	}
}
