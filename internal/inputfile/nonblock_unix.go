//go:build unix

package inputfile

import (
	"os"
	"syscall"
)

// nonblock makes opening a FIFO return at once instead of waiting for a
// writer.
const nonblock = syscall.O_NONBLOCK

// blocking clears O_NONBLOCK on a regular file (where it has no effect on
// Linux, but other systems may differ).
func blocking(f *os.File) error {
	return syscall.SetNonblock(int(f.Fd()), false)
}
