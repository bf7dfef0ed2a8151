package outdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// flock locks belong to an open file, so two Acquires in one process
// conflict as two processes do.
func TestLockExclusiveAndShared(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	a, err := Acquire(dir, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, LockFile))
	if want := fmt.Sprintf("pid %d on host", os.Getpid()); !strings.HasPrefix(string(data), want) {
		t.Errorf("lock file %q, want it to start with %q", data, want)
	}
	for _, shared := range []bool{false, true} {
		_, err := Acquire(dir, shared, nil)
		var be *BusyError
		if !errors.As(err, &be) || !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
			t.Errorf("shared %v while held: %v; want a BusyError naming pid %d", shared, err, os.Getpid())
		}
	}
	if err := a.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, LockFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file after Release: %v; want it removed", err)
	}
	s1, err := Acquire(dir, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := Acquire(dir, true, nil)
	if err != nil {
		t.Fatalf("second shared lock: %v", err)
	}
	if _, err := Acquire(dir, false, nil); !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "--index") {
		t.Errorf("exclusive while shared: %v; want busy by single runs", err)
	}
	s1.Release()
	s2.Release()
	ex, err := Acquire(dir, false, nil)
	if err != nil {
		t.Fatalf("exclusive after the shared ones: %v", err)
	}
	ex.Release()
}

// A lock file that a killed process left (its line, no lock on it) is
// taken over, with a notice naming the old holder.
func TestLockStale(t *testing.T) {
	dir := t.TempDir()
	stale := "pid 999999 on host elsewhere, started 2020-01-01T00:00:00Z: gpusim run settle"
	if err := os.WriteFile(filepath.Join(dir, LockFile), []byte(stale+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var notes []string
	l, err := Acquire(dir, false, func(s string) { notes = append(notes, s) })
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if len(notes) != 1 || !strings.Contains(notes[0], stale) {
		t.Errorf("notices %q; want one naming %q", notes, stale)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, LockFile)); strings.Contains(string(data), "999999") {
		t.Errorf("lock file still names the old holder: %q", data)
	}
}

// The temporary files of atomic writes that a killed run cut are removed
// by the next exclusive holder; a shared holder (which may share the folder
// with a live writer) leaves them, and so does anyone with other files.
func TestLockRemovesTemps(t *testing.T) {
	dir := t.TempDir()
	temps := []string{".tmp-stats.csv123", "checkpoints/.tmp-step-000070.ckpt456", "vtk/.tmp-frame-000001.vtp7"}
	keep := []string{"checkpoints/step-000060.ckpt", "notes/.tmp-mine", ".tmpfile"}
	for _, f := range append(append([]string{}, temps...), keep...) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sh, err := Acquire(dir, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	sh.Release()
	for _, f := range temps {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("a shared holder removed %s", f)
		}
	}
	ex, err := Acquire(dir, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ex.Release()
	for _, f := range temps {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s left after an exclusive Acquire", f)
		}
	}
	for _, f := range keep {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s removed: %v", f, err)
		}
	}
}

func TestContentsAndClear(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"stats.csv", "final.csv", "summary.json", "run.pvd", "notes.txt", "vtk/frame-000000.vtp",
		"vtk/container.vtp", "checkpoints/step-000010.ckpt", "plots/contacts.png", "plots/mine.png", "render.png", "data/x.csv", LockFile} {
		p := filepath.Join(dir, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ours, theirs, err := Contents(dir)
	if err != nil {
		t.Fatal(err)
	}
	wantOurs := []string{"checkpoints/", "final.csv", "plots/", "render.png", "run.pvd", "stats.csv", "summary.json", "vtk/"}
	wantTheirs := []string{"data", "notes.txt", "plots/mine.png"}
	if !slices.Equal(ours, wantOurs) || !slices.Equal(theirs, wantTheirs) {
		t.Errorf("Contents: ours %q, theirs %q; want %q, %q", ours, theirs, wantOurs, wantTheirs)
	}
	kept, err := Clear(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(kept, wantTheirs) {
		t.Errorf("Clear kept %q, want %q", kept, wantTheirs)
	}
	var left []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			left = append(left, filepath.ToSlash(rel))
		}
		return nil
	})
	if want := []string{LockFile, "data/x.csv", "notes.txt", "plots/mine.png"}; !slices.Equal(left, want) {
		t.Errorf("left after Clear: %q, want %q", left, want)
	}
	if ours, _, _ := Contents(dir); len(ours) != 0 {
		t.Errorf("ours after Clear: %q, want none (plots/ stays for the user's file in it)", ours)
	}
}

func TestCompleteRows(t *testing.T) {
	for _, c := range []struct {
		in, rows string
		cut      bool
	}{
		{"a,b\n1,2\n", "a,b\n1,2\n", false},
		{"a,b\n1,2\n3,", "a,b\n1,2\n", true},
		{"a,b", "", true},
		{"", "", false},
	} {
		rows, cut := CompleteRows([]byte(c.in))
		if string(rows) != c.rows || cut != c.cut {
			t.Errorf("CompleteRows(%q) = %q, %v; want %q, %v", c.in, rows, cut, c.rows, c.cut)
		}
	}
}

func TestOurs(t *testing.T) {
	for rel, want := range map[string]bool{
		"final.csv": true, "render-frame-3.png": true, "plots/merit.png": true, "vtk/frame-000001.vtp": true,
		"notes.txt": false, "plots/mine.png": false, "plots/x/merit.png": false, "other/merit.png": false, LockFile: false,
	} {
		if got := Ours(rel); got != want {
			t.Errorf("Ours(%q) = %v, want %v", rel, got, want)
		}
	}
}
