#version 450
// collide_narrow: the narrowphase of every candidate pair (cpuref's
// Narrow, every pair of kinds, with its swap into kind order and
// mirroring), counting the contacts (modes 0 and 3) or writing them (mode
// 1) at the pair's offset from the scan of the counts, as cpuref's
// Collider.Collide does: contacts in pair order, within a pair in
// narrowphase order. The contacts of a pair whose EPA polytope outgrows
// the device's bound come from the host.
//
// Loop, for each pair q = (i, j) of collide_pairs, with env' = env + m_i +
// m_j (m the speculative margins of collide_aabb):
//
//	cps := Narrow(shape_i, (pos_i, rot_i), shape_j, (pos_j, rot_j), env')
//	mode 0: off[q] = len(cps)
//	        off[q] = 0; fbList[3f:3f+3] = (q, i, j), f = atomicAdd(meta[6], 1)  (EPA overflow)
//	mode 3: as mode 0 without the list
//	mode 2: for each record f < meta[6] of fb (q, count, first): off[q] = count
//	mode 1: for k, c := range cps, at t = off[q] + k < cap:
//	        a, b = i, j; normal = c.Normal; phi = c.Phi; sub = k
//	        pa = conj(rot_i).Rotate(c.PA − pos_i); pb = conj(rot_j).Rotate(c.PB − pos_j)
//	        mu = min(μ_i, μ_j); cohesion = min(ĉ_i, ĉ_j)     // engine.CombineMaterials
//
//	        (EPA overflow: the off[q+1] − off[q] contacts host[12(first+k):]
//	        of its fb record, normal, pa, pb, phi, mu, cohesion, are copied)
//
// Besides the closed forms: sphere–ellipsoid is Eberly's closest point
// (Newton on the secular equation); box–box the separating axes, face
// clipping and GJK for boxes apart; ellipsoid–ellipsoid and ellipsoid–box
// GJK on the cores, EPA when they overlap, then Newton on the sphere (over
// the box's normal fan), all as cpuref/narrow_*.go, with fixed-size
// arrays for the simplex and the polytope. Capsules and cylinders
// (collide/narrow_round.go): sphere–capsule, plane–capsule,
// capsule–capsule (with its two-point branch for parallel axes),
// sphere–cylinder and plane–cylinder are its closed forms; their pairs
// with ellipsoids and boxes, capsule–cylinder and cylinder–cylinder, which
// collide computes by GJK/EPA (and manifolds on top), are row
// PAIR_HOST_ROUND: always listed for the host (argument host), never
// computed here. The device's EPA polytope holds
// EPA_VERTS = 32 vertices (cpuref's 48; about 5 KB of private memory
// per invocation); a pair whose EPA would grow beyond it where cpuref's goes
// on (only pairs whose cores overlap: deeper than both margins) sets
// bit 1 of meta[5] in mode 0 before adding any contact
// and goes to the list: the host runs cpuref's narrowphase on the listed
// pairs and uploads their counts and contacts as fb (records sorted by q)
// and host, and modes 3, 2 and 1 then place every pair's contacts. A
// non-finite Φ or normal sets bit 2 (cpuref's Collide rejects it). Every
// operation is `precise` and written in cpuref's order (mgl64 Len, Dot,
// Rotate, bodyFrame as in cpuref/narrow.go); math.Min and math.Max are
// GLSL's min and max, which differ from Go's only in the sign of a zero
// result. Heavy functions (GJK, closestTriangle, boxFace, the
// ellipsoid–box search) have one call site each: the kernel is inlined whole, and
// lavapipe compiles it in about 20 s.
// Bindings (set 0): 0 pos (3 float64 per body), 1 rot (4), 2 shape (5:
// kind, size, R), 3 mat (2 per body, or 2 in all: μ, ĉ in N), 4 box (8: margin at 6), 5 pairA,
// 6 pairB (uint32), all read; 7 off (uint32, pcap+1: written in mode 0,
// read in mode 1); 8 a, 9 b (uint32), 10 normal, 11 pa, 12 pb (3 float64
// per contact, pa and pb in the body frames, m), 13 phi (m), 14 mu,
// 15 cohesion (1 float64 per contact, or one for every contact:
// lib/contact_material.glsl), 16 sub (uint32), written in mode 1;
// 17 meta (uint32: pairs at 2, flags at 5, listed pairs at 6); 18 fbList
// (uint32, 3 per listed pair, written in mode 0); 19 fb (uint32, 3 per
// record) and 20 host (12 float64 per host contact), read; 21 pairN (4
// float64 per pair: the ellipsoid pairs' normal from GJK/EPA/Newton and
// a state, 0 none, 1 normal, 2 EPA overflow; written in mode 0, read in
// modes 3 and 1, which compute the contact from it instead of searching
// again: the same operations on the same normal, so the same bits;
// bound in windows, lib/window.glsl, as it may pass the device's
// maxStorageBufferRange at a million ellipsoids).
// Arguments: double env (m), uint mode, uint pcap, uint cap, uint
// host (24 bytes).
//
// The narrowphase table: each pair falls in one class, a row of the table
// (PAIR_* below: the pair of kinds after the swap into kind order). The
// specialization constant CLASSES (bit c for class c) says which rows
// this pipeline computes; the backend builds one pipeline per group of
// rows that its model needs, so that a driver compiles only those (the
// GJK/EPA row is most of the kernel), and lists a row for the host when
// no pipeline of it builds on the device: argument host (bit c for
// class c, given to one pipeline only) lists that row's pairs as an EPA
// overflow is listed. A pipeline skips the pairs of the rows it neither
// computes nor lists; mode 2 is dispatched on one pipeline.
// Dispatch: (min(⌈pcap/64⌉, 16), 1, 1) workgroups of 64; a
// grid-stride loop covers the meta[2] pairs (mode 2: meta[6] records).
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer Pos { double pos[]; };
layout(std430, set = 0, binding = 1) readonly buffer Rot { double rot[]; };
layout(std430, set = 0, binding = 2) readonly buffer Shape { double shape[]; };
layout(std430, set = 0, binding = 3) readonly buffer Mat { double mat[]; };
// MAT_BODY(i): body i's place in mat, which holds each body's μ and
// cohesion, or one body's where the model has one friction and one
// cohesion (lib/contact_material.glsl): the index clamped to its length.
#define MAT_BODY(i) min((i), uint(mat.length()) / 2u - 1u)
layout(std430, set = 0, binding = 4) readonly buffer Box { double box[]; };
layout(std430, set = 0, binding = 5) readonly buffer PairA { uint pairA[]; };
layout(std430, set = 0, binding = 6) readonly buffer PairB { uint pairB[]; };
layout(std430, set = 0, binding = 7) buffer Off { uint off[]; };
layout(std430, set = 0, binding = 8) writeonly buffer A { uint ca[]; };
layout(std430, set = 0, binding = 9) writeonly buffer B { uint cb[]; };
layout(std430, set = 0, binding = 10) writeonly buffer Normal { double normal[]; };
layout(std430, set = 0, binding = 11) writeonly buffer PA { double pa[]; };
layout(std430, set = 0, binding = 12) writeonly buffer PB { double pb[]; };
layout(std430, set = 0, binding = 13) writeonly buffer Phi { double phi_[]; };
layout(std430, set = 0, binding = 14) writeonly buffer Mu { double mu[]; };
layout(std430, set = 0, binding = 15) writeonly buffer Cohesion { double cohesion[]; };
#include "contact_material.glsl"
layout(std430, set = 0, binding = 16) writeonly buffer Sub { uint sub[]; };
layout(std430, set = 0, binding = 17) buffer Meta { uint meta[]; };
layout(std430, set = 0, binding = 18) writeonly buffer FbList { uint fbList[]; };
layout(std430, set = 0, binding = 19) readonly buffer Fb { uint fbRec[]; };
layout(std430, set = 0, binding = 20) readonly buffer Host { double host[]; };
#include "window.glsl"
WINDOWED(21, double, 3, pairN)

layout(std430, binding = 31) restrict readonly buffer Push {
	double env;
	uint mode;
	uint pcap;
	uint cap;
	uint host;
} p;

const uint SPHERE = 0u;
const uint ELLIPSOID = 1u;
const uint BOX = 2u;
const uint PLANE = 3u;
const uint CAPSULE = 5u;
const uint CYLINDER = 6u;

// The rows of the narrowphase table (gpu/narrow.go names them too).
const uint PAIR_SPHERE_SPHERE = 0u;
const uint PAIR_SPHERE_BOX = 1u;
const uint PAIR_SPHERE_PLANE = 2u;
const uint PAIR_ELLIPSOID_PLANE = 3u;
const uint PAIR_BOX_PLANE = 4u;
const uint PAIR_SPHERE_ELLIPSOID = 5u;
const uint PAIR_BOX_BOX = 6u;        // separating axes, clipping, GJK
const uint PAIR_ELLIPSOID_CONVEX = 7u; // ellipsoid–ellipsoid, ellipsoid–box: GJK/EPA, Newton
const uint PAIR_SPHERE_CAPSULE = 8u;
const uint PAIR_PLANE_CAPSULE = 9u;
const uint PAIR_CAPSULE_CAPSULE = 10u;
const uint PAIR_SPHERE_CYLINDER = 11u;
const uint PAIR_PLANE_CYLINDER = 12u;
const uint PAIR_HOST_ROUND = 13u;      // ellipsoid or box with a capsule or a cylinder, capsule–cylinder,
                                       // cylinder–cylinder: GJK/EPA on the host, never computed here
const uint PAIR_NONE = 14u;            // plane–plane: no contact

layout(constant_id = 0) const uint CLASSES = 0x7fffu;
const bool HAS_SPHERE_SPHERE = (CLASSES & 1u) != 0u;
const bool HAS_SPHERE_BOX = (CLASSES & 2u) != 0u;
const bool HAS_SPHERE_PLANE = (CLASSES & 4u) != 0u;
const bool HAS_ELLIPSOID_PLANE = (CLASSES & 8u) != 0u;
const bool HAS_BOX_PLANE = (CLASSES & 16u) != 0u;
const bool HAS_SPHERE_ELLIPSOID = (CLASSES & 32u) != 0u;
const bool HAS_BOX_BOX = (CLASSES & 64u) != 0u;
const bool HAS_ELLIPSOID_CONVEX = (CLASSES & 128u) != 0u;
const bool HAS_SPHERE_CAPSULE = (CLASSES & 256u) != 0u;
const bool HAS_PLANE_CAPSULE = (CLASSES & 512u) != 0u;
const bool HAS_CAPSULE_CAPSULE = (CLASSES & 1024u) != 0u;
const bool HAS_SPHERE_CYLINDER = (CLASSES & 2048u) != 0u;
const bool HAS_PLANE_CYLINDER = (CLASSES & 4096u) != 0u;

// pairClass is the row of kinds ka <= kb.
uint pairClass(uint ka, uint kb) {
	if (kb == CAPSULE || kb == CYLINDER) {
		bool cap = kb == CAPSULE;
		if (ka == SPHERE) {
			return cap ? PAIR_SPHERE_CAPSULE : PAIR_SPHERE_CYLINDER;
		}
		if (ka == PLANE) {
			return cap ? PAIR_PLANE_CAPSULE : PAIR_PLANE_CYLINDER;
		}
		return ka == CAPSULE && cap ? PAIR_CAPSULE_CAPSULE : PAIR_HOST_ROUND;
	}
	if (kb == PLANE) {
		return ka == SPHERE ? PAIR_SPHERE_PLANE : ka == ELLIPSOID ? PAIR_ELLIPSOID_PLANE : ka == BOX ? PAIR_BOX_PLANE : PAIR_NONE;
	}
	if (ka == SPHERE) {
		return kb == SPHERE ? PAIR_SPHERE_SPHERE : kb == BOX ? PAIR_SPHERE_BOX : PAIR_SPHERE_ELLIPSOID;
	}
	return ka == BOX ? PAIR_BOX_BOX : PAIR_ELLIPSOID_CONVEX;
}

