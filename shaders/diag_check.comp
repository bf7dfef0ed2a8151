#version 450
// diag_check: engine's blockDiag check of the block diagonal on the device
// (gpu's engine.DeviceBlockDiag), so that a Gauss–Seidel or Jacobi solve
// reads back 4 bytes instead of the whole diagonal:
//
//	mode 0 (one invocation):  first[0] = 0xFFFFFFFF
//	mode 1, for every row i:  v := diag[i]
//	                          if !(v > 0) || isinf(v) { first[0] = min(first[0], i) }  // atomicMin
//	                          if withInv != 0 { inv[i] = 1/v }
//
// so that first[0] is the lowest row whose value is not positive and
// finite (NaN included), the row engine's host loop would name, and inv
// is Go's 1/v where float64 division is correctly rounded (lavapipe; the
// NVIDIA H100's and H200's matched it in the parity tests).
// Bindings (set 0): 0 first (uint32; written), 1 diag (read; n float64),
// 2 inv (written when withInv; n float64; may be diag's buffer when not).
// Arguments: uint n, uint mode, uint withInv (12 bytes).
// Dispatch: mode 0 (1, 1, 1); mode 1 (min(⌈n/256⌉, max group count), 1, 1)
// workgroups of 256; a grid-stride loop covers any n.
layout(local_size_x = 256) in;

layout(std430, set = 0, binding = 0) buffer First { uint first[]; };
layout(std430, set = 0, binding = 1) readonly buffer Diag { double diag[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Inv { double inv[]; };
layout(std430, binding = 31) restrict readonly buffer Push {
	uint n;
	uint mode;
	uint withInv;
} p;

void main() {
	if (p.mode == 0u) {
		if (gl_GlobalInvocationID.x == 0u) {
			first[0] = 0xFFFFFFFFu;
		}
		return;
	}
	uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
	for (uint i = gl_GlobalInvocationID.x; i < p.n; i += stride) {
		double v = diag[i];
		if (!(v > 0.0lf) || isinf(v)) {
			atomicMin(first[0], i);
		}
		if (p.withInv != 0u) {
			precise double q = 1.0lf / v;
			inv[i] = q;
		}
	}
}
