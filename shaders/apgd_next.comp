#version 450
// apgd_next: the vector updates that end an iteration of the device APGD
// solver (gpu/apgd.go), lines 17–20, 24 and 16 of Algorithm 1 of the APGD
// paper, then the next iteration's first line-search trial γ' = Π(y − t g)
// (line 8, apgd_step's operations) with the step size that apgd_scalar's
// mode 3 will set; run only while the solver's phase is one of those in
// the gate mask.
//
// N y is not a product: it is the same combination of Nγ_{k+1} and Nγ_k
// (engine.APGD's doc says why), and g = N y + r of the next iteration is
// taken here too, with r as the iteration left it.
//
// Loop: if (gate & (1 << s.phase)) == 0 return; then for each row i of
// each item (a contact's three rows, or a joint row):
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
// then, unless s.flags&4 (the solve stops), with L' = max(0.9·s.L, s.Lmin)
// and t' = 1/L' (apgd_scalar's mode 3, operation for operation):
//
//	z = 1·y + (−t')·g;  xNew = Π(z)   // the contact's cone, or clampRow
//
// every operation `precise`: engine.APGD's Copy, Axpby and Project bit for
// bit. So an iteration whose first trial is accepted needs no apgd_step:
// the block records apgd_step for the trials after a halving only.
// Bindings (set 0): 0 best, 1 y (written), 2 x (read and written), 3 xNew
// (read and written), 4 ny (written), 5 nx (read and written), 6 nxNew
// (read), 7 g (written), 8 r (read); 3 float64 per contact, then 1 per
// joint row, each; 9 s (read; the solver's scalars), 10 mu, 11 coh (1 per
// contact), 12 jlo, 13 jhi (1 per joint row).
// Push constants: uint nc, uint nj, uint gate (12 bytes).
// Dispatch: (min(⌈(nc+nj)/64⌉, max group count), 1, 1) workgroups of 64; a
// grid-stride loop covers any nc.
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) writeonly buffer Best { double best[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Y { double y[]; };
layout(std430, set = 0, binding = 2) buffer X { double x[]; };
layout(std430, set = 0, binding = 3) buffer XNew { double xNew[]; };
layout(std430, set = 0, binding = 4) writeonly buffer NY { double ny[]; };
layout(std430, set = 0, binding = 5) buffer NX { double nx[]; };
layout(std430, set = 0, binding = 6) readonly buffer NXNew { double nxNew[]; };
layout(std430, set = 0, binding = 7) writeonly buffer G { double g[]; };
layout(std430, set = 0, binding = 8) readonly buffer R { double r[]; };
#define SCALARS_BINDING 9
#define SCALARS_ACCESS readonly
#include "apgd_scalars.glsl"
layout(std430, set = 0, binding = 10) readonly buffer Mu { double mu[]; };
layout(std430, set = 0, binding = 11) readonly buffer Coh { double coh[]; };

#define JOINT_BOUNDS_BINDING 12
#define JOINT_BOUNDS_ACCESS readonly
#include "joint_bounds.glsl"
layout(push_constant) uniform Push {
	uint nc;
	uint nj;
	uint gate;
} p;

#include "axpby.glsl"
#include "cone.glsl"

bool improved;
bool restart;
double a;
double b;

// update does the end of the iteration on row i and returns its y and g.
void update(uint i, out double yi, out double gi) {
	double xn = xNew[i];
	if (improved) {
		best[i] = xn;
	}
	double nxn = nxNew[i];
	double nyi;
	if (restart) {
		yi = xn;
		nyi = nxn;
	} else {
		yi = axpby(a, xn, b, x[i]);
		nyi = axpby(a, nxn, b, nx[i]);
	}
	y[i] = yi;
	ny[i] = nyi;
	precise double g1 = nyi + r[i];
	gi = g1;
	g[i] = g1;
	x[i] = xn;
	nx[i] = nxn;
}

void main() {
	if ((p.gate & (1u << s.phase)) == 0u) {
		return;
	}
	improved = (s.flags & 1u) != 0u;
	restart = (s.flags & 2u) != 0u;
	bool trial = (s.flags & 4u) == 0u;
	precise double a1 = 1.0lf + s.beta;
	a = a1;
	b = -s.beta;
	precise double L = s.L * 0.9lf;
	if (L < s.Lmin) {
		L = s.Lmin;
	}
	precise double t = 1.0lf / L;
	double nt = -t;
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint k = gl_GlobalInvocationID.x; k < p.nc + p.nj; k += stride) {
		if (k >= p.nc) {
			uint rj = k - p.nc;
			uint i = 3u * p.nc + rj;
			double yi, gi;
			update(i, yi, gi);
			if (trial) {
				xNew[i] = clampRow(axpby(1.0lf, yi, nt, gi), jlo[rj], jhi[rj]);
			}
			continue;
		}
		double z[3];
		for (uint d = 0u; d < 3u; d++) {
			double yi, gi;
			update(3u * k + d, yi, gi);
			z[d] = axpby(1.0lf, yi, nt, gi);
		}
		if (trial) {
			double on, ou, ow;
			proj(z[0], z[1], z[2], mu[k], coh[k], on, ou, ow);
			xNew[3u * k] = on;
			xNew[3u * k + 1u] = ou;
			xNew[3u * k + 2u] = ow;
		}
	}
}