// The pair being processed: its bodies in the caller's order, whether
// Narrow swapped them, its first contact's index, and the count so far.
uint pi_, pj_, base, pq_;
bool swapped;
uint ncp;
// The pair's least Φ among the contacts added since boxBox reset it
// (cpuref's scan of out[n0:] there), kept by add.
double least;

#include "finite.glsl"
#include "quat.glsl"

dvec3 rotate(dvec4 q, dvec3 v);
dvec3 vec3At(uint i);
dvec4 quatAt(uint i);

// add counts the contact (n, a, b, phi) of the ordered pair when phi is
// below env and, in mode 1, writes it: mirrored when the pair was
// swapped, its points in the bodies' frames.
void add(dvec3 n, dvec3 a, dvec3 b, double phi, double env) {
	if (!(phi < env)) {
		return;
	}
	uint k = ncp;
	ncp++;
	least = min(least, phi);
	if (p.mode != 1u) {
		return;
	}
	if (swapped) {
		precise dvec3 nm = n * -1.0lf;
		n = nm;
		dvec3 t = a;
		a = b;
		b = t;
	}
	if (!finite(phi) || !finite(n.x) || !finite(n.y) || !finite(n.z)) {
		atomicOr(meta[5], 4u);
	}
	uint t = base + k;
	if (t >= p.cap) {
		return;
	}
	uint i = pi_, j = pj_;
	dvec4 qi = quatAt(i), qj = quatAt(j);
	precise dvec4 ci = dvec4(qi.x, qi.yzw * -1.0lf);
	precise dvec4 cj = dvec4(qj.x, qj.yzw * -1.0lf);
	precise dvec3 da = a - vec3At(i);
	precise dvec3 db = b - vec3At(j);
	dvec3 ra = rotate(ci, da), rb = rotate(cj, db);
	ca[t] = i;
	cb[t] = j;
	sub[t] = k;
	for (uint c = 0u; c < 3u; c++) {
		normal[3u * t + c] = n[c];
		pa[3u * t + c] = ra[c];
		pb[3u * t + c] = rb[c];
	}
	phi_[t] = phi;
	if (ROOM(mu, t)) {
		mu[t] = min(mat[2u * MAT_BODY(i)], mat[2u * MAT_BODY(j)]);
	}
	if (ROOM(cohesion, t)) {
		cohesion[t] = min(mat[2u * MAT_BODY(i) + 1u], mat[2u * MAT_BODY(j) + 1u]);
	}
}

double dot3(dvec3 a, dvec3 b) {
	precise double r = a.x * b.x + a.y * b.y + a.z * b.z;
	return r;
}

double len3(dvec3 a) {
	precise double r = sqrt(a.x * a.x + a.y * a.y + a.z * a.z);
	return r;
}

dvec3 vec3At(uint i) { return dvec3(pos[3u * i], pos[3u * i + 1u], pos[3u * i + 2u]); }
dvec4 quatAt(uint i) { return dvec4(rot[4u * i], rot[4u * i + 1u], rot[4u * i + 2u], rot[4u * i + 3u]); }
dvec3 sizeOf(uint i) { return dvec3(shape[5u * i + 1u], shape[5u * i + 2u], shape[5u * i + 3u]); }

// rotate is lib/quat.glsl's rotate (mgl64's Quat.Rotate) with the
// quaternion as q = (w, x, y, z).
dvec3 rotate(dvec4 q, dvec3 v) { return rotate(q.x, q.yzw, v); }

// Frame: cpuref's bodyFrame, columns r0, r1, r2 (the body axes in the
// world frame) of the rotation of q/|q|.
struct Frame {
	dvec3 c, r0, r1, r2;
};

Frame frameOf(dvec3 c, dvec4 q) {
	double w = q.x, x = q.y, y = q.z, z = q.w;
	precise double n2 = w * w + x * x + y * y + z * z;
	Frame f;
	f.c = c;
	if (n2 == 0.0lf) {
		f.r0 = dvec3(1.0lf, 0.0lf, 0.0lf);
		f.r1 = dvec3(0.0lf, 1.0lf, 0.0lf);
		f.r2 = dvec3(0.0lf, 0.0lf, 1.0lf);
		return f;
	}
	precise double s = 2.0lf / n2;
	precise dvec3 r0 = dvec3(1.0lf - s * (y * y + z * z), s * (x * y + w * z), s * (x * z - w * y));
	precise dvec3 r1 = dvec3(s * (x * y - w * z), 1.0lf - s * (x * x + z * z), s * (y * z + w * x));
	precise dvec3 r2 = dvec3(s * (x * z + w * y), s * (y * z - w * x), 1.0lf - s * (x * x + y * y));
	f.r0 = r0;
	f.r1 = r1;
	f.r2 = r2;
	return f;
}

dvec3 dirToWorld(Frame f, dvec3 v) {
	precise dvec3 r = f.r0 * v.x + f.r1 * v.y + f.r2 * v.z;
	return r;
}

dvec3 toWorld(Frame f, dvec3 v) {
	dvec3 d = dirToWorld(f, v);
	precise dvec3 r = f.c + d;
	return r;
}

dvec3 dirToBody(Frame f, dvec3 v) { return dvec3(dot3(f.r0, v), dot3(f.r1, v), dot3(f.r2, v)); }

void sphereSphere(double ra, dvec3 ca, double rb, dvec3 cb, double env) {
	precise dvec3 d = cb - ca;
	double dist = len3(d);
	precise double phi = dist - ra - rb;
	if (!(phi < env)) {
		return;
	}
	precise dvec3 n = dvec3(0.0lf, 0.0lf, 1.0lf);
	if (dist > 0.0lf) {
		precise double inv = 1.0lf / dist;
		n = d * inv;
	}
	precise dvec3 a = ca + n * ra;
	precise dvec3 b = cb - n * rb;
	add(n, a, b, phi, env);
}

void spherePlane(double r, dvec3 c, Frame fp, double env) {
	dvec3 np = fp.r2;
	precise dvec3 cp = c - fp.c;
	double h = dot3(cp, np);
	precise dvec3 n = np * -1.0lf;
	precise dvec3 a = c - np * r;
	precise dvec3 b = c - np * h;
	precise double phi = h - r;
	add(n, a, b, phi, env);
}

void sphereBox(double r, dvec3 c, dvec3 hb, Frame fb, double env) {
	precise dvec3 cc = c - fb.c;
	dvec3 y = dirToBody(fb, cc);
	precise dvec3 q;
	for (int i = 0; i < 3; i++) {
		precise double nh = -hb[i];
		q[i] = max(nh, min(hb[i], y[i]));
	}
	precise dvec3 d = y - q;
	double dist = len3(d);
	precise dvec3 m = dvec3(0.0lf);
	precise double phi;
	if (dist > 0.0lf) {
		precise double inv = 1.0lf / dist;
		m = d * inv;
		phi = dist - r;
	} else {
		int k = 0;
		precise double depth = hb[0] - abs(y[0]);
		for (int i = 1; i < 3; i++) {
			precise double di = hb[i] - abs(y[i]);
			if (di < depth) {
				k = i;
				depth = di;
			}
		}
		double s = 1.0lf;
		if (y[k] < 0.0lf) {
			s = -1.0lf;
		}
		m[k] = s;
		precise double qk = s * hb[k];
		q[k] = qk;
		phi = -depth - r;
	}
	if (!(phi < env)) {
		return;
	}
	dvec3 mw = dirToWorld(fb, m);
	precise dvec3 n = mw * -1.0lf;
	precise dvec3 a = c - mw * r;
	add(n, a, toWorld(fb, q), phi, env);
}

void ellipsoidPlane(dvec3 s, Frame fe, Frame fp, double env) {
	dvec3 np = fp.r2;
	dvec3 m = dirToBody(fe, np);
	precise dvec3 sm = dvec3(s.x * m.x, s.y * m.y, s.z * m.z);
	double l = len3(sm);
	precise dvec3 cp = fe.c - fp.c;
	precise double h = dot3(cp, np) - l;
	if (!(h < env) || !(l > 0.0lf)) {
		return;
	}
	precise double f = -1.0lf / l;
	precise dvec3 v = dvec3(s.x * sm.x, s.y * sm.y, s.z * sm.z) * f;
	dvec3 a = toWorld(fe, v);
	precise dvec3 n = np * -1.0lf;
	precise dvec3 b = a - np * h;
	add(n, a, b, h, env);
}

void boxPlane(dvec3 hb, Frame fb, Frame fp, double env) {
	dvec3 np = fp.r2;
	precise dvec3 cp = fb.c - fp.c;
	double h0 = dot3(cp, np);
	precise dvec3 e = dvec3(hb.x * dot3(fb.r0, np), hb.y * dot3(fb.r1, np), hb.z * dot3(fb.r2, np));
	precise dvec3 nn = np * -1.0lf;
	for (int k = 0; k < 8; k++) {
		precise double g = h0;
		precise dvec3 q;
		for (int i = 0; i < 3; i++) {
			double s = -1.0lf;
			if ((k & (1 << i)) != 0) {
				s = 1.0lf;
			}
			g = g + s * e[i];
			q[i] = s * hb[i];
		}
		if (g < env) {
			dvec3 a = toWorld(fb, q);
			precise dvec3 b = a - np * g;
			add(nn, a, b, g, env);
		}
	}
}

// ---- box–box (cpuref/narrow_box.go) ----

double infinity() { return packDouble2x32(uvec2(0u, 0x7ff00000u)); }

dvec3 axisOf(Frame f, int k) {
	if (k == 0) {
		return f.r0;
	}
	if (k == 1) {
		return f.r1;
	}
	return f.r2;
}

// mul3 is mgl64's Mat3.Mul3x1 (m column-major, m[j][i] row i column j).
dvec3 mul3(dmat3 m, dvec3 v) {
	precise dvec3 r = dvec3(m[0][0] * v.x + m[1][0] * v.y + m[2][0] * v.z,
		m[0][1] * v.x + m[1][1] * v.y + m[2][1] * v.z,
		m[0][2] * v.x + m[1][2] * v.y + m[2][2] * v.z);
	return r;
}

// Convex is cpuref's convexShape: an ellipsoid (centre c, Gram matrix g)
// or a box (centre c, half-extents h along r[0], r[1], r[2]), with the
// margin GJK takes off it.
struct Convex {
	bool ell;
	dvec3 c;
	dmat3 g;
	dvec3 h;
	dvec3 r[3];
	double margin;
};

dvec3 support(Convex s, dvec3 d) {
	if (s.ell) {
		dvec3 gd = mul3(s.g, d);
		double l = dot3(d, gd);
		if (!(l > 0.0lf)) {
			return s.c;
		}
		precise double inv = 1.0lf / sqrt(l);
		precise dvec3 r = s.c + gd * inv;
		return r;
	}
	precise dvec3 p = s.c;
	for (int i = 0; i < 3; i++) {
		if (dot3(d, s.r[i]) < 0.0lf) {
			p = p - s.r[i] * s.h[i];
		} else {
			p = p + s.r[i] * s.h[i];
		}
	}
	return p;
}

dvec3 coreSupport(Convex s, dvec3 d) {
	precise dvec3 p = support(s, d);
	double l = len3(d);
	if (s.margin > 0.0lf && l > 0.0lf) {
		precise double f = s.margin / l;
		p = p - d * f;
	}
	return p;
}

// Simplex is cpuref's gjkSimplex: vertices p = a − b with their support
// points, and the weights of the closest point.
struct Simplex {
	dvec3 p[4], a[4], b[4];
	double w[4];
	int n;
};

void keep(inout Simplex s, int i, int j, int k, double wi, double wj, double wk) {
	Simplex v = s;
	s.p[0] = v.p[i];
	s.a[0] = v.a[i];
	s.b[0] = v.b[i];
	s.w[0] = wi;
	s.n = 1;
	if (j >= 0) {
		s.p[1] = v.p[j];
		s.a[1] = v.a[j];
		s.b[1] = v.b[j];
		s.w[1] = wj;
		s.n = 2;
	}
	if (k >= 0) {
		s.p[2] = v.p[k];
		s.a[2] = v.a[k];
		s.b[2] = v.b[k];
		s.w[2] = wk;
		s.n = 3;
	}
}

