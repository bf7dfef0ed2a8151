//go:build !(linux && cgo)

package testfile

import "testing"

// MallocInUse skips the test: without cgo on Linux it has no allocator
// statistics to read.
func MallocInUse(t testing.TB) int64 {
	t.Helper()
	t.Skip("no C allocator statistics without cgo on Linux")
	return 0
}
