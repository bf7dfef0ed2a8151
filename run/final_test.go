package run

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/checkpoint"
	"github.com/gpusim/gpusim/scene"
)

// TestEndState reads a run's end state from its folder and from its last
// checkpoint: the two agree (positions, orientations and velocities bit
// for bit; angular velocities, which final.csv holds in the world frame,
// to 1e-15 relative), and bad paths give errors naming the file.
func TestEndState(t *testing.T) {
	sc, err := scene.LoadBuiltin("settle", []string{"n=60", "run.steps=12"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := Run(context.Background(), sc, Options{Backend: "cpu", OutDir: dir, CheckpointEvery: 12}); err != nil {
		t.Fatal(err)
	}
	_, fromDir, err := EndState(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, fromCk, err := EndState(filepath.Join(dir, "checkpoints", checkpoint.FileName(12)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name string
		a, b []float64
		tol  float64
	}{{"pos", fromDir.Pos, fromCk.Pos, 0}, {"rot", fromDir.Rot, fromCk.Rot, 0}, {"vel", fromDir.Vel, fromCk.Vel, 0},
		{"omega", fromDir.Omega, fromCk.Omega, 1e-15}} {
		scale := 0.0
		for _, v := range f.b {
			scale = math.Max(scale, math.Abs(v))
		}
		for i := range f.a {
			if math.Abs(f.a[i]-f.b[i]) > f.tol*scale {
				t.Fatalf("%s[%d]: %v from final.csv, %v from the checkpoint", f.name, i, f.a[i], f.b[i])
			}
		}
	}
	if _, _, err := EndState(filepath.Join(dir, "nope")); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("a missing path: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "final.csv"), []byte("id,x\n0,1\n"), 0o644)
	if _, _, err := EndState(dir); err == nil || !strings.Contains(err.Error(), "final.csv: header") {
		t.Errorf("a bad final.csv: %v", err)
	}
}
