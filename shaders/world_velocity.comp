#version 450
// world_velocity: dst = v with every body's angular part turned into the
// world frame (cpuref's worldVelocity): the solve takes velocities in the
// world frame (cpuref's frame.go), and Build's r = Dᵀ vfree + b reads the
// free velocity so turned.
//
// Loop, for each body i (q = rot_i):
//
//	dst[6i:6i+3] = v[6i:6i+3]
//	dst[6i+3:6i+6] = Rotate(q, v[6i+3:6i+6])   // mgl64's Quat.Rotate
//
// Every operation `precise` (lib/quat.glsl): bit for bit cpuref's.
// Bindings (set 0): 0 dst (written; 6 float64 per body), 1 v (6 per body:
// linear world frame, angular body frame), 2 rot (4 per body: w, x, y, z).
// Push constants: uint n (4 bytes).
// Dispatch: (min(⌈n/64⌉, max group count), 1, 1) workgroups of 64; a
// grid-stride loop covers any n.
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) writeonly buffer Dst { double dst[]; };
layout(std430, set = 0, binding = 1) readonly buffer V { double v[]; };
layout(std430, set = 0, binding = 2) readonly buffer Rot { double rot[]; };

layout(push_constant) uniform Push {
	uint n;
} p;

#include "quat.glsl"

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
	}
}
