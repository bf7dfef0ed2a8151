package inputfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadFileRegular(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.json")
	if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{p, link} {
		data, err := ReadFile(path, 2)
		if err != nil || string(data) != "{}" {
			t.Errorf("ReadFile(%s) = %q, %v", path, data, err)
		}
	}
}

// TestReadFileNotRegular: a FIFO, a character device and a directory are
// refused at once with their kind named; the FIFO must not block (the
// test would time out before the change, where os.ReadFile waited for a
// writer).
func TestReadFileNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, c := range []struct{ path, kind string }{
		{fifo, "a FIFO (named pipe)"}, {"/dev/zero", "a character device"}, {dir, "a directory"},
	} {
		done := make(chan error, 1)
		go func() { _, err := ReadFile(c.path, DefaultScene); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), c.path+" is "+c.kind+", not a regular file") {
				t.Errorf("ReadFile(%s) = %v, want %q", c.path, err, c.kind)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("ReadFile(%s) still blocked after 10 s", c.path)
		}
		if err := Check(c.path, 0); !errors.Is(err, ErrNotRegular) {
			t.Errorf("Check(%s) = %v, want ErrNotRegular", c.path, err)
		}
	}
}

func TestReadFileCap(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.json")
	if err := os.WriteFile(p, make([]byte, 3000), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(p, 2048)
	want := p + " is 2.93 KiB (3000 bytes), more than the cap of 2 KiB (2048 bytes) on input files (--max-input-size raises it)"
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), want) {
		t.Errorf("ReadFile = %v, want %q", err, want)
	}
	if _, err := ReadFile(p, 3000); err != nil {
		t.Errorf("ReadFile at the cap: %v", err)
	}
	if _, err := ReadFile(p, 0); err != nil {
		t.Errorf("ReadFile without a cap: %v", err)
	}
	// A file whose stat size (0 in /proc) understates its content is cut
	// off while it is read.
	if _, err := os.Stat("/proc/self/status"); err == nil {
		if _, err := ReadFile("/proc/self/status", 16); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "grew") {
			t.Errorf("ReadFile(/proc/self/status, 16) = %v, want a cap error", err)
		}
	}
}
