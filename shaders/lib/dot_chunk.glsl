// dot_chunk.glsl: the end of the first pass of the chunked dot products
// (apgd_dot, apgd_accept): each workgroup of WG = 256 sums a chunk of
// CHUNK = 2048 elements, thread t the elements lo+t, lo+t+256, …, and
// chunkPartials adds the threads' sums of up to four products in dot.comp's
// fixed tree and stores them:
//
//	sh[q][t] = acc_q                              // q < 4
//	for h := 128; h > 0; h /= 2 { for t := 0; t < h; t++ { sh[q][t] += sh[q][t+h] } }
//	partial[q·chunks + c] = sh[q][0]              // q < pairs
//
// every addition `precise`, so that with apgd_sum each sum equals
// LinAlg.Dot's bit for bit. Every invocation of the workgroup must call it
// (it contains barriers); it ends with a barrier, so shared memory may be
// reused after it. The includer declares, before the #include, the
// written buffer partial (double partial[]) and defines nothing else.
const uint CHUNK = 2048;
const uint WG = 256;

shared double sh[4][WG];

void chunkPartials(uint t, double a0, double a1, double a2, double a3, uint pairs, uint c, uint chunks) {
	sh[0][t] = a0;
	sh[1][t] = a1;
	sh[2][t] = a2;
	sh[3][t] = a3;
	barrier();
	for (uint h = WG / 2; h > 0; h >>= 1) {
		if (t < h) {
			for (uint q = 0u; q < 4u; q++) {
				precise double v = sh[q][t] + sh[q][t + h];
				sh[q][t] = v;
			}
		}
		barrier();
	}
	if (t == 0) {
		for (uint q = 0u; q < pairs; q++) {
			partial[q * chunks + c] = sh[q][0];
		}
	}
	barrier();
}
