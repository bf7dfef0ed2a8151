// axpby.glsl: axpby(a, x, b, y) = float64(a·x) + float64(b·y), axpby.comp's
// operation on one element: both products rounded before the sum, every
// operation `precise` (no fused multiply-add), so the value is LinAlg's
// Axpby bit for bit (cpuref's Go loop on amd64). For axpby and the kernels
// that fuse an Axpby of engine's solvers (apgd_step, apgd_residual,
// apgd_next, apgd_anti_relax, apgd_dot, jacobi_step, jacobi_scale,
// spg_vec). The includer defines nothing.
precise double axpby(double a, double x, double b, double y) {
	precise double ax = a * x;
	precise double by = b * y;
	precise double r = ax + by;
	return r;
}
