// joint_row.glsl: jointVelocity, a joint row's D_rᵀ applied to the
// 6-per-body velocities v (cpuref's jointVelocity), for joint_rows,
// joint_ops, gs_sweep and apgd_contact_velocity. Row r acts on bodies jrowA[r] and jrowB[r]
// (JOINT_WORLD: the world, whose velocity is zero) with
//
//	D_rᵀ v = lin_r·(v_B − v_A) + rotA_r·ω_A + rotB_r·ω_B
//
// (v and ω world frame, as the solve takes them: cpuref's frame.go)
// computed as cpuref does, every operation `precise`:
//
//	u := 0
//	if A is a body { u += −(lin·v_A) + rotA_0 ω_A,0 + rotA_1 ω_A,1 + rotA_2 ω_A,2 }
//	if B is a body { u += lin·v_B + rotB_0 ω_B,0 + rotB_1 ω_B,1 + rotB_2 ω_B,2 }
//
// each sum left to right. Static bodies take part with their velocity
// (zero, or a kinematic body's prescribed one), as in cpuref.
//
// The includer defines JOINT_ROW_BINDING, the first of the five bindings
// of set 0 this declares: jlin, jrotA, jrotB (3 float64 per row), jrowA,
// jrowB (uint32 per row); JOINT_ROW_ACCESS (readonly, or empty for a
// kernel that writes the rows); and JOINT_V(j), the j-th double of v.
const uint JOINT_WORLD = 0xFFFFFFFFu;

layout(std430, set = 0, binding = JOINT_ROW_BINDING) JOINT_ROW_ACCESS buffer JLin { double jlin[]; };
layout(std430, set = 0, binding = JOINT_ROW_BINDING + 1) JOINT_ROW_ACCESS buffer JRotA { double jrotA[]; };
layout(std430, set = 0, binding = JOINT_ROW_BINDING + 2) JOINT_ROW_ACCESS buffer JRotB { double jrotB[]; };
layout(std430, set = 0, binding = JOINT_ROW_BINDING + 3) readonly buffer JRowA { uint jrowA[]; };
layout(std430, set = 0, binding = JOINT_ROW_BINDING + 4) readonly buffer JRowB { uint jrowB[]; };

// jointVelocity returns D_rᵀ v for joint row r.
precise double jointVelocity(uint r) {
	uint b = 3u * r;
	precise double u = 0.0lf;
	uint ia = jrowA[r];
	if (ia != JOINT_WORLD) {
		uint o = 6u * ia;
		precise double t = -(jlin[b] * JOINT_V(o) + jlin[b + 1u] * JOINT_V(o + 1u) + jlin[b + 2u] * JOINT_V(o + 2u)) +
			jrotA[b] * JOINT_V(o + 3u) + jrotA[b + 1u] * JOINT_V(o + 4u) + jrotA[b + 2u] * JOINT_V(o + 5u);
		u = u + t;
	}
	uint ib = jrowB[r];
	if (ib != JOINT_WORLD) {
		uint o = 6u * ib;
		precise double t = jlin[b] * JOINT_V(o) + jlin[b + 1u] * JOINT_V(o + 1u) + jlin[b + 2u] * JOINT_V(o + 2u) +
			jrotB[b] * JOINT_V(o + 3u) + jrotB[b + 1u] * JOINT_V(o + 4u) + jrotB[b + 2u] * JOINT_V(o + 5u);
		u = u + t;
	}
	return u;
}
