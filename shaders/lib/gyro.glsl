// gyro.glsl: gyroStep, engine.GyroStep for free_velocity: the body-frame
// angular velocity of a torque-free body after a step of h seconds of
// Euler's equations by the implicit midpoint rule
// J(ω̄' − ω̄) + h m × Jm = 0, m = (ω̄ + ω̄')/2, J = diag(1/ji), solved by at
// most 16 Newton iterations from ω̄ (3×3 solve by cofactors over the
// determinant), stopping when one leaves ω̄' unchanged, then scaled by
// √(E/E') if its energy E' = Σ J_k ω̄'_k² exceeds E = Σ J_k ω̄_k²;
// isotropic bodies (ji's components equal) keep ω̄. The same operations
// as Go's in the same order, every one `precise`. The includer defines
// nothing.
dvec3 gyroStep(dvec3 w, dvec3 ji, double h) {
	if (ji.x == ji.y && ji.y == ji.z) {
		return w;
	}
	precise double j0 = 1.0lf / ji.x;
	precise double j1 = 1.0lf / ji.y;
	precise double j2 = 1.0lf / ji.z;
	precise double d0 = j2 - j1;
	precise double d1 = j0 - j2;
	precise double d2 = j1 - j0;
	precise double hh = 0.5lf * h;
	dvec3 v = w;
	for (int it = 0; it < 16; it++) {
		precise double m0 = 0.5lf * (w.x + v.x);
		precise double m1 = 0.5lf * (w.y + v.y);
		precise double m2 = 0.5lf * (w.z + v.z);
		precise double hx = hh * m0;
		precise double hy = hh * m1;
		precise double hz = hh * m2;
		precise double a01 = hz * d0;
		precise double a02 = hy * d0;
		precise double a10 = hz * d1;
		precise double a12 = hx * d1;
		precise double a20 = hy * d2;
		precise double a21 = hx * d2;
		precise double f0 = j0 * (v.x - w.x) + 2.0lf * (a02 * m2);
		precise double f1 = j1 * (v.y - w.y) + 2.0lf * (a10 * m0);
		precise double f2 = j2 * (v.z - w.z) + 2.0lf * (a21 * m1);
		precise double c00 = j1 * j2 - a12 * a21;
		precise double c01 = a12 * a20 - a10 * j2;
		precise double c02 = a10 * a21 - j1 * a20;
		precise double c10 = a02 * a21 - a01 * j2;
		precise double c11 = j0 * j2 - a02 * a20;
		precise double c12 = a01 * a20 - j0 * a21;
		precise double c20 = a01 * a12 - a02 * j1;
		precise double c21 = a02 * a10 - j0 * a12;
		precise double c22 = j0 * j1 - a01 * a10;
		precise double det = j0 * c00 + a01 * c01 + a02 * c02;
		precise double n0 = v.x - (c00 * f0 + c10 * f1 + c20 * f2) / det;
		precise double n1 = v.y - (c01 * f0 + c11 * f1 + c21 * f2) / det;
		precise double n2 = v.z - (c02 * f0 + c12 * f1 + c22 * f2) / det;
		if (n0 == v.x && n1 == v.y && n2 == v.z) {
			break;
		}
		v = dvec3(n0, n1, n2);
	}
	precise double e = j0 * (w.x * w.x) + j1 * (w.y * w.y) + j2 * (w.z * w.z);
	precise double ev = j0 * (v.x * v.x) + j1 * (v.y * v.y) + j2 * (v.z * v.z);
	if (!(ev <= e)) {
		precise double s = sqrt(e / ev);
		precise dvec3 sv = dvec3(v.x * s, v.y * s, v.z * s);
		v = sv;
	}
	return v;
}