dvec3 closestSegment(inout Simplex s) {
	dvec3 a = s.p[0], b = s.p[1];
	precise dvec3 ab = b - a;
	precise double t = -dot3(a, ab);
	if (t <= 0.0lf) {
		keep(s, 0, -1, -1, 1.0lf, 0.0lf, 0.0lf);
		return a;
	}
	double den = dot3(ab, ab);
	if (t >= den) {
		keep(s, 1, -1, -1, 1.0lf, 0.0lf, 0.0lf);
		return b;
	}
	precise double u = t / den;
	precise double u1 = 1.0lf - u;
	s.w[0] = u1;
	s.w[1] = u;
	precise dvec3 r = a + ab * u;
	return r;
}

Simplex edgeOf(Simplex s, int i, int j) {
	Simplex e;
	e.p[0] = s.p[i];
	e.a[0] = s.a[i];
	e.b[0] = s.b[i];
	e.p[1] = s.p[j];
	e.a[1] = s.a[j];
	e.b[1] = s.b[j];
	for (int k = 0; k < 4; k++) {
		e.w[k] = 0.0lf;
	}
	e.n = 2;
	return e;
}

dvec3 bestEdge(inout Simplex s) {
	Simplex best;
	dvec3 bestP = dvec3(0.0lf);
	double bestD = infinity();
	for (int k = 0; k < 3; k++) {
		Simplex e = edgeOf(s, k, (k + 1) % 3);
		dvec3 q = closestSegment(e);
		double d = dot3(q, q);
		if (d < bestD || k == 0) {
			best = e;
			bestP = q;
			bestD = d;
		}
	}
	s = best;
	return bestP;
}

dvec3 closestTriangle(inout Simplex s) {
	dvec3 a = s.p[0], b = s.p[1], c = s.p[2];
	precise dvec3 ab = b - a;
	precise dvec3 ac = c - a;
	precise double d1 = -dot3(ab, a);
	precise double d2 = -dot3(ac, a);
	if (d1 <= 0.0lf && d2 <= 0.0lf) {
		keep(s, 0, -1, -1, 1.0lf, 0.0lf, 0.0lf);
		return a;
	}
	precise double d3 = -dot3(ab, b);
	precise double d4 = -dot3(ac, b);
	if (d3 >= 0.0lf && d4 <= d3) {
		keep(s, 1, -1, -1, 1.0lf, 0.0lf, 0.0lf);
		return b;
	}
	precise double vc = d1 * d4 - d3 * d2;
	if (vc <= 0.0lf && d1 >= 0.0lf && d3 <= 0.0lf) {
		precise double u = d1 / (d1 - d3);
		precise double u1 = 1.0lf - u;
		keep(s, 0, 1, -1, u1, u, 0.0lf);
		precise dvec3 r = a + ab * u;
		return r;
	}
	precise double d5 = -dot3(ab, c);
	precise double d6 = -dot3(ac, c);
	if (d6 >= 0.0lf && d5 <= d6) {
		keep(s, 2, -1, -1, 1.0lf, 0.0lf, 0.0lf);
		return c;
	}
	precise double vb = d5 * d2 - d1 * d6;
	if (vb <= 0.0lf && d2 >= 0.0lf && d6 <= 0.0lf) {
		precise double u = d2 / (d2 - d6);
		precise double u1 = 1.0lf - u;
		keep(s, 0, 2, -1, u1, u, 0.0lf);
		precise dvec3 r = a + ac * u;
		return r;
	}
	precise double va = d3 * d6 - d5 * d4;
	precise double e43 = d4 - d3;
	precise double e56 = d5 - d6;
	if (va <= 0.0lf && e43 >= 0.0lf && e56 >= 0.0lf) {
		precise double u = e43 / (e43 + e56);
		precise double u1 = 1.0lf - u;
		keep(s, 1, 2, -1, u1, u, 0.0lf);
		precise dvec3 r = b + (c - b) * u;
		return r;
	}
	precise double den = va + vb + vc;
	if (!(den > 0.0lf)) {
		return bestEdge(s);
	}
	precise double u = vb / den;
	precise double w = vc / den;
	precise double w0 = 1.0lf - u - w;
	s.w[0] = w0;
	s.w[1] = u;
	s.w[2] = w;
	precise dvec3 r = a + ab * u + ac * w;
	return r;
}

// closest is cpuref's gjkSimplex.closest: closestSegment for a segment,
// closestTriangle for a triangle, and for a tetrahedron
// (closestTetrahedron) the best of the faces whose plane separates the
// origin from the opposite vertex (all four for a flat one), or the
// origin when none does. The triangle and the faces share one call of
// closestTriangle, which keeps the inlined kernel small.
dvec3 closest(inout Simplex s) {
	if (s.n == 2) {
		return closestSegment(s);
	}
	if (s.n < 2) {
		s.w[0] = 1.0lf;
		return s.p[0];
	}
	const ivec4 faces[4] = ivec4[4](ivec4(0, 1, 2, 3), ivec4(0, 2, 3, 1), ivec4(0, 3, 1, 2), ivec4(1, 3, 2, 0));
	Simplex best;
	dvec3 bestP = dvec3(0.0lf);
	double bestD = infinity();
	bool found = false;
	int nf = s.n == 4 ? 4 : 1;
	for (int k = 0; k < nf; k++) {
		Simplex t = s;
		if (s.n == 4) {
			ivec4 f = faces[k];
			dvec3 a = s.p[f.x], b = s.p[f.y], c = s.p[f.z], d = s.p[f.w];
			precise dvec3 ba = b - a;
			precise dvec3 ca = c - a;
			precise dvec3 da = d - a;
			dvec3 nrm = cross3(ba, ca);
			precise double so = -dot3(a, nrm);
			double sd = dot3(da, nrm);
			precise double ss = so * sd;
			if (!(ss < 0.0lf || sd == 0.0lf)) {
				continue;
			}
			t = edgeOf(s, f.x, f.y);
			t.p[2] = s.p[f.z];
			t.a[2] = s.a[f.z];
			t.b[2] = s.b[f.z];
			t.n = 3;
		}
		dvec3 q = closestTriangle(t);
		double dq = dot3(q, q);
		if (!found || dq < bestD) {
			best = t;
			bestP = q;
			bestD = dq;
		}
		found = true;
	}
	if (!found) {
		return dvec3(0.0lf);
	}
	s = best;
	return bestP;
}

void witnesses(Simplex s, out dvec3 pa, out dvec3 pb) {
	precise dvec3 xa = dvec3(0.0lf);
	precise dvec3 xb = dvec3(0.0lf);
	for (int i = 0; i < s.n; i++) {
		xa = xa + s.a[i] * s.w[i];
		xb = xb + s.b[i] * s.w[i];
	}
	pa = xa;
	pb = xb;
}

// gjkDistance is cpuref's (narrow_gjk.go): GJK on the cores of a and b.
dvec3 gjkDistance(Convex a, Convex b, double env, double scale, double relTol, inout Simplex s,
	out bool overlap, out bool beyond) {
	precise dvec3 v = a.c - b.c;
	s.n = 0;
	overlap = false;
	beyond = false;
	if (dot3(v, v) == 0.0lf) {
		overlap = true;
		return v;
	}
	for (int it = 0; it < 64; it++) {
		precise dvec3 mv = v * -1.0lf;
		dvec3 sa = coreSupport(a, mv), sb = coreSupport(b, v);
		precise dvec3 w = sa - sb;
		double vv = dot3(v, v), vw = dot3(v, w);
		precise double ev = env * sqrt(vv);
		if (vw > 0.0lf && vw >= ev) {
			beyond = true;
			return v;
		}
		precise double gap = vv - vw;
		precise double rv = relTol * vv;
		if (gap <= rv) {
			return v;
		}
		for (int i = 0; i < s.n; i++) {
			if (s.p[i] == w) {
				return v;
			}
		}
		Simplex last = s;
		s.p[s.n] = w;
		s.a[s.n] = sa;
		s.b[s.n] = sb;
		s.n++;
		dvec3 nv = closest(s);
		if (s.n == 4) {
			overlap = true;
			return nv;
		}
		double nvv = dot3(nv, nv);
		precise double touch = 1e-18lf * scale * scale; // gjkTouchTol²·scale²
		if (nvv <= touch) {
			overlap = true;
			return nv;
		}
		if (it > 0 && nvv >= vv) {
			s = last;
			return v;
		}
		v = nv;
	}
	return v;
}

// sepBox is boxBox's sep: the separation of the boxes along unit l.
double sepBox(dvec3 t, dvec3 l, dvec3 ha, Frame fa, dvec3 hb, Frame fb) {
	precise double s = abs(dot3(t, l));
	for (int k = 0; k < 3; k++) {
		s = s - (ha[k] * abs(dot3(axisOf(fa, k), l)) + hb[k] * abs(dot3(axisOf(fb, k), l)));
	}
	return s;
}

// clipPolygon is cpuref's: poly[:np] clipped to x·d ≤ off.
int clipPolygon(inout dvec3 poly[8], int np, dvec3 d, double off) {
	if (np == 0) {
		return 0;
	}
	dvec3 tmp[8] = poly;
	int k = 0;
	dvec3 prev = poly[np - 1];
	precise double dp = off - dot3(prev, d);
	for (int i = 0; i < np; i++) {
		dvec3 cur = poly[i];
		precise double dc = off - dot3(cur, d);
		if ((dp >= 0.0lf) != (dc >= 0.0lf) && k < 8) {
			precise double f = dp / (dp - dc);
			precise dvec3 x = prev + (cur - prev) * f;
			tmp[k] = x;
			k++;
		}
		if (dc >= 0.0lf && k < 8) {
			tmp[k] = cur;
			k++;
		}
		prev = cur;
		dp = dc;
	}
	poly = tmp;
	return k;
}

// boxFace is cpuref's: the incident box's face clipped to the reference
// face k (outward normal n).
void boxFace(dvec3 hr, Frame fr, int k, dvec3 n, dvec3 hi, Frame fi, bool refIsB, double env) {
	precise dvec3 fc = fr.c + n * hr[k];
	int k1 = (k + 1) % 3, k2 = (k + 2) % 3;
	dvec3 u = axisOf(fr, k1), v = axisOf(fr, k2);
	int j = 0;
	for (int i = 1; i < 3; i++) {
		if (abs(dot3(axisOf(fi, i), n)) > abs(dot3(axisOf(fi, j), n))) {
			j = i;
		}
	}
	precise dvec3 m = axisOf(fi, j);
	if (dot3(m, n) > 0.0lf) {
		m = m * -1.0lf;
	}
	precise dvec3 ic = fi.c + m * hi[j];
	int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
	precise dvec3 eu = axisOf(fi, j1) * hi[j1];
	precise dvec3 ev = axisOf(fi, j2) * hi[j2];
	dvec3 poly[8];
	precise dvec3 p0 = ic + eu + ev;
	precise dvec3 p1 = ic - eu + ev;
	precise dvec3 p2 = ic - eu - ev;
	precise dvec3 p3 = ic + eu - ev;
	poly[0] = p0;
	poly[1] = p1;
	poly[2] = p2;
	poly[3] = p3;
	for (int i = 4; i < 8; i++) {
		poly[i] = dvec3(0.0lf);
	}
	precise double fu = dot3(fc, u);
	precise double fv = dot3(fc, v);
	precise double o0 = fu + hr[k1];
	precise double o1 = -fu + hr[k1];
	precise double o2 = fv + hr[k2];
	precise double o3 = -fv + hr[k2];
	precise dvec3 mu_ = u * -1.0lf;
	precise dvec3 mv = v * -1.0lf;
	dvec3 dirs[4] = dvec3[4](u, mu_, v, mv);
	double offs[4] = double[4](o0, o1, o2, o3);
	int np = 4;
	for (int c = 0; c < 4; c++) {
		np = clipPolygon(poly, np, dirs[c], offs[c]);
	}
	precise dvec3 nn = n;
	if (refIsB) {
		nn = n * -1.0lf;
	}
	for (int i = 0; i < np; i++) {
		dvec3 pt = poly[i];
		precise dvec3 pf = pt - fc;
		double g = dot3(pf, n);
		if (!(g < env)) {
			continue;
		}
		precise dvec3 q = pt - n * g;
		if (refIsB) {
			add(nn, pt, q, g, env);
		} else {
			add(nn, q, pt, g, env);
		}
	}
}

