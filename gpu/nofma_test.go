//go:build linux && cgo && amd64 && !amd64.v3

package gpu

// goFusesMultiplyAdd: below GOAMD64=v3 the Go compiler never contracts
// x*y + z into a fused multiply-add, so cpuref rounds every operation as
// the kernels do.
const goFusesMultiplyAdd = false
