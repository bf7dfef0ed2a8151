package cpuref

// The CPU path's hot loops have AVX-512 versions (simd_amd64.go) in a
// build with Go's experimental simd/archsimd package (GOEXPERIMENT=simd,
// as the Makefile builds) on a processor with AVX-512. The package is not
// under the Go 1 promise, so the loops build with Go 1.26 only, whose API
// they are written for; later releases build the scalar loops until they
// are ported. Each
// computes every lane with the operations of the scalar loop it stands
// for, in the same order, without fused multiply-adds, so the values are
// the same bits (TestSIMDBits): the scalar loops stay the reference, the
// device's oracle, and the path of every other build.

// useSIMD selects the AVX-512 loops; tests turn it off to compare.
var useSIMD = haveSIMD

// SIMD names the CPU path's vector loops in use ("avx512"), or "none".
func SIMD() string {
	if useSIMD {
		return "avx512"
	}
	return "none"
}