// boxEdgeEdge is cpuref's: the closest points of the supporting edges
// along A_i and B_j of the edge–edge axis l.
void boxEdgeEdge(dvec3 ha, Frame fa, dvec3 hb, Frame fb, int i, int j, dvec3 l0, double s, double env) {
	precise dvec3 l = l0;
	precise dvec3 t = fb.c - fa.c;
	if (dot3(t, l) < 0.0lf) {
		l = l * -1.0lf;
	}
	precise dvec3 pa = fa.c;
	precise dvec3 pb = fb.c;
	for (int k = 0; k < 3; k++) {
		if (k != i) {
			double sg = 1.0lf;
			if (dot3(axisOf(fa, k), l) < 0.0lf) {
				sg = -1.0lf;
			}
			precise double e = sg * ha[k];
			pa = pa + axisOf(fa, k) * e;
		}
		if (k != j) {
			double sg = 1.0lf;
			if (dot3(axisOf(fb, k), l) > 0.0lf) {
				sg = -1.0lf;
			}
			precise double e = sg * hb[k];
			pb = pb + axisOf(fb, k) * e;
		}
	}
	dvec3 da = axisOf(fa, i), db = axisOf(fb, j);
	precise dvec3 r = pa - pb;
	double b = dot3(da, db), c = dot3(da, r), f = dot3(db, r);
	precise double den = 1.0lf - b * b;
	precise double sa = 0.0lf;
	if (den > 0.0lf) {
		sa = (b * f - c) / den;
	}
	precise double nha = -ha[i];
	precise double nhb = -hb[j];
	sa = max(nha, min(ha[i], sa));
	precise double sbf = b * sa + f;
	precise double sb = max(nhb, min(hb[j], sbf));
	precise double sac = b * sb - c;
	sa = max(nha, min(ha[i], sac));
	precise dvec3 qa = pa + da * sa;
	precise dvec3 qb = pb + db * sb;
	add(l, qa, qb, s, env);
}

// BoxSat is the separating-axis stage of cpuref's boxBox: t = cb − ca,
// the scale |ha| + |hb|, the best separation and its axis (0–2: a's
// faces, 3–5: b's, 6 + 3i + j: A_i × B_j, unit edgeL).
struct BoxSat {
	dvec3 t;
	double scale, best;
	int axis;
	dvec3 edgeL;
};

// boxSat is boxBox up to GJK: the best of the 15 separating axes (a face
// axis unless an edge–edge axis is 5 % shallower); false when some axis
// separates the boxes by env or more (no contact).
bool boxSat(dvec3 ha, Frame fa, dvec3 hb, Frame fb, double env, out BoxSat r) {
	precise dvec3 t = fb.c - fa.c;
	precise double scale = len3(ha) + len3(hb);
	r.t = t;
	r.scale = scale;
	r.edgeL = dvec3(0.0lf);
	precise double tl = len3(t) - scale;
	if (tl >= env) {
		return false;
	}
	double best = -infinity();
	int axis = -1;
	for (int k = 0; k < 6; k++) {
		dvec3 l = k < 3 ? axisOf(fa, k) : axisOf(fb, k - 3);
		double s = sepBox(t, l, ha, fa, hb, fb);
		if (!(s < env)) {
			return false;
		}
		if (s > best) {
			best = s;
			axis = k;
		}
	}
	if (axis < 0) {
		return false;
	}
	double faceBest = best;
	precise double thr = faceBest + 0.05lf * abs(faceBest) + 1e-9lf * scale; // boxEdgeBias, boxEdgeFloor
	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < 3; j++) {
			dvec3 l = cross3(axisOf(fa, i), axisOf(fb, j));
			double ll = len3(l);
			if (ll < 1e-6lf) { // boxParallel
				continue;
			}
			precise double inv = 1.0lf / ll;
			precise dvec3 lu = l * inv;
			double s = sepBox(t, lu, ha, fa, hb, fb);
			if (!(s < env)) {
				return false;
			}
			if (s > best && s > thr) {
				best = s;
				axis = 6 + 3 * i + j;
				r.edgeL = lu;
			}
		}
	}
	r.best = best;
	r.axis = axis;
	return true;
}

// boxContacts is the rest of cpuref's boxBox, after GJK (run when the
// axes say apart, best > 0): the axis's contacts (face clipping or the
// edge–edge contact) and, for boxes apart, GJK's closest points when the
// axis's contacts all lie farther apart than they do.
void boxContacts(dvec3 ha, Frame fa, dvec3 hb, Frame fb, double env, BoxSat r, dvec3 v, bool overlap, Simplex sx) {
	double dist = 0.0lf;
	dvec3 gn = dvec3(0.0lf), gpa = dvec3(0.0lf), gpb = dvec3(0.0lf);
	bool apart = false;
	if (r.best > 0.0lf && !overlap && sx.n > 0) {
		dist = len3(v);
		witnesses(sx, gpa, gpb);
		precise double f = -1.0lf / dist;
		precise dvec3 n = v * f;
		precise dvec3 xa = fa.c + gpa;
		precise dvec3 xb = fa.c + gpb;
		gn = n;
		gpa = xa;
		gpb = xb;
		apart = true;
	}
	least = infinity();
	if (r.axis >= 6) {
		boxEdgeEdge(ha, fa, hb, fb, (r.axis - 6) / 3, (r.axis - 6) % 3, r.edgeL, r.best, env);
	} else {
		// Face axis k of a (reference a) or of b (reference b).
		bool refIsB = r.axis >= 3;
		int k = r.axis;
		Frame fr = fa, fi = fb;
		dvec3 hr = ha, hi = hb;
		if (refIsB) {
			k = r.axis - 3;
			fr = fb;
			fi = fa;
			hr = hb;
			hi = ha;
		}
		precise dvec3 n = axisOf(fr, k);
		double tn = dot3(r.t, n);
		if (refIsB ? tn > 0.0lf : tn < 0.0lf) {
			n = n * -1.0lf;
		}
		boxFace(hr, fr, k, n, hi, fi, refIsB, env);
	}
	if (!apart) {
		return;
	}
	precise double lim = dist + 1e-12lf * r.scale; // boxGJKTol
	if (least > lim) {
		add(gn, gpa, gpb, dist, env);
	}
}

// ---- sphere–ellipsoid (cpuref/narrow_ellipsoid.go) ----

double copysign(double x, double y) {
	uvec2 bx = unpackDouble2x32(x), by = unpackDouble2x32(y);
	bx.y = (bx.y & 0x7fffffffu) | (by.y & 0x80000000u);
	return packDouble2x32(bx);
}

double secularRoot(double n0, double n1, double z2, double d0, double d1) {
	precise double m0 = n0 - d0;
	precise double m1 = n1 - d1;
	double u = max(z2, max(m0, m1));
	for (int it = 0; it < 100; it++) {
		precise double u0 = u + d0;
		precise double u1 = u + d1;
		precise double a0 = n0 / u0;
		precise double a1 = n1 / u1;
		precise double a2 = z2 / u;
		precise double f = a0 * a0 + a1 * a1 + a2 * a2 - 1.0lf;
		if (!(f > 0.0lf)) {
			break;
		}
		precise double df = 2.0lf * (a0 * a0 / u0 + a1 * a1 / u1 + a2 * a2 / u);
		precise double next = u + f / df;
		if (!(next > u)) {
			break;
		}
		u = next;
	}
	return u;
}

dvec2 closestOctant2(double e0, double e1, double y0, double y1) {
	if (y1 > 0.0lf) {
		if (y0 > 0.0lf) {
			precise double z0 = y0 / e0;
			precise double z1 = y1 / e1;
			precise double zz = z0 * z0 + z1 * z1;
			if (zz == 1.0lf) {
				return dvec2(y0, y1);
			}
			precise double q = e0 / e1;
			precise double r0 = q * q;
			precise double d0 = (e0 - e1) * (e0 + e1) / (e1 * e1);
			precise double rz = r0 * z0;
			double u = secularRoot(rz, 0.0lf, z1, d0, 0.0lf);
			precise double x0 = r0 * y0 / (u + d0);
			precise double x1 = y1 / u;
			return dvec2(x0, x1);
		}
		return dvec2(0.0lf, e1);
	}
	precise double d0 = (e0 - e1) * (e0 + e1);
	precise double n0 = e0 * y0;
	if (n0 < d0) {
		precise double q0 = n0 / d0;
		precise double x0 = e0 * q0;
		precise double x1 = e1 * sqrt(1.0lf - q0 * q0);
		return dvec2(x0, x1);
	}
	return dvec2(e0, 0.0lf);
}

dvec3 closestOctant3(double e0, double e1, double e2, double y0, double y1, double y2) {
	if (y2 > 0.0lf) {
		if (y1 > 0.0lf) {
			if (y0 > 0.0lf) {
				precise double z0 = y0 / e0;
				precise double z1 = y1 / e1;
				precise double z2 = y2 / e2;
				precise double zz = z0 * z0 + z1 * z1 + z2 * z2;
				if (zz == 1.0lf) {
					return dvec3(y0, y1, y2);
				}
				precise double q0 = e0 / e2;
				precise double q1 = e1 / e2;
				precise double r0 = q0 * q0;
				precise double r1 = q1 * q1;
				precise double d0 = (e0 - e2) * (e0 + e2) / (e2 * e2);
				precise double d1 = (e1 - e2) * (e1 + e2) / (e2 * e2);
				precise double rz0 = r0 * z0;
				precise double rz1 = r1 * z1;
				double u = secularRoot(rz0, rz1, z2, d0, d1);
				precise double x0 = r0 * y0 / (u + d0);
				precise double x1 = r1 * y1 / (u + d1);
				precise double x2 = y2 / u;
				return dvec3(x0, x1, x2);
			}
			dvec2 x = closestOctant2(e1, e2, y1, y2);
			return dvec3(0.0lf, x.x, x.y);
		}
		if (y0 > 0.0lf) {
			dvec2 x = closestOctant2(e0, e2, y0, y2);
			return dvec3(x.x, 0.0lf, x.y);
		}
		return dvec3(0.0lf, 0.0lf, e2);
	}
	precise double d0 = (e0 - e2) * (e0 + e2);
	precise double d1 = (e1 - e2) * (e1 + e2);
	precise double n0 = e0 * y0;
	precise double n1 = e1 * y1;
	if (n0 < d0 && n1 < d1) {
		precise double q0 = n0 / d0;
		precise double q1 = n1 / d1;
		precise double disc = 1.0lf - q0 * q0 - q1 * q1;
		if (disc > 0.0lf) {
			precise double x0 = e0 * q0;
			precise double x1 = e1 * q1;
			precise double x2 = e2 * sqrt(disc);
			return dvec3(x0, x1, x2);
		}
	}
	dvec2 x = closestOctant2(e0, e1, y0, y1);
	return dvec3(x.x, x.y, 0.0lf);
}

dvec3 closestOnEllipsoid(dvec3 e, dvec3 y) {
	int i0 = 0, i1 = 1, i2 = 2, t;
	if (e[i0] < e[i1]) {
		t = i0;
		i0 = i1;
		i1 = t;
	}
	if (e[i1] < e[i2]) {
		t = i1;
		i1 = i2;
		i2 = t;
	}
	if (e[i0] < e[i1]) {
		t = i0;
		i0 = i1;
		i1 = t;
	}
	dvec3 x0 = closestOctant3(e[i0], e[i1], e[i2], abs(y[i0]), abs(y[i1]), abs(y[i2]));
	dvec3 x;
	x[i0] = copysign(x0.x, y[i0]);
	x[i1] = copysign(x0.y, y[i1]);
	x[i2] = copysign(x0.z, y[i2]);
	return x;
}

