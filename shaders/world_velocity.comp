#version 450
// world_velocity: dst = v with every body's angular part turned into the
// world frame (cpuref's worldVelocity): the solve takes velocities in the
// world frame (cpuref's frame.go), and Build's r = Dᵀ vfree + b reads the
// free velocity so turned; and the step's world-frame inverse inertia
// R J̄⁻¹ Rᵀ of every body that is not isotropic (J̄⁻¹'s entries not all
// equal; a fixed body's are 0), the only bodies whose products with N read
// it (lib/contact_row.glsl's INERTIA_WORLD; cpuref's worldInertia for the
// same bodies). A model without such bodies binds an iw of one body's
// size, never written.
//
// Loop, for each body i (q = rot_i = (w, x, y, z), j = invInertia_i):
//
//	dst[6i:6i+3] = v[6i:6i+3]
//	dst[6i+3:6i+6] = Rotate(q, v[6i+3:6i+6])   // mgl64's Quat.Rotate
//	if !isotropic(j) { iw[6i:6i+6] = worldInertia(q, j) } // (m00, m01, m02, m11, m12, m22)
//
// with R the quaternion's rotation matrix, [1 − 2(y²+z²), 2(xy − wz),
// 2(xz + wy); 2(xy + wz), 1 − 2(x²+z²), 2(yz − wx); 2(xz − wy),
// 2(yz + wx), 1 − 2(x²+y²)], and m_ab = Σ_k (R_ak·j_k)·R_bk left to right.
// Every operation `precise` (lib/quat.glsl): bit for bit cpuref's.
// Bindings (set 0): 0 dst (written; 6 float64 per body), 1 v (6 per body:
// linear world frame, angular body frame), 2 rot (4 per body: w, x, y, z),
// 3 invInertia (3 per body), 4 iw (written; 6 per body).
// Arguments: uint n (4 bytes).
// Dispatch: (min(⌈n/64⌉, max group count), 1, 1) workgroups of 64; a
// grid-stride loop covers any n.
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) writeonly buffer Dst { double dst[]; };
layout(std430, set = 0, binding = 1) readonly buffer V { double v[]; };
layout(std430, set = 0, binding = 2) readonly buffer Rot { double rot[]; };
layout(std430, set = 0, binding = 3) readonly buffer InvInertia { double invInertia[]; };
layout(std430, set = 0, binding = 4) writeonly buffer IW { double iw[]; };

layout(std430, binding = 31) restrict readonly buffer Push {
	uint n;
} p;

#include "quat.glsl"
#include "contact_row.glsl"

void main() {
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) {
		uint o = 6u * i;
		precise dvec3 w = rotate(rot[4u * i], dvec3(rot[4u * i + 1u], rot[4u * i + 2u], rot[4u * i + 3u]),
			dvec3(v[o + 3u], v[o + 4u], v[o + 5u]));
		dst[o] = v[o];
		dst[o + 1u] = v[o + 1u];
		dst[o + 2u] = v[o + 2u];
		dst[o + 3u] = w.x;
		dst[o + 4u] = w.y;
		dst[o + 5u] = w.z;

		double j[3] = double[3](invInertia[3u * i], invInertia[3u * i + 1u], invInertia[3u * i + 2u]);
		if (isotropic(dvec3(j[0], j[1], j[2]))) {
			continue;
		}
		double qw = rot[4u * i];
		double x = rot[4u * i + 1u];
		double y = rot[4u * i + 2u];
		double z = rot[4u * i + 3u];
		precise double xx = x * x;
		precise double yy = y * y;
		precise double zz = z * z;
		precise double xy = x * y;
		precise double xz = x * z;
		precise double yz = y * z;
		precise double wx = qw * x;
		precise double wy = qw * y;
		precise double wz = qw * z;
		precise double r[9];
		r[0] = 1.0lf - 2.0lf * (yy + zz);
		r[1] = 2.0lf * (xy - wz);
		r[2] = 2.0lf * (xz + wy);
		r[3] = 2.0lf * (xy + wz);
		r[4] = 1.0lf - 2.0lf * (xx + zz);
		r[5] = 2.0lf * (yz - wx);
		r[6] = 2.0lf * (xz - wy);
		r[7] = 2.0lf * (yz + wx);
		r[8] = 1.0lf - 2.0lf * (xx + yy);
		uint ab[12] = uint[12](0u, 0u, 0u, 1u, 0u, 2u, 1u, 1u, 1u, 2u, 2u, 2u);
		for (uint e = 0u; e < 6u; e++) {
			uint a = 3u * ab[2u * e];
			uint c = 3u * ab[2u * e + 1u];
			precise double m = r[a] * j[0] * r[c] + r[a + 1u] * j[1] * r[c + 1u] + r[a + 2u] * j[2] * r[c + 2u];
			iw[6u * i + e] = m;
		}
	}
}
