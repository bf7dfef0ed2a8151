#version 450
// fixed_force: the per-chunk sums of the contact force (N) on fixed bodies,
// the first pass of a deterministic reduction (sum.comp, run once per
// component, is the second), like dot.comp: cpuref's FixedForce sums the
// same terms in contact order, so the two differ by summation order only.
//
// Term of contact k (A = a[k], B = b[k]), zero unless A or B is fixed:
//
//	F_k = contactForce(n, u, γ_3k, γ_3k+1, γ_3k+2) / h   // lib/contact_row.glsl
//	term_k = 0; if fixed[A] { term_k −= F_k }; if fixed[B] { term_k += F_k }
//
// Loop, for each chunk c = [2048c, min(2048(c+1), nc)) (one workgroup;
// thread t of 256), per component:
//
//	for t := 0; t < 256; t++ {          // in parallel
//		s[t] = 0
//		for k := lo + t; k < hi; k += 256 { s[t] = s[t] − F_k (A fixed); s[t] = s[t] + F_k (B fixed) }
//	}
//	for h := 128; h > 0; h /= 2 {       // fixed tree
//		for t := 0; t < h; t++ { s[t] += s[t+h] }
//	}
//	px[c], py[c], pz[c] = s[0] per component
//
// Every operation is `precise` and the order fixed: bit-identical run to
// run.
// Bindings (set 0): 0 px, 1 py, 2 pz (written; ⌈nc/2048⌉ float64 each, N),
// 3 gamma (3 per contact, N·s), 4 a, 5 b (uint32 body indices), 6 jac (12
// per contact), 7 fixedBody (uint32 per body).
// Arguments: double h (s), uint nc (12 bytes).
// Dispatch: (min(⌈nc/2048⌉, max group count), 1, 1) workgroups of 256; a
// workgroup loops over chunks c, c + groups, … when there are more chunks
// than workgroups.
layout(local_size_x = 256) in;

const uint CHUNK = 2048;
const uint WG = 256;

layout(std430, set = 0, binding = 0) writeonly buffer PX { double px[]; };
layout(std430, set = 0, binding = 1) writeonly buffer PY { double py[]; };
layout(std430, set = 0, binding = 2) writeonly buffer PZ { double pz[]; };
layout(std430, set = 0, binding = 3) readonly buffer Gamma { double gamma[]; };
layout(std430, set = 0, binding = 4) readonly buffer BodyA { uint bodyA[]; };
layout(std430, set = 0, binding = 5) readonly buffer BodyB { uint bodyB[]; };
#include "store.glsl"
#define JAC_BINDING 6
#include "jac.glsl"
layout(std430, set = 0, binding = 7) readonly buffer FixedBody { uint fixedBody[]; };

#include "contact_row.glsl"

layout(std430, binding = 31) restrict readonly buffer Push {
	double h;
	uint nc;
} p;

shared double sx[WG];
shared double sy[WG];
shared double sz[WG];

void main() {
	uint t = gl_LocalInvocationID.x;
	uint nch = (p.nc + CHUNK - 1u) / CHUNK;
	for (uint c = gl_WorkGroupID.x; c < nch; c += gl_NumWorkGroups.x) {
		uint lo = c * CHUNK;
		uint hi = min(lo + CHUNK, p.nc);
		precise double ax = 0.0lf;
		precise double ay = 0.0lf;
		precise double az = 0.0lf;
		for (uint k = lo + t; k < hi; k += WG) {
			bool fa = fixedBody[bodyA[k]] != 0u;
			bool fb = fixedBody[bodyB[k]] != 0u;
			if (!fa && !fb) {
				continue;
			}
			double g0 = gamma[3u * k];
			double g1 = gamma[3u * k + 1u];
			double g2 = gamma[3u * k + 2u];
			precise dvec3 F = contactForce(jacVec(k, JAC_N), jacVec(k, JAC_U), g0, g1, g2);
			precise double fx = F.x / p.h;
			precise double fy = F.y / p.h;
			precise double fz = F.z / p.h;
			if (fa) {
				ax = ax - fx;
				ay = ay - fy;
				az = az - fz;
			}
			if (fb) {
				ax = ax + fx;
				ay = ay + fy;
				az = az + fz;
			}
		}
		sx[t] = ax;
		sy[t] = ay;
		sz[t] = az;
		barrier();
		for (uint h = WG / 2u; h > 0u; h >>= 1u) {
			if (t < h) {
				precise double vx = sx[t] + sx[t + h];
				precise double vy = sy[t] + sy[t + h];
				precise double vz = sz[t] + sz[t + h];
				sx[t] = vx;
				sy[t] = vy;
				sz[t] = vz;
			}
			barrier();
		}
		if (t == 0u) {
			px[c] = sx[0];
			py[c] = sy[0];
			pz[c] = sz[0];
		}
		barrier();
	}
}