void sphereEllipsoid(double r, dvec3 c, dvec3 s, Frame fe, double env) {
	precise dvec3 cc = c - fe.c;
	dvec3 y = dirToBody(fe, cc);
	precise double reach = len3(y) - r - max(s.x, max(s.y, s.z));
	if (reach >= env) {
		return;
	}
	dvec3 x = closestOnEllipsoid(s, y);
	precise dvec3 m = dvec3(x.x / (s.x * s.x), x.y / (s.y * s.y), x.z / (s.z * s.z));
	double l = len3(m);
	if (l > 0.0lf) {
		precise double inv = 1.0lf / l;
		m = m * inv;
	}
	precise dvec3 yx = y - x;
	precise double phi = dot3(yx, m) - r;
	if (!(phi < env)) {
		return;
	}
	dvec3 mw = dirToWorld(fe, m);
	precise dvec3 n = mw * -1.0lf;
	precise dvec3 a = c - mw * r;
	add(n, a, toWorld(fe, x), phi, env);
}

// ---- ellipsoid–ellipsoid and ellipsoid–box (cpuref/narrow_gjk.go,
// narrow_ellipsoid.go) ----

#include "hypot.glsl"

dvec3 normalize3(dvec3 v) {
	precise double inv = 1.0lf / len3(v);
	precise dvec3 r = v * inv;
	return r;
}

// tangentPair is cpuref's: an orthonormal basis t1, t2 of the plane
// orthogonal to unit n.
void tangentPair(dvec3 n, out dvec3 t1, out dvec3 t2) {
	dvec3 ax = dvec3(1.0lf, 0.0lf, 0.0lf);
	if (abs(n.x) > 0.57lf) {
		ax = dvec3(0.0lf, 1.0lf, 0.0lf);
	}
	t1 = normalize3(cross3(n, ax));
	t2 = cross3(n, t1);
}

dvec3 diffSupport(Convex a, Convex b, dvec3 d) {
	precise dvec3 md = d * -1.0lf;
	precise dvec3 r = support(a, d) - support(b, md);
	return r;
}

// The EPA polytope (cpuref's epaPolytope) with the device's bound of
// EPA_VERTS vertices (cpuref's epaMaxVerts is 48): faces (vertex indices,
// outward unit normal, offset), the horizon's edges and an interior point.
// A pair whose polytope would outgrow the bound where cpuref's goes on
// sets epaOverflow and goes to the host.
const int EPA_VERTS = 32;
const int EPA_FACES = 2 * EPA_VERTS - 4;
const int EPA_EDGES = 3 * EPA_FACES;
const int CPU_EPA_VERTS = 48, CPU_EPA_FACES = 2 * CPU_EPA_VERTS - 4, CPU_EPA_EDGES = 3 * CPU_EPA_FACES;
dvec3 epaV[EPA_VERTS];
int epaNV;
ivec3 epaF[EPA_FACES];
dvec3 epaN[EPA_FACES];
double epaD[EPA_FACES];
int epaNF;
ivec2 epaE[EPA_EDGES];
int epaNE;
dvec3 epaIn;
bool epaOverflow;

void epaAddFace(int i, int j, int k) {
	dvec3 a = epaV[i];
	precise dvec3 ja = epaV[j] - a;
	precise dvec3 ka = epaV[k] - a;
	precise dvec3 n = cross3(ja, ka);
	double l = len3(n);
	if (!(l > 0.0lf)) {
		n = a - epaIn;
		l = len3(n);
		if (!(l > 0.0lf)) {
			n = dvec3(0.0lf, 0.0lf, 1.0lf);
			l = 1.0lf;
		}
	}
	precise double inv = 1.0lf / l;
	n = n * inv;
	precise dvec3 ai = a - epaIn;
	if (dot3(n, ai) < 0.0lf) {
		n = n * -1.0lf;
		int t = j;
		j = k;
		k = t;
	}
	epaF[epaNF] = ivec3(i, j, k);
	epaN[epaNF] = n;
	epaD[epaNF] = dot3(n, a);
	epaNF++;
}

// epaAddEdge is cpuref's addEdge; false: the list is full (cpuref's own
// bound, or the device's: then epaOverflow).
bool epaAddEdge(int i, int j) {
	for (int k = 0; k < epaNE; k++) {
		if (epaE[k] == ivec2(j, i)) {
			epaNE--;
			epaE[k] = epaE[epaNE];
			return true;
		}
	}
	if (epaNE == EPA_EDGES) {
		epaOverflow = EPA_EDGES < CPU_EPA_EDGES;
		return false;
	}
	epaE[epaNE] = ivec2(i, j);
	epaNE++;
	return true;
}

// epaInit is cpuref's epaPolytope.init.
bool epaInit(Convex a, Convex b, Simplex s, double scale) {
	precise double eps = 1e-12lf * scale;
	for (int i = 0; i < s.n; i++) {
		epaV[i] = s.p[i];
	}
	epaNV = s.n;
	if (epaNV == 0) {
		epaV[0] = diffSupport(a, b, dvec3(0.0lf, 0.0lf, 1.0lf));
		epaNV = 1;
	}
	if (epaNV == 1) {
		const dvec3 dirs[6] = dvec3[6](dvec3(1.0lf, 0.0lf, 0.0lf), dvec3(-1.0lf, 0.0lf, 0.0lf), dvec3(0.0lf, 1.0lf, 0.0lf),
			dvec3(0.0lf, -1.0lf, 0.0lf), dvec3(0.0lf, 0.0lf, 1.0lf), dvec3(0.0lf, 0.0lf, -1.0lf));
		for (int k = 0; k < 6; k++) {
			dvec3 w = diffSupport(a, b, dirs[k]);
			precise dvec3 d = w - epaV[0];
			if (len3(d) > eps) {
				epaV[1] = w;
				epaNV = 2;
				break;
			}
		}
		if (epaNV < 2) {
			return false;
		}
	}
	if (epaNV == 2) {
		precise dvec3 u = epaV[1] - epaV[0];
		dvec3 t, t2;
		tangentPair(normalize3(u), t, t2);
		precise dvec3 mt = t * -1.0lf;
		dvec3 dirs[4] = dvec3[4](t, mt, cross3(u, t), cross3(t, u));
		precise double lim = eps * len3(u);
		for (int k = 0; k < 4; k++) {
			dvec3 w = diffSupport(a, b, dirs[k]);
			precise dvec3 d = w - epaV[0];
			if (len3(cross3(d, u)) > lim) {
				epaV[2] = w;
				epaNV = 3;
				break;
			}
		}
		if (epaNV < 3) {
			return false;
		}
	}
	if (epaNV == 3) {
		precise dvec3 e1 = epaV[1] - epaV[0];
		precise dvec3 e2 = epaV[2] - epaV[0];
		precise dvec3 m = cross3(e1, e2);
		double l = len3(m);
		if (!(l > 0.0lf)) {
			return false;
		}
		precise double inv = 1.0lf / l;
		m = m * inv;
		dvec3 w = diffSupport(a, b, m);
		precise dvec3 d = w - epaV[0];
		if (dot3(d, m) <= eps) {
			precise dvec3 mm = m * -1.0lf;
			w = diffSupport(a, b, mm);
			d = w - epaV[0];
			precise double meps = -eps;
			if (dot3(d, m) >= meps) {
				return false;
			}
		}
		epaV[3] = w;
		epaNV = 4;
	}
	precise dvec3 in_ = (epaV[0] + epaV[1] + epaV[2] + epaV[3]) * 0.25lf;
	epaIn = in_;
	const ivec3 faces[4] = ivec3[4](ivec3(0, 1, 2), ivec3(0, 3, 1), ivec3(0, 2, 3), ivec3(1, 3, 2));
	epaNF = 0;
	for (int k = 0; k < 4; k++) {
		epaAddFace(faces[k].x, faces[k].y, faces[k].z);
	}
	return true;
}

// epaExpand is cpuref's epaPolytope.expand: the nearest face's normal.
dvec3 epaExpand(Convex a, Convex b, double scale) {
	precise double tol = 1e-4lf * scale; // epaRelTol
	for (int guard = 0; guard <= CPU_EPA_VERTS; guard++) {
		int bi = 0;
		for (int i = 1; i < epaNF; i++) {
			if (epaD[i] < epaD[bi]) {
				bi = i;
			}
		}
		dvec3 bn = epaN[bi];
		double bd = epaD[bi];
		dvec3 w = diffSupport(a, b, bn);
		precise double gain = dot3(w, bn) - bd;
		if (!(gain > tol) || epaNV == CPU_EPA_VERTS) {
			return bn;
		}
		if (epaNV == EPA_VERTS) {
			epaOverflow = true;
			return bn;
		}
		int vi = epaNV;
		epaV[vi] = w;
		epaNV++;
		epaNE = 0;
		for (int i = 0; i < epaNF;) {
			ivec3 f = epaF[i];
			precise dvec3 wf = w - epaV[f.x];
			if (i == bi || dot3(epaN[i], wf) > 0.0lf) {
				if (!epaAddEdge(f.x, f.y) || !epaAddEdge(f.y, f.z) || !epaAddEdge(f.z, f.x)) {
					return bn;
				}
				epaNF--;
				epaF[i] = epaF[epaNF];
				epaN[i] = epaN[epaNF];
				epaD[i] = epaD[epaNF];
				if (bi == i) {
					bi = -1;
				} else if (bi == epaNF) {
					bi = i;
				}
				continue;
			}
			i++;
		}
		if (epaNF + epaNE > CPU_EPA_FACES) {
			return bn;
		}
		if (epaNF + epaNE > EPA_FACES) {
			epaOverflow = true;
			return bn;
		}
		for (int k = 0; k < epaNE; k++) {
			epaAddFace(epaE[k].x, epaE[k].y, vi);
		}
	}
	return epaN[0];
}

// SupportFunc is cpuref's supportFunc: f(n) = c·n + Σ √(nᵀG_k n).
struct SupportFunc {
	dvec3 c;
	dmat3 g[2];
	int ng;
};

double sfValue(SupportFunc f, dvec3 n) {
	precise double v = dot3(f.c, n);
	for (int k = 0; k < f.ng; k++) {
		v = v + sqrt(dot3(n, mul3(f.g[k], n)));
	}
	return v;
}

double sfDerivs(SupportFunc f, dvec3 n, out dvec3 grad, out dmat3 hess) {
	precise double v = dot3(f.c, n);
	precise dvec3 gr = f.c;
	precise dmat3 h = dmat3(0.0lf);
	for (int k = 0; k < f.ng; k++) {
		dvec3 gn = mul3(f.g[k], n);
		precise double l = sqrt(dot3(n, gn));
		v = v + l;
		precise double il = 1.0lf / l;
		precise double il3 = 1.0lf / (l * l * l);
		gr = gr + gn * il;
		for (int i = 0; i < 3; i++) {
			for (int j = 0; j < 3; j++) {
				h[j][i] = h[j][i] + (f.g[k][j][i] * il - gn[i] * gn[j] * il3);
			}
		}
	}
	grad = gr;
	hess = h;
	return v;
}

dvec3 retract(dvec3 n, dvec3 t1, dvec3 t2, double s1, double s2, int held) {
	precise dvec3 m = n + t1 * s1 + t2 * s2;
	dvec3 r = normalize3(m);
	if (held >= 0) {
		r[held] = 0.0lf;
	}
	return r;
}

