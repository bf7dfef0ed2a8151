#version 450
// joint_rows: every joint row's Jacobian D_rᵀ at the current poses, its
// bounds, and r_r = b_r + D_rᵀ vfree (cpuref's buildJoints and
// jointVelocities, bit for bit): one invocation per joint, writing its
// rows row..row+rows−1 (rows per kind, plus one for a motor).
//
// A joint joins A and B (JOINT_WORLD: the world, at the origin with the
// identity orientation); p_A = x_A + q_A·s̄_A and p_B = x_B + q_B·s̄_B
// are its points, s̄ from the frame buffer (engine.JointFrame), and
// s_A = p_A − x_A, s_B = p_B − x_B the same from the centres in the world
// frame. Its rows, world frame as the solve takes them (cpuref's
// frame.go), are made by
//
//	point(d, sa, sb, C): lin = d, rotA = d × sa, rotB = sb × d
//	angle(c, C):         lin = 0, rotA = c·(−1), rotB = c
//
// with bias stab(C) = C/h, clamped to ±maxRecovery when that is positive:
//
//	spherical: point(e_k, s_A, s_B, e_k·(p_B − p_A)), k = x, y, z
//	revolute:  spherical's, then for d = q_A·ū_A, q_A·w̄_A:
//	           angle(a_B × d, d·a_B), a_B = q_B·ā_B
//	prismatic: noTwist, then for d = q_A·ū_A, q_A·w̄_A:
//	           point(d, p_B − x_A, s_B, d·(p_B − p_A))
//	fixed:     spherical's, then noTwist
//	distance:  point(d, s_A, s_B, |u| − length), u = p_B − p_A,
//	           d = u·(1/|u|) (e_z when |u| = 0)
//	noTwist:   q_e = q_B·(q_A·rel)⁻¹ (sign flipped when its w < 0),
//	           θ = 2·q_e.v; angle(e_k, θ_k), k = x, y, z
//	motor:     a = q_A·ā_A; revolute angle(a·(−1), 0), prismatic
//	           point(a·(−1), p_B − x_A, s_B, 0); its r is −speed and
//	           its bounds ±maxForce·h (±Inf when maxForce is 0)
//
// Every other row's bounds are ±Inf. Then r_r += D_rᵀ vfree
// (lib/joint_row.glsl's jointVelocity). Vector and quaternion operations
// are mgl64's (lib/quat.glsl and the helpers below), term by term, every
// operation `precise`.
// Bindings (set 0): 0 frame (read; 26 float64 per joint: s̄_A, s̄_B,
// ā_A, ā_B, ū_A, w̄_A (3 each), rel (w, x, y, z), length, motor speed,
// motor max force (0: none), unused), 1 meta (read; 5 uint32 per joint:
// kind (engine.JointKind), A, B, first row, has motor), 2 pos (3 per
// body), 3 rot (4 per body), 4 vfree (6 per body, world frame:
// world_velocity's turn of free_velocity's), 5 jlo, 6 jhi (written;
// 1 per row), 7 r (written from jbase: 1 per row), 8–12 jlin, jrotA,
// jrotB (written), jrowA, jrowB (read) as lib/joint_row.glsl.
// Arguments: double h, double maxRecovery, uint jbase (3nc), uint nj
// (joints) (24 bytes).
// Dispatch: (min(⌈nj/64⌉, max group count), 1, 1) workgroups of 64; a
// grid-stride loop covers any nj.
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer Frame { double frame[]; };
layout(std430, set = 0, binding = 1) readonly buffer Meta { uint meta[]; };
layout(std430, set = 0, binding = 2) readonly buffer Pos { double pos[]; };
layout(std430, set = 0, binding = 3) readonly buffer Rot { double rot[]; };
layout(std430, set = 0, binding = 4) readonly buffer VFree { double vfree[]; };
#define JOINT_BOUNDS_BINDING 5
#define JOINT_BOUNDS_ACCESS writeonly
#include "joint_bounds.glsl"
layout(std430, set = 0, binding = 7) buffer R { double r[]; };

#define JOINT_ROW_BINDING 8
#define JOINT_ROW_ACCESS
#define JOINT_V(j) vfree[j]
#include "joint_row.glsl"
#include "quat.glsl"

