package run

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/scene"
)

func overlapScene(t *testing.T, gap float64) *scene.Scene {
	t.Helper()
	// Two spheres of radius 0.1 m centred 0.2 + gap apart on a plane:
	// a negative gap is an overlap of -gap.
	doc := `{"materials": [{"name": "m", "friction": 0.5}],
	  "bodies": [
	    {"shape": {"type": "sphere", "radius": 0.1}, "pos": [0, 0, 0.1], "mass": 1},
	    {"shape": {"type": "sphere", "radius": 0.1}, "pos": [` + strconv.FormatFloat(0.2+gap, 'f', -1, 64) + `, 0, 0.1], "mass": 1},
	    {"shape": {"type": "plane"}, "fixed": true}],
	  "run": {"steps": 2}}`
	sc, err := scene.Parse([]byte(doc), "overlap.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestStartOverlap checks the start-of-run overlap check: 3 cm of overlap
// between spheres of radius 10 cm (30 %, far above MaxStartOverlap) is an
// error naming both bodies, and so the run writes nothing; 0.2 mm (0.2 %,
// as in a settled pile) is accepted.
func TestStartOverlap(t *testing.T) {
	_, err := Run(context.Background(), overlapScene(t, -0.03), Options{Backend: "cpu", OutDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "bodies 0 (sphere) and 1 (sphere) by 0.03 m") {
		t.Fatalf("Run of a scene with two spheres 3 cm into each other: err = %v, want an overlap error naming bodies 0 and 1", err)
	}
	if _, err := Run(context.Background(), overlapScene(t, -0.0002), Options{Backend: "cpu", OutDir: t.TempDir()}); err != nil {
		t.Fatalf("a 0.2 mm overlap must be accepted: %v", err)
	}
}

// TestBuiltinsStartApart checks that no built-in scene starts with an
// overlap beyond MaxStartOverlap (each would fail to run otherwise).
func TestBuiltinsStartApart(t *testing.T) {
	for _, info := range scene.Builtins() {
		t.Run(info.Name, func(t *testing.T) {
			sc, err := scene.LoadBuiltin(info.Name, nil)
			if err != nil {
				t.Fatal(err)
			}
			be := cpuref.New(0)
			if _, err := engine.NewSim(&sc.Model, sc.Settings, be); err != nil {
				t.Fatal(err)
			}
			if err := checkStartOverlap(&sc.Model, be); err != nil {
				t.Error(err)
			}
		})
	}
}
