package run

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/gpusim/gpusim/checkpoint"
	"github.com/gpusim/gpusim/scene"
)

// TestRestartCompoundBitIdentical: examples/dumbbells.json (compound
// bodies: dumbbells, Ls and Ts falling into a box) run 120 steps in one
// go, and 60 steps with a checkpoint plus a resume to 120, ends with the
// same final.csv byte for byte: the rebuilt model hashes the same (the
// hash covers the parts) and the warm-start keys of contacts between
// parts (Sub packs the pair of parts) restore exactly.
func TestRestartCompoundBitIdentical(t *testing.T) {
	const n, k = 120, 60
	load := func(steps int) *scene.Scene {
		sc, err := scene.LoadFile("../examples/dumbbells.json", nil)
		if err != nil {
			t.Fatal(err)
		}
		sc.Steps = steps
		return sc
	}
	dir := t.TempDir()
	full, split, resumed := filepath.Join(dir, "full"), filepath.Join(dir, "split"), filepath.Join(dir, "resumed")
	if _, err := Run(context.Background(), load(n), Options{Backend: "cpu", OutDir: full}); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), load(k), Options{Backend: "cpu", OutDir: split, CheckpointEvery: k}); err != nil {
		t.Fatal(err)
	}
	rsc, ck, err := Resume(filepath.Join(split, "checkpoints", checkpoint.FileName(k)))
	if err != nil {
		t.Fatal(err)
	}
	if ck.Warm == nil || len(ck.Warm.A) == 0 {
		t.Fatalf("checkpoint's warm-start data %+v: want the contacts' keys", ck.Warm)
	}
	rsc.Steps = n
	if _, err := Run(context.Background(), rsc, Options{Backend: "cpu", OutDir: resumed, Resume: ck}); err != nil {
		t.Fatal(err)
	}
	if got, want := readFile(t, filepath.Join(resumed, "final.csv")), readFile(t, filepath.Join(full, "final.csv")); !bytes.Equal(got, want) {
		t.Errorf("final.csv of the resumed run differs from the unsplit run's:\n%s\nwant\n%s", got, want)
	}
}
