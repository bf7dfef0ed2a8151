// cone.glsl: proj, the projection Π_Υ onto a contact's friction cone
// {‖(γ_u, γ_w)‖ ≤ μ(γ_n + c)} shifted by the cohesion impulse c
// (cpuref.ProjectCone, APGD paper section 2.4), for project.comp and the
// kernels that fuse it (apgd_step, apgd_residual, jacobi_step, spg_vec,
// sweep).
//
// proj(xn, xu, xw, m, c, on, ou, ow) sets (on, ou, ow) = Π(xn, xu, xw) for
// friction μ = m and cohesion impulse c:
//
//	n := xn + c; t := sqrt(xu*xu + xw*xw)
//	switch {
//	case μ == 0:        (max(n, +0) − c, 0, 0)   // Go's math.Max: NaN stays NaN
//	case t <= μ*n:      (xn, xu, xw)              // inside
//	case μ*t <= −n:     (−c, 0, 0)                // polar cone
//	default:            n' := (μ*t + n)/(μ*μ + 1); s := μ*n'/t
//	                    (n' − c, xu*s, xw*s)
//	}
//
// cpuref.ProjectCone's branches and operations, every one `precise`: bit
// for bit equal where float64 division and square root are correctly
// rounded. The includer defines nothing.
void proj(double xn, double xu, double xw, double m, double c, out double on, out double ou, out double ow) {
	precise double n = xn + c;
	precise double t = sqrt(xu * xu + xw * xw);
	precise double mn = m * n;
	precise double mt = m * t;
	if (m == 0.0lf) {
		double mx = n;
		if (!(n > 0.0lf) && !isnan(n)) {
			mx = 0.0lf;
		}
		precise double o = mx - c;
		on = o;
		ou = 0.0lf;
		ow = 0.0lf;
	} else if (t <= mn) {
		on = xn;
		ou = xu;
		ow = xw;
	} else if (mt <= -n) {
		on = -c;
		ou = 0.0lf;
		ow = 0.0lf;
	} else {
		precise double np = (mt + n) / (m * m + 1.0lf);
		precise double sc = m * np / t;
		precise double o0 = np - c;
		precise double o1 = xu * sc;
		precise double o2 = xw * sc;
		on = o0;
		ou = o1;
		ow = o2;
	}
}
