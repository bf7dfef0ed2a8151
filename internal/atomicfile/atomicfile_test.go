package atomicfile

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := WriteBytes(path, []byte("first\n")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != Mode {
		t.Errorf("mode %v, want %v", fi.Mode().Perm(), os.FileMode(Mode))
	}
	// A failing fill leaves the old content and no temporary file.
	boom := errors.New("boom")
	err = Write(path, func(w *bufio.Writer) error {
		w.WriteString("partial")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("error %v, want one wrapping %v", err, boom)
	}
	if b, _ := os.ReadFile(path); string(b) != "first\n" {
		t.Errorf("after a failed write the file holds %q, want the old content", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d entries in the folder, want only out.txt", len(ents))
	}
	// A missing folder is an error, not a panic.
	if err := WriteBytes(filepath.Join(dir, "none", "x"), nil); err == nil {
		t.Error("write into a missing folder succeeded")
	}
}
