package fclib

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadNotRegular: each file of a problem folder that is a FIFO is
// refused at once with its kind named (os.Open blocked on it forever
// before), and so is a device in place of a file.
func TestReadNotRegular(t *testing.T) {
	for _, name := range []string{"W.mtx", "q.txt", "mu.txt", "cohesion.txt"} {
		files := okFiles()
		delete(files, name)
		dir := writeFiles(t, files)
		path := filepath.Join(dir, name)
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		done := make(chan error, 1)
		go func() { _, err := Read(dir); done <- err }()
		select {
		case err := <-done:
			if want := "fclib: " + path + " is a FIFO (named pipe), not a regular file"; err == nil || err.Error() != want {
				t.Errorf("%s as a FIFO: %v, want %q", name, err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s as a FIFO: Read still blocked after 10 s", name)
		}
	}
	dir := writeFiles(t, okFiles())
	if err := os.Remove(filepath.Join(dir, "q.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "q.txt")); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(dir); err == nil || !strings.HasSuffix(err.Error(), "q.txt is a character device, not a regular file") {
		t.Errorf("q.txt → /dev/zero: %v", err)
	}
}

// TestReadWithCap: a file above the cap is refused with the sizes and the
// flag that raises the cap; the same folder reads under a larger cap.
func TestReadWithCap(t *testing.T) {
	dir := writeFiles(t, okFiles())
	_, err := ReadWith(dir, 64)
	if err == nil || !strings.Contains(err.Error(), "W.mtx is 106 bytes, more than the cap of 64 bytes on input files (--max-input-size raises it)") {
		t.Errorf("ReadWith(64): %v", err)
	}
	if _, err := ReadWith(dir, 1024); err != nil {
		t.Errorf("ReadWith(1024): %v", err)
	}
}
