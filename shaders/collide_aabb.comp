#version 450
// collide_aabb: the first stage of collision on the device for every body
// i: its speculative margin, its world AABB inflated by envelope + margin,
// and its grid class and bin range (cpuref's Collider.Collide, ShapeAABB
// and Grid.classify); it also clears the slot counters of collide_bin.
//
// Loop, for each body i (ShapeAABB and quatRows as in cpuref/broad.go):
//
//	m := 0
//	if !fixed[i] {
//		m = h·(|v_i| + |ω_i|·R_i) + (h·h)·|g + F_i·(1/m_i)|      // mgl64 Len
//	} else if kinematic[i] {
//		m = h·(|v_i| + |ω_i|·R_i)                                 // its prescribed velocity only
//	}
//	box[8i:8i+8] = (lo, hi, m, 0): ShapeAABB(shape_i, pos_i, rot_i, env + m)
//	(capsule, cylinder: e_k = h·|R_k2| + r, h·|R_k2| + r·√(R_k0² + R_k1²))
//	plane:   cell[4i+3] = 2<<24, box[8i:8i+8] = (rot_i.Rotate(0, 0, 1), 0, …, 0)
//	bounded: l_k = floor(lo_k·inv), u_k = floor(hi_k·inv), cells = Π (u_k − l_k + 1)
//	         !(cells ≤ 64): big, cell[4i+3] = 1<<24
//	         else cell[4i:4i+3] = l, cell[4i+3] = n_0 | n_1<<8 | n_2<<16 (n_k = u_k − l_k + 1)
//	specialOff[i] = 1 for big bodies and planes, else 0
//
// and, for i ≤ slots: slots[i] = 0 (the slot counts) and slots[slots+1+i]
// = 0 (the scatter cursors).
// What cpuref's checkGridInput and classify reject (a non-finite or
// inverted box, a non-finite plane or a zero plane normal, a bin beyond
// 2³¹) sets bit 0 of meta[5]: the host then reruns cpuref's Collide for its
// error message. Every operation is `precise`: bit for bit cpuref where
// float64 division and square root are correctly rounded.
// Bindings (set 0): 0 pos (3 float64 per body, m), 1 rot (4, w x y z),
// 2 vel (3, m/s), 3 omega (3, rad/s), 4 invMass (1, 1/kg), 5 force (3, N;
// 3 float64 of zeros for a model without loads, fstride 0),
// 6 fixedBody (uint32: 0 movable, 2 kinematic, else fixed), 7 shape (5 float64 per body: kind, size 0–2,
// bounding radius R, m), all read; 8 box (8 float64 per body: min, max,
// margin, 0; a plane's normal, then zeros), 9 cell (4 int32 per body), 10
// specialOff (uint32, n+1), 11 slots (uint32, 2·slots+2), 12 meta (uint32,
// bit 0 of meta[5] set on error), all written.
// Arguments: double gx, gy, gz (m/s²), double h (s), double env (m),
// double inv (1/bin size, 1/m), uint n, uint slots, uint fstride (the
// stride of force: 3, or 0) (60 bytes).
// Dispatch: (min(⌈max(n, slots + 1)/64⌉, max group count), 1, 1)
// workgroups of 64; a grid-stride loop covers any size.
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer Pos { double pos[]; };
layout(std430, set = 0, binding = 1) readonly buffer Rot { double rot[]; };
layout(std430, set = 0, binding = 2) readonly buffer Vel { double vel[]; };
layout(std430, set = 0, binding = 3) readonly buffer Omega { double omega[]; };
layout(std430, set = 0, binding = 4) readonly buffer InvMass { double invMass[]; };
layout(std430, set = 0, binding = 5) readonly buffer Force { double force[]; };
layout(std430, set = 0, binding = 6) readonly buffer FixedBody { uint fixedBody[]; };
layout(std430, set = 0, binding = 7) readonly buffer Shape { double shape[]; };
layout(std430, set = 0, binding = 8) writeonly buffer Box { double box[]; };
layout(std430, set = 0, binding = 9) writeonly buffer Cell { int cell[]; };
layout(std430, set = 0, binding = 10) writeonly buffer SpecialOff { uint specialOff[]; };
layout(std430, set = 0, binding = 11) writeonly buffer Slots { uint slots[]; };
layout(std430, set = 0, binding = 12) buffer Meta { uint meta[]; };

