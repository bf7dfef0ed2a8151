#version 450
// apgd_next: the vector updates that end an iteration of the device APGD
// solver (gpu/apgd.go), lines 17–20, 24 and 16 of Algorithm 1 of the APGD
// paper, for every element i; run only while the solver's phase is one of
// those in the gate mask.
//
// N y is not a product: it is the same combination of Nγ_{k+1} and Nγ_k
// (engine.APGD's doc says why), and g = N y + r of the next iteration is
// taken here too, with r as the iteration left it.
//
// Loop: if (gate & (1 << s.phase)) == 0 return; then for i := 0; i < n; i++:
//
//	if s.flags&1 != 0 { best[i] = xNew[i] }                // a better residual
//	if s.flags&2 != 0 { y[i] = xNew[i]; ny[i] = nxNew[i] } // restart
//	else {                                                 // axpby.comp's products and sum
//		y[i] = (1 + β)·xNew[i] + (−β)·x[i]
//		ny[i] = (1 + β)·nxNew[i] + (−β)·nx[i]
//	}
//	g[i] = ny[i] + r[i]                                    // axpby's 1·ny + 1·r
//	x[i] = xNew[i]; nx[i] = nxNew[i]
//
// every operation `precise`: engine.APGD's Copy and Axpby bit for bit.
// Bindings (set 0): 0 best, 1 y (written), 2 x (read and written), 3 xNew
// (read), 4 ny (written), 5 nx (read and written), 6 nxNew (read), 7 g
// (written), 8 r (read); n float64 each; 9 s (read; the solver's scalars).
// Arguments: uint n, uint gate (8 bytes).
// Dispatch: (min(⌈n/256⌉, max group count), 1, 1) workgroups of 256; a
// grid-stride loop covers any n.
layout(local_size_x = 256) in;

#include "store.glsl"
layout(std430, set = 0, binding = 0) writeonly buffer Best { STORE best[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y { STORE y[]; };
layout(std430, set = 0, binding = 2) buffer X { STORE x[]; };
layout(std430, set = 0, binding = 3) readonly buffer XNew { STORE xNew[]; };
layout(std430, set = 0, binding = 4) writeonly buffer NY { STORE ny[]; };
layout(std430, set = 0, binding = 5) buffer NX { STORE nx[]; };
layout(std430, set = 0, binding = 6) readonly buffer NXNew { STORE nxNew[]; };
layout(std430, set = 0, binding = 7) writeonly buffer G { STORE g[]; };
layout(std430, set = 0, binding = 8) readonly buffer R { double r[]; };
#define SCALARS_BINDING 9
#define SCALARS_ACCESS readonly
#include "apgd_scalars.glsl"
layout(std430, binding = 31) restrict readonly buffer Push {
	uint n;
	uint gate;
} p;

#include "axpby.glsl"

void main() {
	if ((p.gate & (1u << s.phase)) == 0u) {
		return;
	}
	bool improved = (s.flags & 1u) != 0u;
	bool restart = (s.flags & 2u) != 0u;
	precise double a = 1.0lf + s.beta;
	double b = -s.beta;
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) {
		double xn = xNew[i];
		if (improved) {
			best[i] = STORE(xn);
		}
		double nxn = nxNew[i];
		double nyi;
		if (restart) {
			y[i] = STORE(xn);
			nyi = nxn;
		} else {
			y[i] = STORE(axpby(a, xn, b, x[i]));
			nyi = ROUND(axpby(a, nxn, b, nx[i]));
		}
		ny[i] = STORE(nyi);
		precise double gi = nyi + r[i];
		g[i] = STORE(gi);
		x[i] = STORE(xn);
		nx[i] = STORE(nxn);
	}
}
