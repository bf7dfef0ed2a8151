//go:build linux && cgo

package testfile

/*
#include <malloc.h>
static long long inuse(void) {
	struct mallinfo2 m = mallinfo2();
	return (long long)(m.uordblks + m.hblkhd);
}
*/
import "C"

import "testing"

// MallocInUse returns the bytes the C allocator has handed out and not
// had back (glibc's mallinfo2: chunks in use in the arenas plus the
// chunks it mapped on their own). Unlike the resident memory, it does
// not move with what free keeps cached or gives back to the system, so a
// leak of C memory shows in it without that noise. It skips the test
// where the C library is not glibc.
func MallocInUse(t testing.TB) int64 {
	t.Helper()
	return int64(C.inuse())
}
