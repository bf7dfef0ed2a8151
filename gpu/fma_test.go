//go:build linux && cgo && (arm64 || (amd64 && amd64.v3))

package gpu

// goFusesMultiplyAdd: on this target the Go compiler may contract x*y + z
// into a fused multiply-add (arm64 always, amd64 from GOAMD64=v3), so
// cpuref's results can differ in the last bits from the kernels', which
// never fuse (`precise`).
const goFusesMultiplyAdd = true
