// reduce.glsl: treeSum, the fixed-order sum over a workgroup that dot,
// sum and apgd_sum end with, so that their sums are the same bit for bit
// on every run:
//
//	red[t] = acc                         // thread t's partial sum
//	for h := WG/2; h > 0; h /= 2 {       // fixed tree
//		for t := 0; t < h; t++ { red[t] += red[t+h] }
//	}
//
// every addition `precise`, a barrier after each level; after it red[0]
// holds the sum. Every invocation of the workgroup must call it (it
// contains barriers), and a caller that reuses red afterwards must call
// barrier() first.
//
// The includer defines, before the #include, the workgroup size WG (a
// power of two, e.g. const uint WG = 256;); reduce.glsl declares the
// shared array red[WG].
shared double red[WG];

void treeSum(uint t, double acc) {
	red[t] = acc;
	barrier();
	for (uint h = WG / 2; h > 0; h >>= 1) {
		if (t < h) {
			precise double v = red[t] + red[t + h];
			red[t] = v;
		}
		barrier();
	}
}