layout(std430, binding = 31) restrict readonly buffer Push {
	double h;
	double maxRecovery;
	uint jbase;
	uint nj;
} p;

// The joint kinds, as engine.JointKind.
const uint SPHERICAL = 0u;
const uint REVOLUTE = 1u;
const uint PRISMATIC = 2u;
const uint FIXED = 3u;
const uint DISTANCE = 4u;

const uint FRAME = 26u;
const uint META = 5u;

// dot3 is mgl64's Vec3.Dot.
precise double dot3(dvec3 a, dvec3 b) {
	return a.x * b.x + a.y * b.y + a.z * b.z;
}

// neg3 is mgl64's v.Mul(-1).
precise dvec3 neg3(dvec3 v) {
	return dvec3(v.x * -1.0lf, v.y * -1.0lf, v.z * -1.0lf);
}

// quatMul is mgl64's Quat.Mul: (w1w2 − v1·v2, v1 × v2 + v2·w1 + v1·w2).
precise dvec4 quatMul(dvec4 a, dvec4 b) {
	dvec3 av = a.yzw;
	dvec3 bv = b.yzw;
	precise double w = a.x * b.x - dot3(av, bv);
	precise dvec3 c = cross3(av, bv);
	precise double x = c.x + bv.x * a.x + av.x * b.x;
	precise double y = c.y + bv.y * a.x + av.y * b.x;
	precise double z = c.z + bv.z * a.x + av.z * b.x;
	return dvec4(w, x, y, z);
}

// conj is mgl64's Quat.Conjugate.
dvec4 conj(dvec4 q) {
	return dvec4(q.x, neg3(q.yzw));
}

// rot4 rotates v by the quaternion q (w, x, y, z).
dvec3 rot4(dvec4 q, dvec3 v) {
	return rotate(q.x, q.yzw, v);
}

dvec3 fvec(uint o) {
	return dvec3(frame[o], frame[o + 1u], frame[o + 2u]);
}

dvec3 sub3(dvec3 a, dvec3 b) {
	precise dvec3 d = dvec3(a.x - b.x, a.y - b.y, a.z - b.z);
	return d;
}

dvec3 add3(dvec3 a, dvec3 b) {
	precise dvec3 d = dvec3(a.x + b.x, a.y + b.y, a.z + b.z);
	return d;
}

// The joint being built: its bodies' poses, its next row, and h.
dvec3 xa, xb;
dvec4 qa, qb;
uint row;

void pose(uint i, out dvec3 x, out dvec4 q) {
	if (i == JOINT_WORLD) {
		x = dvec3(0.0lf);
		q = dvec4(1.0lf, 0.0lf, 0.0lf, 0.0lf);
		return;
	}
	x = dvec3(pos[3u * i], pos[3u * i + 1u], pos[3u * i + 2u]);
	q = dvec4(rot[4u * i], rot[4u * i + 1u], rot[4u * i + 2u], rot[4u * i + 3u]);
}

// stab is cpuref's stabilisation term: C/h, clamped to ±maxRecovery when
// that is positive.
double stab(double c) {
	precise double s = c / p.h;
	if (p.maxRecovery > 0.0lf) {
		s = clampRow(s, -p.maxRecovery, p.maxRecovery);
	}
	return s;
}

void setRow(dvec3 lin, dvec3 ra, dvec3 rb, double bias) {
	uint b = 3u * row;
	jlin[b] = lin.x;
	jlin[b + 1u] = lin.y;
	jlin[b + 2u] = lin.z;
	jrotA[b] = ra.x;
	jrotA[b + 1u] = ra.y;
	jrotA[b + 2u] = ra.z;
	jrotB[b] = rb.x;
	jrotB[b + 1u] = rb.y;
	jrotB[b + 2u] = rb.z;
	r[p.jbase + row] = bias;
	jlo[row] = -1.0lf / 0.0lf;
	jhi[row] = 1.0lf / 0.0lf;
	row++;
}

void point(dvec3 d, dvec3 sa, dvec3 sb, double c) {
	setRow(d, cross3(d, sa), cross3(sb, d), stab(c));
}

void angle(dvec3 c, double e) {
	setRow(dvec3(0.0lf), neg3(c), c, stab(e));
}

