#version 450
// integrate: the end of the time step for every movable body i (eqs. 5 and
// 8 of the APGD paper, cpuref's Integrate): v = vfree + dv with
// dv = M⁻¹Dγ from body_impulse (world frame), its angular part turned into
// the body frame, ω̄ = ω̄_free + Rᵀdv_ω, x += h·v, and q ← q ⊗ exp(½hω̄)
// renormalised.
//
// Loop, for each body i:
//
//	if fixed[i] { continue }
//	δ := Rotate(Conjugate(q), dv[6i+3:6i+6])
//	for k := 0; k < 3; k++ {
//		vel[3i+k] = vfree[6i+k] + dv[6i+k]
//		omega[3i+k] = vfree[6i+3+k] + δ[k]
//		pos[3i+k] += h*vel[3i+k]
//	}
//	θ := ω̄·h; a := |θ|                       // mgl64 Vec3.Mul, Len
//	if a == 0 { continue }
//	s, c := Sincos(a/2)
//	q = Normalize(q ⊗ (c, θ·(s/a)))           // mgl64 Quat.Mul, Normalize
//
// Sincos is Go's math.Sincos (Cephes polynomials after a Cody–Waite
// reduction by π/4 in three parts), ported operation by operation; it
// matches Go for a/2 < 2²⁹ rad, beyond which Go switches to Payne–Hanek
// reduction and this port loses accuracy (a body turning 5·10⁸ rad in one
// step). Normalize is mgl64's: q is left as it is when its length is within
// mgl64.FloatEqual of 1 (relative 1e-10), else W/len and V·(1/len). Every
// operation is `precise`: bit for bit cpuref where float64 division and
// square root are correctly rounded.
// Bindings (set 0): 0 pos (read and written; 3 float64 per body, m), 1 rot
// (read and written; 4 per body, w, x, y, z), 2 vel (written; 3 per body,
// m/s), 3 omega (written; 3 per body, rad/s, body frame), 4 vfree (6 per
// body), 5 dv (6 per body), 6 fixedBody (uint32 per body).
// Arguments: double h (s), uint n (12 bytes).
// Dispatch: (min(⌈n/64⌉, max group count), 1, 1) workgroups of 64; a
// grid-stride loop covers any n.
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) buffer Pos { double pos[]; };
layout(std430, set = 0, binding = 1) buffer Rot { double rot[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Vel { double vel[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Omega { double omega[]; };
layout(std430, set = 0, binding = 4) readonly buffer VFree { double vfree[]; };
layout(std430, set = 0, binding = 5) readonly buffer DV { double dv[]; };
layout(std430, set = 0, binding = 6) readonly buffer FixedBody { uint fixedBody[]; };

layout(std430, binding = 31) restrict readonly buffer Push {
	double h;
	uint n;
} p;

#include "quat.glsl"

// Go's math constants (sin.go, sincos.go), bits in the comments.
const double FOUR_OVER_PI = 1.2732395447351628lf; // 0x3ff45f306dc9c883, float64(4/math.Pi)
const double PI4A = 0.78539812564849854lf;        // 0x3fe921fb40000000
const double PI4B = 3.7748947079307982e-08lf;     // 0x3e64442d00000000
const double PI4C = 2.6951514290790595e-15lf;     // 0x3ce8469898cc5170
const double S0 = 1.5896230157654656e-10lf;       // 0x3de5d8fd1fd19ccd
const double S1 = -2.5050747762857807e-08lf;      // 0xbe5ae5e5a9291f5d
const double S2 = 2.7557313621385722e-06lf;       // 0x3ec71de3567d48a1
const double S3 = -0.00019841269829589539lf;      // 0xbf2a01a019bfdf03
const double S4 = 0.0083333333333221182lf;        // 0x3f8111111110f7d0
const double S5 = -0.1666666666666663lf;          // 0xbfc5555555555548
const double C0 = -1.1358536521387682e-11lf;      // 0xbda8fa49a0861a9b
const double C1 = 2.087570084197473e-09lf;        // 0x3e21ee9d7b4e3f05
const double C2 = -2.755731417929674e-07lf;       // 0xbe927e4f7eac4bc6
const double C3 = 2.4801587288851704e-05lf;       // 0x3efa01a019c844f5
const double C4 = -0.0013888888888873056lf;       // 0xbf56c16c16c14f91
const double C5 = 0.041666666666666595lf;         // 0x3fa555555555554b
// mgl64's FloatEqual constants.
const double MIN_NORMAL = 1.1754943508222875e-38lf; // 0x3810000000000000, mgl64.MinNormal
const double EPSILON = 1e-10lf;                     // 0x3ddb7cdfd9d7bdbb, mgl64.Epsilon
const double MAX_VALUE = 1.7976931348623157e+308lf; // 0x7fefffffffffffff

// sincos is Go's math.Sincos for finite 0 ≤ x < 2²⁹; it returns (sin, cos).
precise dvec2 sincos(double x) {
	if (x == 0.0lf) {
		return dvec2(x, 1.0lf);
	}
	if (isnan(x) || isinf(x)) {
		precise double nan = x - x;
		return dvec2(nan, nan);
	}
	bool sinSign = false;
	bool cosSign = false;
	if (x < 0.0lf) {
		x = -x;
		sinSign = true;
	}
	precise double xs = x * FOUR_OVER_PI;
	uint j = uint(xs);
	double y = double(j);
	if ((j & 1u) == 1u) {
		j++;
		y = y + 1.0lf;
	}
	j &= 7u;
	precise double z = ((x - y * PI4A) - y * PI4B) - y * PI4C;
	if (j > 3u) {
		j -= 4u;
		sinSign = !sinSign;
		cosSign = !cosSign;
	}
	if (j > 1u) {
		cosSign = !cosSign;
	}
	precise double zz = z * z;
	precise double c = 1.0lf - 0.5lf * zz + zz * zz * ((((((C0 * zz) + C1) * zz + C2) * zz + C3) * zz + C4) * zz + C5);
	precise double s = z + z * zz * ((((((S0 * zz) + S1) * zz + S2) * zz + S3) * zz + S4) * zz + S5);
	if (j == 1u || j == 2u) {
		double t = s;
		s = c;
		c = t;
	}
	if (cosSign) {
		c = -c;
	}
	if (sinSign) {
		s = -s;
	}
	return dvec2(s, c);
}

// floatEqual1 is mgl64.FloatEqual(1, b).
bool floatEqual1(double b) {
	if (b == 1.0lf) {
		return true;
	}
	precise double d = 1.0lf - b;
	double diff = d < 0.0lf ? -d : (d == 0.0lf ? 0.0lf : d); // mgl64.Abs
	if (b == 0.0lf || diff < MIN_NORMAL) {
		precise double eps2 = EPSILON * EPSILON;
		return diff < eps2;
	}
	double ab = b < 0.0lf ? -b : (b == 0.0lf ? 0.0lf : b);
	precise double rel = diff / (1.0lf + ab);
	return rel < EPSILON;
}

void main() {
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) {
		if (fixedBody[i] != 0u) {
			continue;
		}
		precise dvec3 qc = dvec3(rot[4u * i + 1u] * -1.0lf, rot[4u * i + 2u] * -1.0lf, rot[4u * i + 3u] * -1.0lf);
		precise dvec3 dwb = rotate(rot[4u * i], qc, dvec3(dv[6u * i + 3u], dv[6u * i + 4u], dv[6u * i + 5u]));
		double w[3];
		for (uint k = 0u; k < 3u; k++) {
			precise double v = vfree[6u * i + k] + dv[6u * i + k];
			precise double o = vfree[6u * i + 3u + k] + dwb[k];
			precise double x = pos[3u * i + k] + p.h * v;
			vel[3u * i + k] = v;
			omega[3u * i + k] = o;
			pos[3u * i + k] = x;
			w[k] = o;
		}
		precise double th0 = w[0] * p.h;
		precise double th1 = w[1] * p.h;
		precise double th2 = w[2] * p.h;
		precise double a = sqrt(th0 * th0 + th1 * th1 + th2 * th2);
		if (a == 0.0lf) {
			continue;
		}
		precise double ha = a / 2.0lf;
		precise dvec2 sc = sincos(ha);
		precise double f = sc.x / a;
		precise double d0 = th0 * f;
		precise double d1 = th1 * f;
		precise double d2 = th2 * f;
		double dw = sc.y;
		double qw = rot[4u * i];
		double q0 = rot[4u * i + 1u];
		double q1 = rot[4u * i + 2u];
		double q2 = rot[4u * i + 3u];
		// mgl64 Quat.Mul: W = w₁w₂ − v₁·v₂, V = v₁×v₂ + v₂w₁ + v₁w₂.
		precise double mw = qw * dw - (q0 * d0 + q1 * d1 + q2 * d2);
		precise double c0 = q1 * d2 - q2 * d1;
		precise double c1 = q2 * d0 - q0 * d2;
		precise double c2 = q0 * d1 - q1 * d0;
		precise double m0 = c0 + d0 * qw + q0 * dw;
		precise double m1 = c1 + d1 * qw + q1 * dw;
		precise double m2 = c2 + d2 * qw + q2 * dw;
		// mgl64 Quat.Normalize.
		precise double len = sqrt(mw * mw + m0 * m0 + m1 * m1 + m2 * m2);
		if (!floatEqual1(len)) {
			if (len == 0.0lf) {
				mw = 1.0lf;
				m0 = 0.0lf;
				m1 = 0.0lf;
				m2 = 0.0lf;
			} else {
				if (isinf(len)) {
					len = MAX_VALUE;
				}
				precise double il = 1.0lf / len;
				mw = mw * 1.0lf / len;
				m0 = m0 * il;
				m1 = m1 * il;
				m2 = m2 * il;
			}
		}
		rot[4u * i] = mw;
		rot[4u * i + 1u] = m0;
		rot[4u * i + 2u] = m1;
		rot[4u * i + 3u] = m2;
	}
}