// sfMinimize is cpuref's supportFunc.minimize: Riemannian Newton on the
// sphere (held ≥ 0: on the great circle n_held = 0).
dvec3 sfMinimize(SupportFunc f, dvec3 n0, int held, double scale) {
	dvec3 n = n0;
	precise double gtol = 1e-13lf * scale; // newtonGradTol
	for (int it = 0; it < 50; it++) {
		dvec3 grad;
		dmat3 hess;
		double v = sfDerivs(f, n, grad, hess);
		dvec3 t1 = dvec3(0.0lf), t2 = dvec3(0.0lf);
		int dim = 2;
		if (held >= 0) {
			dvec3 ax = dvec3(0.0lf);
			ax[held] = 1.0lf;
			t1 = cross3(ax, n);
			double l = len3(t1);
			if (l > 0.0lf) {
				precise double inv = 1.0lf / l;
				precise dvec3 tt = t1 * inv;
				t1 = tt;
			}
			dim = 1;
		} else {
			tangentPair(n, t1, t2);
		}
		double lam = dot3(n, grad);
		double g1 = dot3(t1, grad), g2 = dot3(t2, grad);
		if (hypot(g1, g2) <= gtol) {
			break;
		}
		dvec3 h1 = mul3(hess, t1), h2 = mul3(hess, t2);
		precise double a = dot3(t1, h1) - lam;
		precise double b = dot3(t1, h2);
		precise double d = dot3(t2, h2) - lam;
		if (dim == 1) {
			b = 0.0lf;
			d = 1.0lf;
		}
		precise double det = a * d - b * b;
		bool newton = a > 0.0lf && det > 0.0lf;
		precise double s1, s2;
		if (newton) {
			s1 = -(d * g1 - b * g2) / det;
			s2 = -(a * g2 - b * g1) / det;
		} else {
			precise double k = 0.5lf / hypot(g1, g2); // newtonMaxStep
			s1 = -k * g1;
			s2 = -k * g2;
		}
		if (dim == 1) {
			s2 = 0.0lf;
		}
		double l = hypot(s1, s2);
		if (l > 0.5lf) {
			s1 = s1 * 0.5lf / l;
			s2 = s2 * 0.5lf / l;
		}
		if (newton && l <= 1e-6lf) { // newtonFinalStep
			n = retract(n, t1, t2, s1, s2, held);
			break;
		}
		bool moved = false;
		for (int h = 0; h < 30; h++) { // newtonMaxHalvings
			dvec3 m = retract(n, t1, t2, s1, s2, held);
			if (sfValue(f, m) < v) {
				n = m;
				moved = true;
				break;
			}
			s1 = s1 / 2.0lf;
			s2 = s2 / 2.0lf;
		}
		if (!moved) {
			break;
		}
	}
	return n;
}

// EllBoxFunc is cpuref's ellipsoidBoxFunc: f(n) = e·n + √(nᵀGn) + Σ h_i |n_i|.
struct EllBoxFunc {
	dvec3 e;
	dmat3 g;
	dvec3 h;
};

double ebValue(EllBoxFunc f, dvec3 n) {
	precise double v = dot3(f.e, n) + sqrt(dot3(n, mul3(f.g, n))) + f.h.x * abs(n.x) + f.h.y * abs(n.y) + f.h.z * abs(n.z);
	return v;
}

// The function bestProbes and the deep starts minimise: ebF when
// probeBox, else sfF.
SupportFunc sfF;
EllBoxFunc ebF;
bool probeBox;

double probeValue(dvec3 d) { return probeBox ? ebValue(ebF, d) : sfValue(sfF, d); }

void probeTry(dvec3 d, inout double vals[3], inout dvec3 outs[3]) {
	double v = probeValue(d);
	if (!(v < vals[2])) {
		return;
	}
	int k = 2;
	while (k > 0 && v < vals[k - 1]) {
		vals[k] = vals[k - 1];
		outs[k] = outs[k - 1];
		k--;
	}
	vals[k] = v;
	outs[k] = d;
}

// bestProbes is cpuref's (deepStarts = 3).
void bestProbes(dvec3 ax1[3], dvec3 ax2[3], out dvec3 outs[3]) {
	double vals[3] = double[3](infinity(), infinity(), infinity());
	outs = dvec3[3](dvec3(0.0lf), dvec3(0.0lf), dvec3(0.0lf));
	for (int i = -1; i <= 1; i++) {
		for (int j = -1; j <= 1; j++) {
			for (int k = -1; k <= 1; k++) {
				dvec3 d = dvec3(double(i), double(j), double(k));
				if (d != dvec3(0.0lf)) {
					precise double inv = 1.0lf / len3(d);
					precise dvec3 u = d * inv;
					probeTry(u, vals, outs);
				}
			}
		}
	}
	for (int i = 0; i < 3; i++) {
		precise dvec3 m1 = ax1[i] * -1.0lf;
		precise dvec3 m2 = ax2[i] * -1.0lf;
		probeTry(ax1[i], vals, outs);
		probeTry(m1, vals, outs);
		probeTry(ax2[i], vals, outs);
		probeTry(m2, vals, outs);
	}
}

// cellMinimum is cpuref's ellipsoidBoxFunc.cellMinimum.
dvec3 cellMinimum(EllBoxFunc f, dvec3 sigma, dvec3 n, double scale, out bool ok) {
	dvec3 s = dvec3(0.0lf);
	int held = -1, z = 0;
	for (int i = 0; i < 3; i++) {
		precise double sn = sigma[i] * n[i];
		if (sigma[i] == 0.0lf) {
			held = i;
			z++;
		} else if (sn > 0.0lf) {
			s[i] = n[i];
		}
	}
	double l = len3(s);
	if (z == 2 || !(l > 0.0lf)) {
		s = sigma;
		l = len3(sigma);
	}
	precise double inv = 1.0lf / l;
	precise dvec3 su = s * inv;
	s = su;
	dvec3 m = s;
	ok = false;
	if (z < 2) {
		SupportFunc sf;
		precise dvec3 c = f.e + dvec3(sigma.x * f.h.x, sigma.y * f.h.y, sigma.z * f.h.z);
		sf.c = c;
		sf.g[0] = f.g;
		sf.g[1] = dmat3(0.0lf);
		sf.ng = 1;
		m = sfMinimize(sf, s, held, scale);
		double t = 1.0lf;
		int cut = -1;
		for (int i = 0; i < 3; i++) {
			precise double sm = sigma[i] * m[i];
			if (sigma[i] != 0.0lf && sm < 0.0lf) {
				precise double ti = s[i] / (s[i] - m[i]);
				if (ti < t) {
					t = ti;
					cut = i;
				}
			}
		}
		if (cut >= 0) {
			precise dvec3 u = s + (m - s) * t;
			dvec3 uu = u;
			uu[cut] = 0.0lf;
			for (int i = 0; i < 3; i++) {
				precise double suu = sigma[i] * uu[i];
				if (suu < 0.0lf) {
					uu[i] = 0.0lf;
				}
			}
			double ul = len3(uu);
			if (ul > 0.0lf) {
				precise double iu = 1.0lf / ul;
				precise dvec3 r = uu * iu;
				return r;
			}
			return s;
		}
	}
	dvec3 gn = mul3(f.g, m);
	double gl = sqrt(dot3(m, gn));
	for (int i = 0; i < 3; i++) {
		precise double pi = f.e[i] + gn[i] / gl;
		if (sigma[i] == 0.0lf && abs(pi) > f.h[i]) {
			return m;
		}
	}
	ok = true;
	return m;
}

// searchCells is cpuref's ellipsoidBoxFunc.searchCells (cellTol = 0.05).
dvec3 searchCells(EllBoxFunc f, dvec3 n, double scale, out double bestF, out bool verified) {
	// choices[i] lists the signs σ_i near n (0: n_i held at 0), as
	// integers: a double array of constants here came out of the compiler
	// with −0 for 0 (lavapipe), which cpuref's +0 would not match in sign.
	ivec3 choices[3];
	int nc[3];
	for (int i = 0; i < 3; i++) {
		if (n[i] > 0.05lf) {
			choices[i] = ivec3(1, 0, 0);
			nc[i] = 1;
		} else if (n[i] < -0.05lf) {
			choices[i] = ivec3(-1, 0, 0);
			nc[i] = 1;
		} else {
			choices[i] = ivec3(0, 1, -1);
			nc[i] = 3;
		}
	}
	dvec3 best = n;
	bestF = infinity();
	verified = false;
	for (int zeros = 2; zeros >= 0 && !verified; zeros--) {
		for (int j0 = 0; j0 < nc[0]; j0++) {
			for (int j1 = 0; j1 < nc[1]; j1++) {
				for (int j2 = 0; j2 < nc[2]; j2++) {
					dvec3 sigma = dvec3(ivec3(choices[0][j0], choices[1][j1], choices[2][j2]));
					int z = 0;
					for (int i = 0; i < 3; i++) {
						if (sigma[i] == 0.0lf) {
							z++;
						}
					}
					if (z != zeros) {
						continue;
					}
					bool ok;
					dvec3 m = cellMinimum(f, sigma, n, scale, ok);
					double v = ebValue(f, m);
					if (v < bestF) {
						best = m;
						bestF = v;
						verified = ok;
					}
				}
			}
		}
	}
	return best;
}

// ebMinimize is cpuref's ellipsoidBoxFunc.minimize (ellipsoidBoxRounds = 16).
dvec3 ebMinimize(EllBoxFunc f, dvec3 n0, double scale) {
	dvec3 best = n0;
	double bestF = ebValue(f, n0);
	for (int r = 0; r < 16; r++) {
		double v;
		bool ok;
		dvec3 n = searchCells(f, best, scale, v, ok);
		if (!(v < bestF)) {
			break;
		}
		best = n;
		bestF = v;
		if (ok) {
			break;
		}
	}
	return best;
}

double ellipsoidMargin(dvec3 s) {
	double lo = min(s.x, min(s.y, s.z)), hi = max(s.x, max(s.y, s.z));
	precise double m = 0.9lf * lo * lo / hi;
	return m;
}

dmat3 ellipsoidGram(dvec3 s, dvec3 r[3]) {
	precise dmat3 g = dmat3(0.0lf);
	for (int k = 0; k < 3; k++) {
		dvec3 q = r[k];
		precise double s2 = s[k] * s[k];
		for (int i = 0; i < 3; i++) {
			for (int j = 0; j < 3; j++) {
				g[j][i] = g[j][i] + s2 * q[i] * q[j];
			}
		}
	}
	return g;
}

// ellipsoidSetup is the start of cpuref's ellipsoidEllipsoid (box
// false: a with semi-axes sa in frame fa, b with sb in fb, working in
// world axes about b's centre) or ellipsoidBox (box true: sb the box's
// half-extents, working in the box's frame): the shapes' support data
// (a.r, b.r: the axes bestProbes uses) and the scale; false when the
// bounding spheres are env or more apart.
bool ellipsoidSetup(bool box, dvec3 sa, Frame fa, dvec3 sb, Frame fb, double env, out Convex a, out Convex b,
	out double scale) {
	dvec3 ar[3] = dvec3[3](fa.r0, fa.r1, fa.r2), br[3] = dvec3[3](fb.r0, fb.r1, fb.r2);
	double ra = max(sa.x, max(sa.y, sa.z)), rb;
	precise dvec3 c = fa.c - fb.c;
	if (box) {
		c = dirToBody(fb, c);
		rb = len3(sb);
		ar = dvec3[3](dirToBody(fb, fa.r0), dirToBody(fb, fa.r1), dirToBody(fb, fa.r2));
		br = dvec3[3](dvec3(1.0lf, 0.0lf, 0.0lf), dvec3(0.0lf, 1.0lf, 0.0lf), dvec3(0.0lf, 0.0lf, 1.0lf));
	} else {
		rb = max(sb.x, max(sb.y, sb.z));
	}
	precise double sc = ra + rb;
	scale = sc;
	a.ell = true;
	a.c = c;
	a.g = ellipsoidGram(sa, ar);
	a.h = dvec3(0.0lf);
	a.r = ar;
	a.margin = ellipsoidMargin(sa);
	b.ell = !box;
	b.c = dvec3(0.0lf);
	b.g = box ? dmat3(0.0lf) : ellipsoidGram(sb, br);
	b.h = box ? sb : dvec3(0.0lf);
	b.r = br;
	b.margin = box ? 0.0lf : ellipsoidMargin(sb);
	precise double reach = len3(c) - ra - rb;
	return !(reach >= env);
}

// setProbe makes the support function of a − b the one probeValue
// evaluates: ebF (box) or sfF.
void setProbe(bool box, Convex a, Convex b) {
	probeBox = box;
	if (box) {
		ebF.e = a.c;
		ebF.g = a.g;
		ebF.h = b.h;
	} else {
		sfF.c = a.c;
		sfF.g[0] = a.g;
		sfF.g[1] = b.g;
		sfF.ng = 2;
	}
}