const dvec3 E[3] = dvec3[3](dvec3(1.0lf, 0.0lf, 0.0lf), dvec3(0.0lf, 1.0lf, 0.0lf), dvec3(0.0lf, 0.0lf, 1.0lf));

void sharedPoint(dvec3 sa, dvec3 sb, dvec3 pa, dvec3 pb) {
	for (uint k = 0u; k < 3u; k++) {
		point(E[k], sa, sb, dot3(E[k], sub3(pb, pa)));
	}
}

void noTwist(dvec4 rel) {
	precise dvec4 qe = quatMul(qb, conj(quatMul(qa, rel)));
	if (qe.x < 0.0lf) {
		qe = dvec4(qe.x * -1.0lf, qe.y * -1.0lf, qe.z * -1.0lf, qe.w * -1.0lf);
	}
	precise dvec3 th = dvec3(qe.y * 2.0lf, qe.z * 2.0lf, qe.w * 2.0lf);
	for (uint k = 0u; k < 3u; k++) {
		angle(E[k], th[k]);
	}
}

void main() {
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint j = gl_GlobalInvocationID.x; j < p.nj; j += stride) {
		uint m = META * j;
		uint kind = meta[m];
		uint a = meta[m + 1u];
		uint b = meta[m + 2u];
		uint first = meta[m + 3u];
		bool motor = meta[m + 4u] != 0u;
		uint f = FRAME * j;
		dvec3 sa = fvec(f);
		dvec3 sb = fvec(f + 3u);
		dvec3 axisA = fvec(f + 6u);
		dvec3 axisB = fvec(f + 9u);
		dvec3 ua = fvec(f + 12u);
		dvec3 wa = fvec(f + 15u);
		dvec4 rel = dvec4(frame[f + 18u], frame[f + 19u], frame[f + 20u], frame[f + 21u]);
		pose(a, xa, qa);
		pose(b, xb, qb);
		row = first;
		dvec3 pa = add3(xa, rot4(qa, sa));
		dvec3 pb = add3(xb, rot4(qb, sb));
		dvec3 swa = sub3(pa, xa);
		dvec3 swb = sub3(pb, xb);
		if (kind == SPHERICAL) {
			sharedPoint(swa, swb, pa, pb);
		} else if (kind == REVOLUTE) {
			sharedPoint(swa, swb, pa, pb);
			dvec3 ab = rot4(qb, axisB);
			for (uint k = 0u; k < 2u; k++) {
				dvec3 d = rot4(qa, k == 0u ? ua : wa);
				angle(cross3(ab, d), dot3(d, ab));
			}
		} else if (kind == PRISMATIC) {
			noTwist(rel);
			dvec3 sp = sub3(pb, xa);
			for (uint k = 0u; k < 2u; k++) {
				dvec3 d = rot4(qa, k == 0u ? ua : wa);
				point(d, sp, swb, dot3(d, sub3(pb, pa)));
			}
		} else if (kind == FIXED) {
			sharedPoint(swa, swb, pa, pb);
			noTwist(rel);
		} else if (kind == DISTANCE) {
			dvec3 u = sub3(pb, pa);
			precise double l = sqrt(u.x * u.x + u.y * u.y + u.z * u.z);
			precise dvec3 d = dvec3(0.0lf, 0.0lf, 1.0lf);
			if (l > 0.0lf) {
				precise double il = 1.0lf / l;
				d = dvec3(u.x * il, u.y * il, u.z * il);
			}
			precise double c = l - frame[f + 22u];
			point(d, swa, swb, c);
		}
		if (motor) {
			dvec3 ax = rot4(qa, axisA);
			if (kind == REVOLUTE) {
				angle(neg3(ax), 0.0lf);
			} else {
				point(neg3(ax), sub3(pb, xa), swb, 0.0lf);
			}
			uint r0 = row - 1u;
			r[p.jbase + r0] = -frame[f + 23u];
			double lim = 1.0lf / 0.0lf;
			if (frame[f + 24u] > 0.0lf) {
				precise double l = frame[f + 24u] * p.h;
				lim = l;
			}
			jlo[r0] = -lim;
			jhi[r0] = lim;
		}
		for (uint k = first; k < row; k++) {
			precise double v = r[p.jbase + k] + jointVelocity(k);
			r[p.jbase + k] = v;
		}
	}
}
