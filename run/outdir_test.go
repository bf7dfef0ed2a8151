package run

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/checkpoint"
)

// files lists the files under dir, relative, without the lock file.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		names = append(names, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// deterministic returns the columns of stats.csv that do not hold wall
// times (step … submits).
func deterministic(t *testing.T, path string) string {
	t.Helper()
	var b strings.Builder
	for _, line := range strings.SplitAfter(string(readFile(t, path)), "\n") {
		f := strings.Split(line, ",")
		b.WriteString(strings.Join(f[:min(len(f), 11)], ","))
		b.WriteByte('\n')
	}
	return b.String()
}

// TestResumeIntoItsFolder resumes a run from its checkpoint of step 10
// into its own folder, which holds its outputs up to step 30 (frames,
// checkpoints, rows): the folder must end as the unsplit run's, with
// stats.csv (but for wall times), trace.csv, final.csv, run.pvd, frames
// and checkpoints the same. Before, the resumed run's stats.csv and
// trace.csv held only steps 11 to 30.
func TestResumeIntoItsFolder(t *testing.T) {
	dir := t.TempDir()
	full, split := filepath.Join(dir, "full"), filepath.Join(dir, "split")
	opt := func(out string) Options {
		return Options{Backend: "cpu", OutDir: out, CheckpointEvery: 10, VTKEvery: 4}
	}
	for _, out := range []string{full, split} {
		if _, err := Run(context.Background(), loadRestart(t, true), opt(out)); err != nil {
			t.Fatal(err)
		}
	}
	rsc, ck, err := Resume(filepath.Join(split, "checkpoints", checkpoint.FileName(10)))
	if err != nil {
		t.Fatal(err)
	}
	// A user's own picture in plots/ is not gpusim's: the resume keeps it.
	mine := filepath.Join(split, "plots", "mine.png")
	if err := os.MkdirAll(filepath.Dir(mine), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mine, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := opt(split)
	o.Resume = ck
	if _, err := Run(context.Background(), rsc, o); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(mine); err != nil {
		t.Errorf("the resume removed the user's plots/mine.png: %v", err)
	}
	os.Remove(filepath.Dir(mine)) // only if the run wrote no plots
	if a, b := files(t, full), files(t, split); !slices.Equal(a, b) {
		t.Errorf("files of the unsplit run %q, of the resumed folder %q", a, b)
	}
	if a, b := deterministic(t, filepath.Join(full, "stats.csv")), deterministic(t, filepath.Join(split, "stats.csv")); a != b {
		t.Errorf("stats.csv differs from the unsplit run's:\n%s\nwant\n%s", b, a)
	}
	for _, f := range []string{"trace.csv", "final.csv", "run.pvd", "checkpoints/step-000030.ckpt", "vtk/frame-000028.vtp"} {
		if !bytes.Equal(readFile(t, filepath.Join(full, f)), readFile(t, filepath.Join(split, f))) {
			t.Errorf("%s differs from the unsplit run's", f)
		}
	}
}

// TestRunFolderInUse: a run into a folder holding another run's outputs
// is refused (bad input, nothing touched), --overwrite clears gpusim's
// files only, and a resume into a folder of another run is refused.
func TestRunFolderInUse(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if _, err := Run(context.Background(), loadRestart(t, true), Options{Backend: "cpu", OutDir: out, CheckpointEvery: 10, VTKEvery: 5}); err != nil {
		t.Fatal(err)
	}
	before := readFile(t, filepath.Join(out, "stats.csv"))
	sc := loadRestart(t, true)
	sc.Steps = 5
	_, err := Run(context.Background(), sc, Options{Backend: "cpu", OutDir: out})
	var ie *InputError
	if !errors.As(err, &ie) || !errors.Is(err, ErrHasOutputs) || !strings.Contains(err.Error(), "--overwrite") {
		t.Fatalf("second run into the folder: %v; want an input error wrapping ErrHasOutputs", err)
	}
	if !bytes.Equal(before, readFile(t, filepath.Join(out, "stats.csv"))) {
		t.Error("the refused run changed stats.csv")
	}
	if err := os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	var notes []string
	if _, err := Run(context.Background(), sc, Options{Backend: "cpu", OutDir: out, Overwrite: true,
		Notice: func(s string) { notes = append(notes, s) }}); err != nil {
		t.Fatal(err)
	}
	if got, want := files(t, out), []string{"final.csv", "notes.txt", "stats.csv", "summary.json", "trace.csv"}; !slices.Equal(got, want) {
		t.Errorf("after --overwrite: %q, want %q (no frames or checkpoints of the longer run)", got, want)
	}
	if !slices.ContainsFunc(notes, func(s string) bool { return strings.Contains(s, "kept") && strings.Contains(s, "notes.txt") }) {
		t.Errorf("notices %q: want one saying notes.txt was kept", notes)
	}
	// A checkpoint of step 10 into a folder whose rows end at step 5.
	other := filepath.Join(dir, "other")
	if _, err := Run(context.Background(), loadRestart(t, true), Options{Backend: "cpu", OutDir: other, CheckpointEvery: 10}); err != nil {
		t.Fatal(err)
	}
	rsc, ck, err := Resume(filepath.Join(other, "checkpoints", checkpoint.FileName(10)))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), rsc, Options{Backend: "cpu", OutDir: out, Resume: ck})
	if !errors.Is(err, ErrHasOutputs) || !strings.Contains(err.Error(), "ends at step 5") {
		t.Errorf("resume into a folder whose rows end before the checkpoint: %v", err)
	}
}
