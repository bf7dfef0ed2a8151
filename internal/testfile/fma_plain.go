//go:build amd64 && !amd64.v3

package testfile

// GoFusesMultiplyAdd is whether the Go compiler may contract x*y + z into a
// fused multiply-add on this target. Below GOAMD64=v3 it never does, so the
// CPU path rounds every operation as the Vulkan kernels do (`precise`), and
// bit-for-bit comparisons between the two hold.
const GoFusesMultiplyAdd = false
