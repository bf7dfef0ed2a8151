#version 450
// collide_narrow: the narrowphase of every candidate pair with a closed
// form (cpuref's Narrow: sphereSphere, sphereBox, spherePlane,
// ellipsoidPlane, boxPlane, with its swap into kind order and mirroring),
// counting the contacts (modes 0 and 3) or writing them (mode 1) at the
// pair's offset from the scan of the counts, as cpuref's Collider.Collide
// does: contacts in pair order, within a pair in narrowphase order. The
// other pairs' contacts come from the host.
//
// Loop, for each pair q = (i, j) of collide_pairs, with env' = env + m_i +
// m_j (m the speculative margins of collide_aabb):
//
//	cps := Narrow(shape_i, (pos_i, rot_i), shape_j, (pos_j, rot_j), env')
//	mode 0: off[q] = len(cps)                       (closed form)
//	        off[q] = 0; fbList[3f:3f+3] = (q, i, j), f = atomicAdd(meta[6], 1)  (other kinds)
//	mode 3: as mode 0 without the list
//	mode 2: for each record f < meta[6] of fb (q, count, first): off[q] = count
//	mode 1: for k, c := range cps, at t = off[q] + k < cap:
//	        a, b = i, j; normal = c.Normal; phi = c.Phi; sub = k
//	        pa = conj(rot_i).Rotate(c.PA − pos_i); pb = conj(rot_j).Rotate(c.PB − pos_j)
//	        mu = min(μ_i, μ_j); cohesion = min(ĉ_i, ĉ_j)     // engine.CombineMaterials
//
//	        (other kinds: the off[q+1] − off[q] contacts host[12(first+k):]
//	        of its fb record, normal, pa, pb, phi, mu, cohesion, are copied)
//
// A pair of kinds without a closed form here (box–box, and an ellipsoid
// with a sphere, an ellipsoid or a box) sets bit 1 of meta[5] in mode 0
// and goes to the list: the host runs cpuref's narrowphase on the listed
// pairs and uploads their counts and contacts as fb (records sorted by q)
// and host, and modes 3, 2 and 1 then place every pair's contacts. A
// non-finite Φ or normal sets bit 2 (cpuref's Collide rejects it). Every
// operation is `precise` and written in cpuref's order (mgl64 Len, Dot,
// Rotate, bodyFrame as in cpuref/narrow.go); math.Min and math.Max are
// GLSL's min and max, which differ from Go's only in the sign of a zero
// result.
// Bindings (set 0): 0 pos (3 float64 per body), 1 rot (4), 2 shape (5:
// kind, size, R), 3 mat (2: μ, ĉ in N), 4 box (8: margin at 6), 5 pairA,
// 6 pairB (uint32), all read; 7 off (uint32, pcap+1: written in mode 0,
// read in mode 1); 8 a, 9 b (uint32), 10 normal, 11 pa, 12 pb (3 float64
// per contact, pa and pb in the body frames, m), 13 phi (m), 14 mu,
// 15 cohesion (1 float64 per contact), 16 sub (uint32), written in mode 1;
// 17 meta (uint32: pairs at 2, flags at 5, listed pairs at 6); 18 fbList
// (uint32, 3 per listed pair, written in mode 0); 19 fb (uint32, 3 per
// record) and 20 host (12 float64 per host contact), read.
// Push constants: double env (m), uint mode, uint pcap, uint cap (20 bytes).
// Dispatch: (min(⌈pcap/64⌉, max group count), 1, 1) workgroups of 64; a
// grid-stride loop covers the meta[2] pairs (mode 2: meta[6] records).
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) readonly buffer Pos { double pos[]; };
layout(std430, set = 0, binding = 1) readonly buffer Rot { double rot[]; };
layout(std430, set = 0, binding = 2) readonly buffer Shape { double shape[]; };
layout(std430, set = 0, binding = 3) readonly buffer Mat { double mat[]; };
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
layout(std430, set = 0, binding = 16) writeonly buffer Sub { uint sub[]; };
layout(std430, set = 0, binding = 17) buffer Meta { uint meta[]; };
layout(std430, set = 0, binding = 18) writeonly buffer FbList { uint fbList[]; };
layout(std430, set = 0, binding = 19) readonly buffer Fb { uint fbRec[]; };
layout(std430, set = 0, binding = 20) readonly buffer Host { double host[]; };

layout(push_constant) uniform Push {
	double env;
	uint mode;
	uint pcap;
	uint cap;
} p;

const uint SPHERE = 0u;
const uint ELLIPSOID = 1u;
const uint BOX = 2u;
const uint PLANE = 3u;

// The pair being processed: its bodies in the caller's order, whether
// Narrow swapped them, its first contact's index, and the count so far.
uint pi_, pj_, base;
bool swapped;
uint ncp;

bool finite(double x) { return !isnan(x) && !isinf(x); }

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
	mu[t] = min(mat[2u * i], mat[2u * j]);
	cohesion[t] = min(mat[2u * i + 1u], mat[2u * j + 1u]);
}

double dot3(dvec3 a, dvec3 b) {
	precise double r = a.x * b.x + a.y * b.y + a.z * b.z;
	return r;
}

double len3(dvec3 a) {
	precise double r = sqrt(a.x * a.x + a.y * a.y + a.z * a.z);
	return r;
}

dvec3 cross3(dvec3 a, dvec3 b) {
	precise dvec3 r = dvec3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
	return r;
}

dvec3 vec3At(uint i) { return dvec3(pos[3u * i], pos[3u * i + 1u], pos[3u * i + 2u]); }
dvec4 quatAt(uint i) { return dvec4(rot[4u * i], rot[4u * i + 1u], rot[4u * i + 2u], rot[4u * i + 3u]); }
dvec3 sizeOf(uint i) { return dvec3(shape[5u * i + 1u], shape[5u * i + 2u], shape[5u * i + 3u]); }

// rotate is mgl64's Quat.Rotate: v + c·(2w) + (2V) × c with c = V × v;
// q = (w, x, y, z).
dvec3 rotate(dvec4 q, dvec3 v) {
	dvec3 qv = q.yzw;
	dvec3 c = cross3(qv, v);
	precise double t = 2.0lf * q.x;
	precise dvec3 a = v + c * t;
	precise dvec3 q2 = qv * 2.0lf;
	dvec3 d = cross3(q2, c);
	precise dvec3 r = a + d;
	return r;
}

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

// closedForm reports whether kinds ka ≤ kb pair by a closed form here.
bool closedForm(uint ka, uint kb) {
	return ka == SPHERE && kb != ELLIPSOID || kb == PLANE;
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
		mu[t] = host[h + 10u];
		cohesion[t] = host[h + 11u];
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
		if (!closedForm(ka, kb)) {
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
		swapped = swap;
		base = p.mode == 1u ? off[q] : 0u;
		ncp = 0u;
		if (ka == SPHERE && kb == SPHERE) {
			sphereSphere(sa.x, fa.c, sb.x, fb.c, env);
		} else if (ka == SPHERE && kb == BOX) {
			sphereBox(sa.x, fa.c, sb, fb, env);
		} else if (ka == SPHERE && kb == PLANE) {
			spherePlane(sa.x, fa.c, fb, env);
		} else if (ka == ELLIPSOID && kb == PLANE) {
			ellipsoidPlane(sa, fa, fb, env);
		} else if (ka == BOX && kb == PLANE) {
			boxPlane(sa, fa, fb, env);
		}
		if (p.mode != 1u) {
			off[q] = ncp;
		}
	}
}
