#version 450
// joint_ops: the per-row operations of the joint rows γ[jbase:jbase+nj]
// that the problem's methods need beside the contacts' kernels, one
// invocation per row r, by mode:
//
//	0 velocity: dst[dstOff+r] = D_rᵀ dv   (lib/joint_row.glsl's
//	            jointVelocity; Schur's second half: cpuref's jointVelocities)
//	1 project:  dst[dstOff+r] = clampRow(src[srcOff+r], lo_r, hi_r)
//	            (cpuref's projectJoints)
//	2 diag:     dst[dstOff+r] = N_rr = Σ over the row's movable bodies of
//	            im·|lin|² + Σ_k ρ_k·ρ_k·J⁻¹_k   (cpuref's jointDiag;
//	            |lin|² = lin_0² + lin_1² + lin_2², then added left to right;
//	            ρ = Rᵀrot, or rot for an isotropic body: lib/contact_row.glsl's
//	            inBodyFrameOf)
//	3 copy:     dst[dstOff+r] = src[srcOff+r]  (r's joint rows for
//	            AntiRelax; the warm-start impulses in and out)
//
// Every operation `precise`: bit for bit cpuref's.
// Bindings (set 0): 0 dst (written), 1 src (read; modes 1 and 3), 2 dv
// (read; 6 per body; mode 0), 3 jlo, 4 jhi (1 per row), 5 invMass (1 per
// body), 6 invInertia (3 per body), 7 fixedBody (uint32 per body), 8–12
// jlin, jrotA, jrotB, jrowA, jrowB (read) as lib/joint_row.glsl, 13 rot
// (4 per body; mode 2).
// Arguments: uint mode, uint nj (rows), uint dstOff, uint srcOff (16
// bytes).
// Dispatch: (min(⌈nj/64⌉, max group count), 1, 1) workgroups of 64; a
// grid-stride loop covers any nj.
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) writeonly buffer Dst { double dst[]; };
layout(std430, set = 0, binding = 1) readonly buffer Src { double src[]; };
layout(std430, set = 0, binding = 2) readonly buffer DV { double dv[]; };
#define JOINT_BOUNDS_BINDING 3
#define JOINT_BOUNDS_ACCESS readonly
#include "joint_bounds.glsl"
layout(std430, set = 0, binding = 5) readonly buffer InvMass { double invMass[]; };
layout(std430, set = 0, binding = 6) readonly buffer InvInertia { double invInertia[]; };
layout(std430, set = 0, binding = 7) readonly buffer FixedBody { uint fixedBody[]; };

#define JOINT_ROW_BINDING 8
#define JOINT_ROW_ACCESS readonly
#define JOINT_V(j) dv[j]
#include "joint_row.glsl"
layout(std430, set = 0, binding = 13) readonly buffer Rot { double rot[]; };

#include "contact_row.glsl"

layout(std430, binding = 31) restrict readonly buffer Push {
	uint mode;
	uint nj;
	uint dstOff;
	uint srcOff;
} p;

// diag returns N_rr of joint row r.
double diag(uint r) {
	uint b = 3u * r;
	precise double ll = jlin[b] * jlin[b] + jlin[b + 1u] * jlin[b + 1u] + jlin[b + 2u] * jlin[b + 2u];
	precise double d = 0.0lf;
	for (uint side = 0u; side < 2u; side++) {
		uint i = side == 0u ? jrowA[r] : jrowB[r];
		if (i == JOINT_WORLD || fixedBody[i] != 0u) {
			continue;
		}
		d = d + invMass[i] * ll;
		dvec3 ji = dvec3(invInertia[3u * i], invInertia[3u * i + 1u], invInertia[3u * i + 2u]);
		dvec3 rv = side == 0u ? dvec3(jrotA[b], jrotA[b + 1u], jrotA[b + 2u]) : dvec3(jrotB[b], jrotB[b + 1u], jrotB[b + 2u]);
		precise dvec3 rb = inBodyFrameOf(ji, rot[4u * i], dvec3(rot[4u * i + 1u], rot[4u * i + 2u], rot[4u * i + 3u]), rv);
		for (uint k = 0u; k < 3u; k++) {
			d = d + rb[k] * rb[k] * ji[k];
		}
	}
	return d;
}

void main() {
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint r = gl_GlobalInvocationID.x; r < p.nj; r += stride) {
		double v;
		if (p.mode == 0u) {
			v = jointVelocity(r);
		} else if (p.mode == 1u) {
			v = clampRow(src[p.srcOff + r], jlo[r], jhi[r]);
		} else if (p.mode == 2u) {
			v = diag(r);
		} else {
			v = src[p.srcOff + r];
		}
		dst[p.dstOff + r] = v;
	}
}
