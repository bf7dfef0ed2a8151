#version 450
// apgd_body_impulse: body_impulse.comp (dv = M⁻¹ D x, the first half of the
// Schur product N x), run only while the device APGD solver's phase is one
// of those in the gate mask: the kernel of gpu's device APGD (gpu/apgd.go).
//
// Loop: if (gate & (1 << s.phase)) == 0 return; then body_impulse.comp's
// loop (lib/body_impulse.glsl's bodyImpulse, bit for bit cpuref's
// bodyImpulse, joint rows included: x's first joint row is x[jbase]).
// Bindings (set 0): 0–13 as body_impulse.comp, 14 s (read; the solver's
// scalars, layout in gpu/apgd.go).
// Arguments: uint n, uint jbase (3nc), uint gate (12 bytes).
// Dispatch: (min(⌈n/64⌉, max group count), 1, 1) workgroups of 64.
layout(local_size_x = 64) in;

#include "store.glsl"
#define BODY_IMPULSE_X STORE
#include "body_impulse.glsl"

#define SCALARS_BINDING 14
#define SCALARS_ACCESS readonly
#include "apgd_scalars.glsl"

layout(std430, binding = 31) restrict readonly buffer Push {
	uint n;
	uint jbase;
	uint gate;
} p;

void main() {
	if ((p.gate & (1u << s.phase)) == 0u) {
		return;
	}
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) {
		bodyImpulse(i, p.jbase);
	}
}