void ellipsoidFinish(bool box, Convex a, Convex b, Frame fb, double env, dvec3 n);

// ellipsoidContacts is the rest of cpuref's ellipsoidEllipsoid or
// ellipsoidBox after GJK on the cores (firstNormal: −v/|v| apart, else
// EPA), Newton from that normal and, deep, from the best probes; the
// contact at the support points along the least minimum's normal.
void ellipsoidContacts(bool box, Convex a, Convex b, Frame fb, double env, double scale, dvec3 v, bool overlap,
	Simplex sx) {
	bool deep = overlap;
	dvec3 n0;
	if (!overlap) {
		precise double f = -1.0lf / len3(v);
		precise dvec3 nv = v * f;
		n0 = nv;
	} else if (epaInit(a, b, sx, scale)) {
		n0 = epaExpand(a, b, scale);
		if (epaOverflow) {
			pairN_set(4u * pq_ + 3u, 2.0lf);
			return;
		}
	} else {
		precise dvec3 d = b.c - a.c;
		double l = len3(d);
		n0 = dvec3(0.0lf, 0.0lf, 1.0lf);
		if (l > 0.0lf) {
			precise double inv = 1.0lf / l;
			precise dvec3 dn = d * inv;
			n0 = dn;
		}
	}
	setProbe(box, a, b);
	// From n0, then (deep) from the best probes: the least minimum.
	dvec3 starts[3];
	if (deep) {
		bestProbes(a.r, b.r, starts);
	}
	dvec3 n = n0;
	double best = 0.0lf;
	for (int k = -1; k < (deep ? 3 : 0); k++) {
		dvec3 s = k < 0 ? n0 : starts[k];
		dvec3 m = box ? ebMinimize(ebF, s, scale) : sfMinimize(sfF, s, -1, scale);
		double vm = probeValue(m);
		if (k < 0 || vm < best) {
			n = m;
			best = vm;
		}
	}
	for (int c = 0; c < 3; c++) {
		pairN_set(4u * pq_ + uint(c), n[c]);
	}
	pairN_set(4u * pq_ + 3u, 1.0lf);
	ellipsoidFinish(box, a, b, fb, env, n);
}

// ellipsoidFinish is the end of cpuref's ellipsoidEllipsoid or
// ellipsoidBox: with best the value of the support function at the
// least minimum's normal n, Φ = −best and the contact at the support
// points along n.
void ellipsoidFinish(bool box, Convex a, Convex b, Frame fb, double env, dvec3 n) {
	setProbe(box, a, b);
	double best = probeValue(n);
	double phi = -best;
	if (!(phi < env)) {
		return;
	}
	dvec3 pa = support(a, n);
	if (!box) {
		precise dvec3 mn = n * -1.0lf;
		precise dvec3 wa = fb.c + pa;
		precise dvec3 wb = fb.c + support(b, mn);
		add(n, wa, wb, phi, env);
		return;
	}
	dvec3 pb;
	for (int i = 0; i < 3; i++) {
		if (n[i] > 0.0lf) {
			pb[i] = -b.h[i];
		} else if (n[i] < 0.0lf) {
			pb[i] = b.h[i];
		} else {
			precise double nh = -b.h[i];
			pb[i] = max(nh, min(b.h[i], pa[i]));
		}
	}
	add(dirToWorld(fb, n), toWorld(fb, pa), toWorld(fb, pb), phi, env);
}

// ---- capsules and cylinders: the closed forms (collide/narrow_round.go) ----
// A capsule (radius s.x about the segment from −h to h, h = s.y, along
// its body z axis) and a cylinder (radius s.x, half-height s.y, axis z).
// Their pairs with ellipsoids and boxes, capsule–cylinder and
// cylinder–cylinder go through collide's GJK/EPA: row PAIR_HOST_ROUND,
// always listed for the host.

// segmentEnds is collide's segmentOf: the ends c − h·a and c + h·a of the
// axis segment (a = f.r2).
void segmentEnds(double h, Frame f, out dvec3 p0, out dvec3 p1) {
	precise dvec3 d = f.r2 * h;
	precise dvec3 lo = f.c - d;
	precise dvec3 hi = f.c + d;
	p0 = lo;
	p1 = hi;
}

// clamp01 is math.Max(0, math.Min(1, x)).
double clamp01(double x) { return max(0.0lf, min(1.0lf, x)); }

// closestOnSegment is collide's: the point of segment p0–p1 closest to q.
dvec3 closestOnSegment(dvec3 p0, dvec3 p1, dvec3 q) {
	precise dvec3 d = p1 - p0;
	double dd = dot3(d, d);
	if (!(dd > 0.0lf)) {
		return p0;
	}
	precise dvec3 qp = q - p0;
	precise double x = dot3(qp, d) / dd;
	double t = clamp01(x);
	precise dvec3 r = p0 + d * t;
	return r;
}

// closestSegments is collide's (Ericson §5.1.9): the closest points ca,
// cb of segments p1–q1 and p2–q2.
void closestSegments(dvec3 p1, dvec3 q1, dvec3 p2, dvec3 q2, out dvec3 ca, out dvec3 cb) {
	precise dvec3 d1 = q1 - p1, d2 = q2 - p2, r = p1 - p2;
	double a = dot3(d1, d1), e = dot3(d2, d2), f = dot3(d2, r);
	double s = 0.0lf, t = 0.0lf;
	if (!(a > 0.0lf) && !(e > 0.0lf)) {
		ca = p1;
		cb = p2;
		return;
	}
	if (!(a > 0.0lf)) {
		precise double x = f / e;
		t = clamp01(x);
	} else {
		double c = dot3(d1, r);
		if (!(e > 0.0lf)) {
			precise double x = -c / a;
			s = clamp01(x);
		} else {
			double b = dot3(d1, d2);
			precise double den = a * e - b * b;
			if (den > 0.0lf) {
				precise double x = (b * f - c * e) / den;
				s = clamp01(x);
			}
			precise double tt = (b * s + f) / e;
			t = tt;
			if (t < 0.0lf) {
				t = 0.0lf;
				precise double x = -c / a;
				s = clamp01(x);
			} else if (t > 1.0lf) {
				t = 1.0lf;
				precise double x = (b - c) / a;
				s = clamp01(x);
			}
		}
	}
	precise dvec3 ra = p1 + d1 * s;
	precise dvec3 rb = p2 + d2 * t;
	ca = ra;
	cb = rb;
}

// ballBall is collide's: the contact of balls of radii ra at ca and rb at
// cb, along ±n0 when the centres are within 1e-9 of the radii of each
// other.
void ballBall(double ra, dvec3 ca, double rb, dvec3 cb, dvec3 n0, double env) {
	precise dvec3 d = cb - ca;
	double dist = len3(d);
	precise double phi = dist - ra - rb;
	if (!(phi < env)) {
		return;
	}
	precise dvec3 n = n0;
	precise double tiny = 1e-9lf * (ra + rb);
	if (dist > tiny) {
		precise double inv = 1.0lf / dist;
		n = d * inv;
	} else {
		if (dot3(d, n) < 0.0lf) {
			n = n * -1.0lf;
		}
		phi = dot3(d, n) - ra - rb;
	}
	precise dvec3 a = ca + n * ra;
	precise dvec3 b = cb - n * rb;
	add(n, a, b, phi, env);
}

// acrossAxes is collide's: a unit vector across unit axes u and v.
dvec3 acrossAxes(dvec3 u, dvec3 v) {
	dvec3 x = cross3(u, v);
	double l = len3(x);
	if (l > 1e-9lf) {
		precise double inv = 1.0lf / l;
		precise dvec3 r = x * inv;
		return r;
	}
	dvec3 t1, t2;
	tangentPair(u, t1, t2);
	return t1;
}

// sphereCapsule is collide's: the ball at fa.c against the capsule's ball
// about the closest point of its segment.
void sphereCapsule(double ra, dvec3 c, dvec3 sb, Frame fb, double env) {
	dvec3 p0, p1;
	segmentEnds(sb.y, fb, p0, p1);
	ballBall(ra, c, sb.x, closestOnSegment(p0, p1, c), acrossAxes(fb.r2, fb.r2), env);
}

// capsuleCapsule is collide's: the ball–ball contact at the closest points
// of the segments, or for parallel axes (sine² below capsuleParallel =
// 1e-6) overlapping along their length one at each end of the overlap.
void capsuleCapsule(dvec3 sa, Frame fa, dvec3 sb, Frame fb, double env) {
	dvec3 a0, a1, b0, b1;
	segmentEnds(sa.y, fa, a0, a1);
	segmentEnds(sb.y, fb, b0, b1);
	dvec3 ua = fa.r2, ub = fb.r2;
	dvec3 x = cross3(ua, ub);
	dvec3 pa[2], pb[2];
	int nb = 1;
	if (sa.y > 0.0lf && sb.y > 0.0lf && dot3(x, x) < 1e-6lf) {
		precise dvec3 e0 = b0 - fa.c, e1 = b1 - fa.c;
		double t0 = dot3(e0, ua), t1 = dot3(e1, ua);
		precise double nh = -sa.y;
		double lo = max(nh, min(t0, t1)), hi = min(sa.y, max(t0, t1));
		precise double w = hi - lo;
		precise double tiny = 1e-9lf * (sa.y + sb.y);
		if (w > tiny) {
			nb = 2;
			for (int k = 0; k < 2; k++) {
				precise dvec3 pk = fa.c + ua * (k == 0 ? lo : hi);
				pa[k] = pk;
				pb[k] = closestOnSegment(b0, b1, pk);
			}
		}
	}
	if (nb == 1) {
		closestSegments(a0, a1, b0, b1, pa[0], pb[0]);
	}
	dvec3 n0 = acrossAxes(ua, ub);
	for (int k = 0; k < nb; k++) {
		ballBall(sa.x, pa[k], sb.x, pb[k], n0, env);
	}
}

// planeCapsule is collide's planeCapsule, capsulePlane (capsule sc in fc
// against the plane of fp) mirrored: one contact per end of the capsule.
// capsulePlane's normal −np mirrored is np exactly.
void planeCapsule(Frame fp, dvec3 sc, Frame fc, double env) {
	double r = sc.x, h = sc.y;
	dvec3 np = fp.r2, a = fc.r2;
	double na = dot3(np, a);
	precise dvec3 u = np - a * na;
	double ul = len3(u);
	for (int k = 0; k < 2; k++) {
		double s = k == 0 ? -1.0lf : 1.0lf;
		if (s > 0.0lf && !(h > 0.0lf)) {
			break;
		}
		precise double sh = s * h;
		precise dvec3 e = fc.c + a * sh;
		precise dvec3 pt;
		precise double sn = s * na;
		if (sn <= 0.0lf) {
			pt = e - np * r;
		} else if (ul > 1e-9lf) {
			precise double f = r / ul;
			pt = e - u * f;
		} else {
			continue;
		}
		precise dvec3 pc = pt - fp.c;
		double g = dot3(pc, np);
		if (g < env) {
			precise dvec3 b = pt - np * g;
			add(np, b, pt, g, env);
		}
	}
}