layout(std430, binding = 31) restrict readonly buffer Push {
	double gx, gy, gz;
	double h;
	double env;
	double inv;
	uint n;
	uint slots;
	uint fstride; // 3, or 0 for a model without loads: force holds one body's zeros
} p;

const uint SPHERE = 0u;
const uint ELLIPSOID = 1u;
const uint BOX = 2u;
const uint PLANE = 3u;
const uint CAPSULE = 5u;
const uint CYLINDER = 6u;

double len3(double a, double b, double c) {
	precise double s = a * a + b * b + c * c;
	precise double r = sqrt(s);
	return r;
}

#include "finite.glsl"

void main() {
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	uint total = max(p.n, p.slots + 1u);
	for (uint i = gl_GlobalInvocationID.x; i < total; i += stride) {
		if (i <= p.slots) {
			slots[i] = 0u;
			slots[p.slots + 1u + i] = 0u;
		}
		if (i >= p.n) {
			continue;
		}
		uint kind = uint(shape[5u * i]);
		double px = pos[3u * i], py = pos[3u * i + 1u], pz = pos[3u * i + 2u];
		double qw = rot[4u * i], qx = rot[4u * i + 1u], qy = rot[4u * i + 2u], qz = rot[4u * i + 3u];
		precise double m = 0.0lf;
		if (fixedBody[i] == 0u) {
			double v = len3(vel[3u * i], vel[3u * i + 1u], vel[3u * i + 2u]);
			double w = len3(omega[3u * i], omega[3u * i + 1u], omega[3u * i + 2u]);
			double im = invMass[i];
			uint fi = p.fstride * i;
			precise double a0 = p.gx + force[fi] * im;
			precise double a1 = p.gy + force[fi + 1u] * im;
			precise double a2 = p.gz + force[fi + 2u] * im;
			double a = len3(a0, a1, a2);
			m = p.h * (v + w * shape[5u * i + 4u]) + p.h * p.h * a;
		} else if (fixedBody[i] == 2u) {
			double v = len3(vel[3u * i], vel[3u * i + 1u], vel[3u * i + 2u]);
			double w = len3(omega[3u * i], omega[3u * i + 1u], omega[3u * i + 2u]);
			m = p.h * (v + w * shape[5u * i + 4u]);
		}
		if (kind == PLANE) {
			// A plane: unbounded; its outward normal is mgl64's
			// rot.Rotate((0, 0, 1)) = v + c·(2w) + (2V) × c, c = V × v.
			precise double c0 = qy * 1.0lf - qz * 0.0lf;
			precise double c1 = qz * 0.0lf - qx * 1.0lf;
			precise double c2 = qx * 0.0lf - qy * 0.0lf;
			precise double t = 2.0lf * qw;
			precise double a0 = 0.0lf + c0 * t;
			precise double a1 = 0.0lf + c1 * t;
			precise double a2 = 1.0lf + c2 * t;
			precise double v0 = qx * 2.0lf, v1 = qy * 2.0lf, v2 = qz * 2.0lf;
			precise double n0 = a0 + (v1 * c2 - v2 * c1);
			precise double n1 = a1 + (v2 * c0 - v0 * c2);
			precise double n2 = a2 + (v0 * c1 - v1 * c0);
			// A plane has no box: its slot holds the normal, then zeros
			// (margin m = 0, which collide_narrow reads).
			box[8u * i] = n0;
			box[8u * i + 1u] = n1;
			box[8u * i + 2u] = n2;
			for (uint k = 3u; k < 8u; k++) {
				box[8u * i + k] = 0.0lf;
			}
			cell[4u * i] = 0;
			cell[4u * i + 1] = 0;
			cell[4u * i + 2] = 0;
			cell[4u * i + 3] = 2 << 24;
			specialOff[i] = 1u;
			if (!finite(px) || !finite(py) || !finite(pz) || !finite(n0) || !finite(n1) || !finite(n2) ||
				(n0 == 0.0lf && n1 == 0.0lf && n2 == 0.0lf)) {
				atomicOr(meta[5], 1u);
			}
			continue;
		}
		double e[3];
		if (kind == SPHERE) {
			double r = shape[5u * i + 1u];
			e[0] = r;
			e[1] = r;
			e[2] = r;
		} else {
			precise double n2 = qw * qw + qx * qx + qy * qy + qz * qz;
			precise double s = 2.0lf / n2;
			precise double r[9];
			r[0] = 1.0lf - s * (qy * qy + qz * qz);
			r[1] = s * (qx * qy - qw * qz);
			r[2] = s * (qx * qz + qw * qy);
			r[3] = s * (qx * qy + qw * qz);
			r[4] = 1.0lf - s * (qx * qx + qz * qz);
			r[5] = s * (qy * qz - qw * qx);
			r[6] = s * (qx * qz - qw * qy);
			r[7] = s * (qy * qz + qw * qx);
			r[8] = 1.0lf - s * (qx * qx + qy * qy);
			for (uint k = 0u; k < 3u; k++) {
				if (kind == CAPSULE || kind == CYLINDER) {
					// ShapeAABB: the axis's ends reach h·|R_k2|; a
					// capsule's ball adds r, a cylinder's rim
					// r·√(R_k0² + R_k1²).
					double rad = shape[5u * i + 1u], hl = shape[5u * i + 2u];
					precise double ek = hl * abs(r[3u * k + 2u]);
					if (kind == CAPSULE) {
						ek = ek + rad;
					} else {
						precise double q = sqrt(r[3u * k] * r[3u * k] + r[3u * k + 1u] * r[3u * k + 1u]);
						ek = ek + rad * q;
					}
					e[k] = ek;
					continue;
				}
				precise double sum = 0.0lf;
				for (uint j = 0u; j < 3u; j++) {
					precise double v = r[3u * k + j] * shape[5u * i + 1u + j];
					if (kind == BOX) {
						sum = sum + abs(v);
					} else {
						sum = sum + v * v;
					}
				}
				if (kind == ELLIPSOID) {
					precise double q = sqrt(sum);
					sum = q;
				}
				e[k] = sum;
			}
		}
		precise double mg = p.env + m;
		precise double e0 = e[0] + mg, e1 = e[1] + mg, e2 = e[2] + mg;
		precise double lo0 = px - e0, lo1 = py - e1, lo2 = pz - e2;
		precise double hi0 = px + e0, hi1 = py + e1, hi2 = pz + e2;
		box[8u * i] = lo0;
		box[8u * i + 1u] = lo1;
		box[8u * i + 2u] = lo2;
		box[8u * i + 3u] = hi0;
		box[8u * i + 4u] = hi1;
		box[8u * i + 5u] = hi2;
		box[8u * i + 6u] = m;
		box[8u * i + 7u] = 0.0lf;
		if (!finite(lo0) || !finite(lo1) || !finite(lo2) || !finite(hi0) || !finite(hi1) || !finite(hi2) ||
			lo0 > hi0 || lo1 > hi1 || lo2 > hi2) {
			atomicOr(meta[5], 1u);
		}
		precise double l0 = floor(lo0 * p.inv), l1 = floor(lo1 * p.inv), l2 = floor(lo2 * p.inv);
		precise double u0 = floor(hi0 * p.inv), u1 = floor(hi1 * p.inv), u2 = floor(hi2 * p.inv);
		precise double w0 = u0 - l0 + 1.0lf, w1 = u1 - l1 + 1.0lf, w2 = u2 - l2 + 1.0lf;
		precise double cells = 1.0lf;
		cells = cells * w0;
		cells = cells * w1;
		cells = cells * w2;
		if (!(cells <= 64.0lf)) {
			cell[4u * i] = 0;
			cell[4u * i + 1] = 0;
			cell[4u * i + 2] = 0;
			cell[4u * i + 3] = 1 << 24;
			specialOff[i] = 1u;
			continue;
		}
		const double MIN = -2147483648.0lf, MAX = 2147483647.0lf;
		if (!(l0 >= MIN && u0 <= MAX && l1 >= MIN && u1 <= MAX && l2 >= MIN && u2 <= MAX)) {
			atomicOr(meta[5], 1u);
			l0 = 0.0lf;
			l1 = 0.0lf;
			l2 = 0.0lf;
			w0 = 1.0lf;
			w1 = 1.0lf;
			w2 = 1.0lf;
		}
		cell[4u * i] = int(l0);
		cell[4u * i + 1] = int(l1);
		cell[4u * i + 2] = int(l2);
		cell[4u * i + 3] = int(uint(w0) | uint(w1) << 8 | uint(w2) << 16);
		specialOff[i] = 0u;
	}
}
