package cpuref

// The CPU path's hot loops have AVX-512 versions (simd_amd64.go) in a
// build with Go's experimental simd/archsimd package (GOEXPERIMENT=simd,
// as the Makefile builds) on a processor with AVX-512: APGD's trial and
// its residual vector with their cone projections (cones8, eight contacts
// per vector), the six dot products (dot6Lanes, laneTree8) and the
// bodies' gather of M⁻¹Dγ (bodyImpulses4). The package is not under the
// Go 1 promise, so the loops build with Go 1.26 only, whose API they are
// written for; later releases build the scalar loops until they are
// ported. Each computes every lane with the operations of the scalar loop
// it stands for, in the same order, without fused multiply-adds, so the
// values are the same bits (TestProjectConesSIMD, TestStepSIMDBits): the
// scalar loops stay the reference, the device's oracle, and the path of
// every other build.
//
// Vector values stay inside one function: passed to a call that is not
// inlined they go through memory (a projection called per group of eight
// contacts ran 9× slower), and a loop that mixes them with Go's scalar
// (legacy SSE) floating-point instructions ran 3× slower.

// useSIMD selects the AVX-512 loops; tests turn it off to compare.
var useSIMD = haveSIMD

// SIMD names the CPU path's vector loops in use ("avx512"), or "none".
func SIMD() string {
	if useSIMD {
		return "avx512"
	}
	return "none"
}
