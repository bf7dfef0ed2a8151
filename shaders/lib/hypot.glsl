// hypot.glsl: hypot, Go's math.Hypot as hypot_amd64.s computes it, for
// anti_relax and apgd_anti_relax: +Inf if either argument is infinite, NaN
// if either is NaN, 0 if both are 0, else p·sqrt(1 + (q/p)²) with
// p = max(|a|, |b|), q = min(|a|, |b|); every operation `precise`. The
// includer defines nothing.
precise double hypot(double a, double b) {
	double pa = abs(a);
	double pb = abs(b);
	if (isinf(pa) || isinf(pb)) {
		return 1.0lf / 0.0lf;
	}
	if (isnan(pa) || isnan(pb)) {
		return pa + pb;
	}
	if (pa == 0.0lf && pb == 0.0lf) {
		return 0.0lf;
	}
	double big = max(pa, pb);
	double small = min(pa, pb);
	precise double q = small / big;
	precise double sq = sqrt(q * q + 1.0lf);
	precise double h = sq * big;
	return h;
}
