package run

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fullFile is a file on a disk with room bytes left: a write gets as much
// of its data as fits, then ENOSPC, as write(2) does on a full disk.
type fullFile struct {
	*os.File
	room int64
}

func (f *fullFile) WriteAt(b []byte, off int64) (int, error) {
	if st, err := f.Stat(); err == nil && off+int64(len(b)) > st.Size() {
		grow := off + int64(len(b)) - st.Size()
		if grow > f.room {
			n, _ := f.File.WriteAt(b[:int64(len(b))-(grow-f.room)], off)
			f.room = 0
			return n, syscall.ENOSPC
		}
		f.room -= grow
	}
	return f.File.WriteAt(b, off)
}

// TestCSVFileFullDisk: a row that does not fit is not left half written;
// the file ends at its last complete row and the error names it.
func TestCSVFileFullDisk(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stats.csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := &csvFile{f: &fullFile{File: f, room: 16}, path: path}
	if err := c.write([]byte("step,x\n1,0.5\n")); err != nil {
		t.Fatal(err)
	}
	err = c.write([]byte("2,0.25\n"))
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), path) {
		t.Fatalf("write past the room: %v; want ENOSPC naming %s", err, path)
	}
	if data, _ := os.ReadFile(path); string(data) != "step,x\n1,0.5\n" {
		t.Errorf("stats.csv after the failed write: %q; want the complete rows only", data)
	}
	// Room again (a file removed elsewhere): the next row follows the last
	// complete one, with no hole or remnant before it.
	c.f.(*fullFile).room = 100
	if err := c.write([]byte("3,0.125\n")); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "step,x\n1,0.5\n3,0.125\n" {
		t.Errorf("stats.csv: %q", data)
	}
}

func TestRowsUpTo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.csv")
	text := "step,a\n1,x\n1,y\n2,x\n2,y\n3,x\n3,"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ step, end, last int }{
		{0, len("step,a\n"), 3},
		{2, len("step,a\n1,x\n1,y\n2,x\n2,y\n"), 3},
		{7, len("step,a\n1,x\n1,y\n2,x\n2,y\n3,x\n"), 3}, // the cut last line is no row
	} {
		end, last, err := rowsUpTo(path, "step,a", c.step, nil)
		if err != nil || end != int64(c.end) || last != c.last {
			t.Errorf("rowsUpTo(step %d) = %d, %d, %v; want %d, %d", c.step, end, last, err, c.end, c.last)
		}
	}
	if _, _, err := rowsUpTo(path, "step,b", 1, nil); err == nil || !strings.Contains(err.Error(), "another header") {
		t.Errorf("other header: %v", err)
	}
}
