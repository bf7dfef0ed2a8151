// Package inputfile opens the files gpusim reads as input (scene files,
// problem folders' files, sweep specs) so that a wrong path fails at once
// with a clear error instead of hanging or exhausting memory: only regular
// files are read (a FIFO would block forever, /dev/zero never ends, a
// directory or socket cannot be read as text), and no more than a size cap.
package inputfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Flag is the command-line flag that raises the caps, named in errors.
const Flag = "--max-input-size"

// DefaultScene is the default cap on a scene file or a sweep spec: 256
// MiB. A scene file is JSON decoded into generic values, which take about
// ten times the text's size (maps and interfaces per body), so 256 MiB of
// text is already 2–3 GB of memory while it is parsed; it holds about a
// million bodies written out one by one, and larger scenes use generators,
// which take a few lines whatever their count.
const DefaultScene int64 = 256 << 20

// DefaultProblem is the default cap on each file of a problem folder
// (W.mtx, q.txt, mu.txt, cohesion.txt): 2 GiB. A W.mtx line (row, column,
// value: 30–50 bytes) becomes a 24-byte entry, so memory is about the
// file's size; a problem dumped from settle at N = 8000 (25 000 contacts)
// has a W.mtx of about 120 MB, so 2 GiB allows some 400 000 contacts.
const DefaultProblem int64 = 2 << 30

// Open opens path for reading if it is a regular file (symbolic links are
// followed) of at most max bytes (max ≤ 0: no cap). It opens with
// O_NONBLOCK where the system has it and checks the kind of what it opened
// (f.Stat), so a FIFO can neither block the open nor be swapped in
// between a check and the open. The reader it returns fails with an error
// naming the file, the cap and Flag if the file grows past max while it is
// read. Errors name the file and are meant to follow a package prefix.
func Open(path string, max int64) (io.ReadCloser, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|nonblock, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if err := check(path, st, max); err != nil {
		f.Close()
		return nil, err
	}
	if err := blocking(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &capped{f: f, path: path, max: max}, nil
}

// ReadFile reads the whole file at path with the checks of Open.
func ReadFile(path string, max int64) ([]byte, error) {
	r, err := Open(path, max)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// Check reports what Open would refuse about the file at path (it follows
// symbolic links), without opening it.
func Check(path string, max int64) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	return check(path, st, max)
}

// ErrTooLarge is matched (errors.Is) by the errors of files larger than
// their cap.
var ErrTooLarge = errors.New("file too large")

// ErrNotRegular is matched (errors.Is) by the errors of paths that are not
// regular files.
var ErrNotRegular = errors.New("not a regular file")

// fileError is a refused input file; its message stands alone and
// errors.Is matches its sentinel.
type fileError struct {
	msg      string
	sentinel error
}

func (e *fileError) Error() string        { return e.msg }
func (e *fileError) Is(target error) bool { return target == e.sentinel }

func check(path string, st fs.FileInfo, max int64) error {
	if !st.Mode().IsRegular() {
		return &fileError{fmt.Sprintf("%s is %s, not a regular file", path, Kind(st.Mode())), ErrNotRegular}
	}
	if max > 0 && st.Size() > max {
		return tooLarge(path, st.Size(), max)
	}
	return nil
}

func tooLarge(path string, size, max int64) error {
	what := "is " + Size(size)
	if size < 0 {
		what = "grew"
	}
	return &fileError{fmt.Sprintf("%s %s, more than the cap of %s on input files (%s raises it)", path, what, Size(max), Flag), ErrTooLarge}
}

// Kind names the kind of file a mode describes: "a directory", "a FIFO
// (named pipe)", "a character device", …
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsRegular():
		return "a regular file"
	}
	return "not a regular file (mode " + m.String() + ")"
}

// Size writes a byte count for messages: "300 MiB (314572800 bytes)".
func Size(n int64) string {
	units := []string{"KiB", "MiB", "GiB", "TiB"}
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	v, u := float64(n)/1024, units[0]
	for _, next := range units[1:] {
		if v < 1024 {
			break
		}
		v, u = v/1024, next
	}
	return fmt.Sprintf("%.4g %s (%d bytes)", v, u, n)
}

// capped reads a file and fails past max bytes (a file that grows while it
// is read, or one whose stat size is wrong).
type capped struct {
	f    *os.File
	path string
	max  int64
	n    int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.max > 0 && int64(len(p)) > c.max-c.n+1 {
		p = p[:c.max-c.n+1]
	}
	k, err := c.f.Read(p)
	c.n += int64(k)
	if c.max > 0 && c.n > c.max {
		return k, tooLarge(c.path, -1, c.max)
	}
	return k, err
}

func (c *capped) Close() error { return c.f.Close() }
