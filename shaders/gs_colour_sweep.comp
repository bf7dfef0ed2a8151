#version 450
// gs_colour_sweep: one colour's contacts of a projected Gauss–Seidel sweep
// (cpuref's Sweep, colour by colour), in parallel: contacts of one colour
// share no movable body (gs_colour), so each invocation's update reads and
// writes state no other invocation of the dispatch touches, and the result
// is the sequential sweep's over the colour in any order. Before the first
// colour, body_impulse sets dv = M⁻¹Dγ; after the last, gs_sweep runs the
// tail, the joint rows and the rolling blocks; a barrier separates the
// dispatches. It runs only while the phase of the device solvers' scalar
// buffer is one of those in the gate mask (the device Gauss–Seidel solver,
// gpu/gs.go; problem.Sweep passes a mask of every phase).
//
// Loop (grid-stride over the colour's contacts):
//
//	if (gate & (1 << s.phase)) == 0 return
//	for i := start[colour]; i < start[colour+1]; i++ {
//		sweepContact(perm[i], ω, λ)            // lib/gs_contact.glsl
//	}
//
// Bindings (set 0): 0–12 as lib/gs_contact.glsl (gamma, dv, diag, r, a,
// b, jac, mu, coh, invMass, invInertia, fixedBody, invInertiaW),
// 13 perm (uint32 per contact: the contacts by colour), 14 start (uint32,
// 34: the colours' ranges of perm), read, as gs_colour writes them, 15 s
// (read; the solver's scalars, layout in gpu/apgd.go).
// Arguments: double omega, double lambda, uint colour, uint gate (24
// bytes).
// Dispatch: (⌈m/64⌉, 1, 1) workgroups of 64 for the colour's m contacts
// (any number: a grid-stride loop).
layout(local_size_x = 64) in;

#include "gs_contact.glsl"
layout(std430, set = 0, binding = 13) readonly buffer Perm { uint perm[]; };
layout(std430, set = 0, binding = 14) readonly buffer Start { uint start[]; };
#define SCALARS_BINDING 15
#define SCALARS_ACCESS readonly
#include "apgd_scalars.glsl"

layout(std430, binding = 31) restrict readonly buffer Push {
	double omega;
	double lambda;
	uint colour;
	uint gate;
} p;

void main() {
	if ((p.gate & (1u << s.phase)) == 0u) {
		return;
	}
	uint hi = start[p.colour + 1u];
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint i = start[p.colour] + gl_GlobalInvocationID.x; i < hi; i += stride) {
		sweepContact(perm[i], p.omega, p.lambda);
	}
}
