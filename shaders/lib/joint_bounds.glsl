// joint_bounds.glsl: clampRow, the projection of a joint row onto its
// interval [lo_r, hi_r] (cpuref's projectJoints: ±Inf for a bilateral
// row's sides, ±maxForce·h for a limited motor's), and the bounds' buffers
// jlo and jhi (1 float64 per joint row), for joint_rows (which writes
// them), joint_ops, gs_sweep and the device solvers' kernels. The includer
// defines JOINT_BOUNDS_BINDING (jlo's binding; jhi's is the next) and
// JOINT_BOUNDS_ACCESS (readonly or writeonly).
layout(std430, set = 0, binding = JOINT_BOUNDS_BINDING) JOINT_BOUNDS_ACCESS buffer JLo { double jlo[]; };
layout(std430, set = 0, binding = JOINT_BOUNDS_BINDING + 1) JOINT_BOUNDS_ACCESS buffer JHi { double jhi[]; };

// clampRow returns x clamped to [lo, hi]: Go's math.Max(lo, math.Min(hi,
// x)) for the bounds a row has (lo ≤ hi, never NaN, ±Inf for a free
// side; a NaN x stays NaN).
double clampRow(double x, double lo, double hi) {
	if (x < lo) {
		return lo;
	}
	if (x > hi) {
		return hi;
	}
	return x;
}
