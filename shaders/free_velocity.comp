#version 450
// free_velocity: vfree_i = v_i + h M_i⁻¹ f_i for every body i, the velocity
// without contact impulses (cpuref's freeVelocity, term M⁻¹k of eq. 5 of
// the APGD paper): linear part in the world frame, angular part in the body
// frame, the gyroscopic torque −ω̄×(Jω̄) integrated implicitly (implicit
// midpoint, engine.GyroStep; lib/gyro.glsl). Fixed bodies get zero.
//
// Loop, for each body i (J⁻¹ = invInertia, q = rot_i):
//
//	if fixed[i] { vfree[6i:6i+6] = 0; continue }
//	for k := 0; k < 3; k++ { vfree[6i+k] = vel[3i+k] + h*(g[k] + invMass[i]*force[3i+k]) }
//	ω̄* := GyroStep(ω̄, J⁻¹, h)         // torque-free step of Euler's equations
//	τ := Rotate(Conjugate(q), torque_i)
//	for k := 0; k < 3; k++ { vfree[6i+3+k] = ω̄*[k] + h*J⁻¹[k]*τ[k] }
//
// Rotate is mgl64's Quat.Rotate, term by term in its order; every
// operation is `precise` (no fused multiply-add), so the result equals
// cpuref's bit for bit where float64 division and square root are
// correctly rounded.
// Bindings (set 0): 0 vfree (written; 6n float64), 1 vel (3n), 2 omega (3n),
// 3 rot (4n: w, x, y, z), 4 force (3n, N), 5 torque (3n, N·m, world frame;
// force and torque 3 float64 of zeros for a model without loads, fstride 0),
// 6 invMass (n, 1/kg), 7 invInertia (3n, 1/(kg·m²)), 8 fixedBody (n uint32,
// nonzero: fixed); all read except vfree.
// Arguments: double gx, gy, gz (gravity, m/s²), double h (s), uint n,
// uint fstride (the stride of force and torque: 3, or 0) (40 bytes).
// Dispatch: (min(⌈n/64⌉, max group count), 1, 1) workgroups of 64; a
// grid-stride loop covers any n.
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) writeonly buffer VFree { double vfree[]; };
layout(std430, set = 0, binding = 1) readonly buffer Vel { double vel[]; };
layout(std430, set = 0, binding = 2) readonly buffer Omega { double omega[]; };
layout(std430, set = 0, binding = 3) readonly buffer Rot { double rot[]; };
layout(std430, set = 0, binding = 4) readonly buffer Force { double force[]; };
layout(std430, set = 0, binding = 5) readonly buffer Torque { double torque[]; };
layout(std430, set = 0, binding = 6) readonly buffer InvMass { double invMass[]; };
layout(std430, set = 0, binding = 7) readonly buffer InvInertia { double invInertia[]; };
layout(std430, set = 0, binding = 8) readonly buffer FixedBody { uint fixedBody[]; };

layout(std430, binding = 31) restrict readonly buffer Push {
	double gx;
	double gy;
	double gz;
	double h;
	uint n;
	uint fstride; // 3, or 0 for a model without loads: force and torque hold one body's zeros
} p;

#include "quat.glsl"
#include "gyro.glsl"

void main() {
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) {
		if (fixedBody[i] != 0u) {
			for (uint k = 0u; k < 6u; k++) {
				vfree[6u * i + k] = 0.0lf;
			}
			continue;
		}
		double im = invMass[i];
		double g[3] = double[3](p.gx, p.gy, p.gz);
		for (uint k = 0u; k < 3u; k++) {
			precise double v = vel[3u * i + k] + p.h * (g[k] + im * force[p.fstride * i + k]);
			vfree[6u * i + k] = v;
		}
		dvec3 ji = dvec3(invInertia[3u * i], invInertia[3u * i + 1u], invInertia[3u * i + 2u]);
		dvec3 w = gyroStep(dvec3(omega[3u * i], omega[3u * i + 1u], omega[3u * i + 2u]), ji, p.h);
		dvec3 qv = dvec3(rot[4u * i + 1u], rot[4u * i + 2u], rot[4u * i + 3u]);
		precise dvec3 conj = dvec3(qv.x * -1.0lf, qv.y * -1.0lf, qv.z * -1.0lf);
		uint ft = p.fstride * i;
		dvec3 tw = dvec3(torque[ft], torque[ft + 1u], torque[ft + 2u]);
		precise dvec3 tb = rotate(rot[4u * i], conj, tw);
		for (uint k = 0u; k < 3u; k++) {
			precise double o = w[k] + p.h * ji[k] * tb[k];
			vfree[6u * i + 3u + k] = o;
		}
	}
}
