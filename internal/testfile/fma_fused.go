//go:build !amd64 || amd64.v3

package testfile

// GoFusesMultiplyAdd is whether the Go compiler may contract x*y + z into a
// fused multiply-add on this target: arm64 and the other architectures
// with a fused instruction always may, amd64 from GOAMD64=v3. The CPU
// path's results can then differ in the last bits from the Vulkan
// kernels', which never fuse (`precise`).
const GoFusesMultiplyAdd = true
