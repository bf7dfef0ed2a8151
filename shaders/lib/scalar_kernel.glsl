// scalar_kernel.glsl: the frame of a device solver's scalar kernel
// (apgd_scalar, spg_scalar): one invocation; binding 1 the history it
// writes (its float64 per iteration: the kernel's header says which); and
// the arguments (binding 31, shaders/doc.go) double tol, double gd, uint mode, uint gate, uint n,
// uint maxIter, uint histCap (36 bytes). The includer binds its scalar
// block at 0 (apgd_scalars.glsl or spg_scalars.glsl) before this.
layout(local_size_x = 1) in;

layout(std430, set = 0, binding = 1) writeonly buffer Hist { double hist[]; };

layout(std430, binding = 31) restrict readonly buffer Push {
	double tol;
	double gd;
	uint mode;
	uint gate;
	uint n;
	uint maxIter;
	uint histCap;
} p;