// sphereCylinder is collide's: the closest point of the cylinder to the
// ball's centre outside, the nearer of side and cap inside.
void sphereCylinder(double R, dvec3 c, dvec3 sc, Frame fc, double env) {
	double r = sc.x, h = sc.y;
	precise dvec3 cc = c - fc.c;
	dvec3 y = dirToBody(fc, cc);
	double rho = hypot(y.x, y.y);
	precise dvec3 q = y;
	if (rho > r) {
		precise double f = r / rho;
		q.x = y.x * f;
		q.y = y.y * f;
	}
	precise double nh = -h;
	q.z = max(nh, min(h, y.z));
	precise dvec3 d = y - q;
	double dist = len3(d);
	precise dvec3 m = dvec3(0.0lf);
	precise double phi;
	if (dist > 0.0lf) {
		precise double inv = 1.0lf / dist;
		m = d * inv;
		phi = dist - R;
	} else {
		precise double side = r - rho;
		precise double cap = h - abs(y.z);
		if (side < cap) {
			m = dvec3(1.0lf, 0.0lf, 0.0lf);
			if (rho > 0.0lf) {
				m = dvec3(y.x / rho, y.y / rho, 0.0lf);
			}
			q.x = m.x * r;
			q.y = m.y * r;
			phi = -side - R;
		} else {
			m.z = 1.0lf;
			if (y.z < 0.0lf) {
				m.z = -1.0lf;
			}
			q.z = m.z * h;
			phi = -cap - R;
		}
	}
	if (!(phi < env)) {
		return;
	}
	dvec3 mw = dirToWorld(fc, m);
	precise dvec3 n = mw * -1.0lf;
	precise dvec3 a = c - mw * R;
	add(n, a, toWorld(fc, q), phi, env);
}

// planeCylinder is collide's planeCylinder, cylinderPlane (cylinder sc in
// fc against the plane of fp) mirrored: the lowest rim point of each cap,
// or, the axis within cylinderFlat = 0.01 of the plane's normal np, four
// rim points of the lower cap at ±x, ±y of the cylinder's frame.
void planeCylinder(Frame fp, dvec3 sc, Frame fc, double env) {
	double r = sc.x, h = sc.y;
	dvec3 np = fp.r2, a = fc.r2;
	double na = dot3(np, a);
	precise dvec3 u = np - a * na;
	double ul = len3(u);
	dvec3 pts[4];
	int npt;
	if (ul > 0.01lf) {
		precise double f = r / ul;
		precise dvec3 ur = u * f;
		precise double nh = -h;
		precise dvec3 e0 = fc.c + a * nh;
		precise dvec3 e1 = fc.c + a * h;
		precise dvec3 p0 = e0 - ur;
		precise dvec3 p1 = e1 - ur;
		pts[0] = p0;
		pts[1] = p1;
		npt = 2;
	} else {
		precise double s = -h;
		if (na < 0.0lf) {
			s = h;
		}
		precise dvec3 cc = fc.c + a * s;
		precise dvec3 m0 = fc.r0 * -1.0lf;
		precise dvec3 m1 = fc.r1 * -1.0lf;
		precise dvec3 p0 = cc + fc.r0 * r;
		precise dvec3 p1 = cc + fc.r1 * r;
		precise dvec3 p2 = cc + m0 * r;
		precise dvec3 p3 = cc + m1 * r;
		pts[0] = p0;
		pts[1] = p1;
		pts[2] = p2;
		pts[3] = p3;
		npt = 4;
	}
	for (int k = 0; k < npt; k++) {
		dvec3 pt = pts[k];
		precise dvec3 pc = pt - fp.c;
		double g = dot3(pc, np);
		if (g < env) {
			precise dvec3 b = pt - np * g;
			add(np, b, pt, g, env);
		}
	}
}

// convexPair is cpuref's boxBox, ellipsoidEllipsoid and ellipsoidBox
// (ka ≤ kb): their GJK runs at one call site, which keeps the inlined
// kernel small.
void convexPair(uint ka, uint kb, dvec3 sa, Frame fa, dvec3 sb, Frame fb, double env) {
	// Constant where the pipeline has one of the two rows: the other's code
	// is dropped.
	bool boxes = HAS_BOX_BOX && (!HAS_ELLIPSOID_CONVEX || ka == BOX);
	Convex a, b;
	double scale, genv, rel;
	bool run;
	BoxSat r;
	if (boxes) {
		if (!boxSat(sa, fa, sb, fb, env, r)) {
			return;
		}
		scale = r.scale;
		a.ell = false;
		a.c = dvec3(0.0lf);
		a.g = dmat3(0.0lf);
		a.h = sa;
		a.r = dvec3[3](fa.r0, fa.r1, fa.r2);
		a.margin = 0.0lf;
		b.ell = false;
		b.c = r.t;
		b.g = dmat3(0.0lf);
		b.h = sb;
		b.r = dvec3[3](fb.r0, fb.r1, fb.r2);
		b.margin = 0.0lf;
		genv = env;
		rel = 1e-12lf; // boxGJKTol
		run = r.best > 0.0lf;
	} else {
		if (p.mode == 0u) {
			pairN_set(4u * pq_ + 3u, 0.0lf);
		}
		if (!ellipsoidSetup(kb == BOX, sa, fa, sb, fb, env, a, b, scale)) {
			return;
		}
		if (p.mode != 0u) {
			// Modes 3 and 1: mode 0's normal (or its overflow).
			double st = pairN_at(4u * pq_ + 3u);
			if (st == 2.0lf) {
				epaOverflow = true;
			} else if (st == 1.0lf) {
				dvec3 n = dvec3(pairN_at(4u * pq_), pairN_at(4u * pq_ + 1u), pairN_at(4u * pq_ + 2u));
				ellipsoidFinish(kb == BOX, a, b, fb, env, n);
			}
			return;
		}
		precise double e = env + a.margin + b.margin;
		genv = e;
		rel = 0.5lf; // gjkRelTol
		run = true;
	}
	Simplex sx;
	sx.n = 0;
	bool overlap = false, beyond = false;
	dvec3 v = dvec3(0.0lf);
	if (run) {
		v = gjkDistance(a, b, genv, scale, rel, sx, overlap, beyond);
	}
	if (beyond) {
		return;
	}
	if (boxes) {
		boxContacts(sa, fa, sb, fb, env, r, v, overlap, sx);
	} else {
		ellipsoidContacts(kb == BOX, a, b, fb, env, scale, v, overlap, sx);
	}
}

// orderedBefore is cpuref's: compare position, orientation, size, in
// that order, component by component.
bool orderedBefore(uint a, uint b) {
	for (uint k = 0u; k < 3u; k++) {
		double x = pos[3u * a + k], y = pos[3u * b + k];
		if (x != y) {
			return x < y;
		}
	}
	for (uint k = 0u; k < 4u; k++) {
		double x = rot[4u * a + k], y = rot[4u * b + k];
		if (x != y) {
			return x < y;
		}
	}
	for (uint k = 1u; k < 4u; k++) {
		double x = shape[5u * a + k], y = shape[5u * b + k];
		if (x != y) {
			return x < y;
		}
	}
	return false;
}

// copyHost writes the host contacts of listed pair q at t0.
void copyHost(uint q, uint t0, uint cnt) {
	uint lo = 0u, hi = min(meta[6], p.pcap);
	while (lo < hi) {
		uint mid = lo + (hi - lo) / 2u;
		if (fbRec[3u * mid] < q) {
			lo = mid + 1u;
		} else {
			hi = mid;
		}
	}
	uint first = fbRec[3u * lo + 2u];
	for (uint k = 0u; k < cnt; k++) {
		uint t = t0 + k;
		if (t >= p.cap) {
			break;
		}
		uint h = 12u * (first + k);
		ca[t] = pairA[q];
		cb[t] = pairB[q];
		sub[t] = k;
		for (uint c = 0u; c < 3u; c++) {
			normal[3u * t + c] = host[h + c];
			pa[3u * t + c] = host[h + 3u + c];
			pb[3u * t + c] = host[h + 6u + c];
		}
		phi_[t] = host[h + 9u];
		if (ROOM(mu, t)) {
			mu[t] = host[h + 10u];
		}
		if (ROOM(cohesion, t)) {
			cohesion[t] = host[h + 11u];
		}
	}
}

void main() {
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	if (p.mode == 2u) {
		uint nf = min(meta[6], p.pcap);
		for (uint f = gl_GlobalInvocationID.x; f < nf; f += stride) {
			off[fbRec[3u * f]] = fbRec[3u * f + 1u];
		}
		return;
	}
	uint np = min(meta[2], p.pcap);
	for (uint q = gl_GlobalInvocationID.x; q < np; q += stride) {
		uint i = pairA[q], j = pairB[q];
		uint ki = uint(shape[5u * i]), kj = uint(shape[5u * j]);
		bool swap = ki > kj || ki == kj && orderedBefore(j, i);
		uint ia = swap ? j : i, ib = swap ? i : j;
		uint ka = swap ? kj : ki, kb = swap ? ki : kj;
		uint cls = pairClass(ka, kb);
		bool toHost = (p.host >> cls & 1u) != 0u;
		if ((CLASSES >> cls & 1u) == 0u && !toHost) {
			continue; // another pipeline's row
		}
		precise double env = p.env + box[8u * i + 6u] + box[8u * j + 6u];
		// A sphere's frame is only its centre.
		Frame fa, fb;
		fa.c = vec3At(ia);
		fb.c = vec3At(ib);
		if (ka != SPHERE) {
			fa = frameOf(fa.c, quatAt(ia));
		}
		if (kb != SPHERE) {
			fb = frameOf(fb.c, quatAt(ib));
		}
		dvec3 sa = sizeOf(ia), sb = sizeOf(ib);
		pi_ = i;
		pj_ = j;
		pq_ = q;
		swapped = swap;
		base = p.mode == 1u ? off[q] : 0u;
		ncp = 0u;
		epaOverflow = toHost; // a row no pipeline builds: listed like an EPA overflow
		if (toHost) {
		} else if (HAS_SPHERE_SPHERE && cls == PAIR_SPHERE_SPHERE) {
			sphereSphere(sa.x, fa.c, sb.x, fb.c, env);
		} else if (HAS_SPHERE_BOX && cls == PAIR_SPHERE_BOX) {
			sphereBox(sa.x, fa.c, sb, fb, env);
		} else if (HAS_SPHERE_PLANE && cls == PAIR_SPHERE_PLANE) {
			spherePlane(sa.x, fa.c, fb, env);
		} else if (HAS_ELLIPSOID_PLANE && cls == PAIR_ELLIPSOID_PLANE) {
			ellipsoidPlane(sa, fa, fb, env);
		} else if (HAS_BOX_PLANE && cls == PAIR_BOX_PLANE) {
			boxPlane(sa, fa, fb, env);
		} else if (HAS_SPHERE_ELLIPSOID && cls == PAIR_SPHERE_ELLIPSOID) {
			sphereEllipsoid(sa.x, fa.c, sb, fb, env);
		} else if (HAS_SPHERE_CAPSULE && cls == PAIR_SPHERE_CAPSULE) {
			sphereCapsule(sa.x, fa.c, sb, fb, env);
		} else if (HAS_PLANE_CAPSULE && cls == PAIR_PLANE_CAPSULE) {
			planeCapsule(fa, sb, fb, env);
		} else if (HAS_CAPSULE_CAPSULE && cls == PAIR_CAPSULE_CAPSULE) {
			capsuleCapsule(sa, fa, sb, fb, env);
		} else if (HAS_SPHERE_CYLINDER && cls == PAIR_SPHERE_CYLINDER) {
			sphereCylinder(sa.x, fa.c, sb, fb, env);
		} else if (HAS_PLANE_CYLINDER && cls == PAIR_PLANE_CYLINDER) {
			planeCylinder(fa, sb, fb, env);
		} else if (HAS_BOX_BOX && cls == PAIR_BOX_BOX || HAS_ELLIPSOID_CONVEX && cls == PAIR_ELLIPSOID_CONVEX) {
			// box–box, ellipsoid–ellipsoid, ellipsoid–box
			convexPair(ka, kb, sa, fa, sb, fb, env);
		}
		if (epaOverflow) {
			// EPA outgrew the device's polytope before any contact was
			// added: the host computes the pair.
			if (p.mode == 1u) {
				copyHost(q, off[q], off[q + 1u] - off[q]);
				continue;
			}
			off[q] = 0u;
			if (p.mode == 0u) {
				atomicOr(meta[5], 2u);
				uint f = atomicAdd(meta[6], 1u);
				if (f < p.pcap) {
					fbList[3u * f] = q;
					fbList[3u * f + 1u] = i;
					fbList[3u * f + 2u] = j;
				}
			}
			continue;
		}
		if (p.mode != 1u) {
			off[q] = ncp;
		}
	}
}
