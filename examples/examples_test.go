// Package examples holds example scene files (see README.md here) and the
// tests that keep them loading, running and in step with the built-in
// scenes.
package examples

import (
	"bytes"
	"context"
	"encoding/csv"
	"flag"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/run"
	"github.com/gpusim/gpusim/scene"
)

var update = flag.Bool("update", false, "rewrite the built-in scenes' files (NAME.json) from scene.Dump")

// Each built-in scene has a file here equal to `gpusim scenes --dump NAME`,
// which builds the same model and settings as the built-in.
func TestBuiltinFiles(t *testing.T) {
	for _, info := range scene.Builtins() {
		sc, err := scene.LoadBuiltin(info.Name, nil)
		if err != nil {
			t.Fatal(err)
		}
		want, err := scene.Dump(sc.Doc)
		if err != nil {
			t.Fatal(err)
		}
		file := info.Name + ".json"
		if *update {
			if err := os.WriteFile(file, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(file)
		if err != nil {
			t.Errorf("built-in %s has no file here: %v (go test ./examples -run TestBuiltinFiles -update writes it)", info.Name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("examples/%s differs from gpusim scenes --dump %s: go test ./examples -run TestBuiltinFiles -update rewrites it", file, info.Name)
			continue
		}
		fromFile, err := scene.LoadFile(file, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fromFile.Model, sc.Model) || fromFile.Settings != sc.Settings ||
			fromFile.Duration != sc.Duration || !reflect.DeepEqual(fromFile.Trace, sc.Trace) {
			t.Errorf("examples/%s does not build the same model, settings and run as the built-in %s", file, info.Name)
		}
	}
}

// shrink lists the overrides that make an example small for the test: a
// few steps and fewer generated bodies. A file not listed runs whole for
// the same few steps.
var shrink = map[string][]string{
	"settle.json":     {"generators.0.count=100"},
	"fill.json":       {"generators.0.count=100"},
	"pressure.json":   {"generators.0.count=81"},
	"hopper.json":     {"generators.0.count=200"},
	"crater.json":     {"generators.0.count=500"},
	"crater/bed.json": {"generators.0.count=500"},
	"blocks.json":     {"generators.0.count=105", "generators.1.count=95"},
}

// Every example file loads and runs a few steps on the CPU path; the final
// state is finite and no movable body has left the scene's container.
func TestExamplesRun(t *testing.T) {
	files, err := filepath.Glob("*.json")
	if err != nil {
		t.Fatal(err)
	}
	// The scenes of the studies in folders too (not sweeps/: sweep files).
	more, err := filepath.Glob("crater/*.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range append(files, more...) {
		if strings.HasSuffix(file, ".schema.json") {
			continue
		}
		t.Run(strings.TrimSuffix(file, ".json"), func(t *testing.T) {
			const steps = 5
			sets := append([]string{"run.steps=" + strconv.Itoa(steps)}, shrink[file]...)
			sc, err := scene.LoadFile(file, sets)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			sum, err := run.Run(context.Background(), sc, run.Options{Backend: "cpu", OutDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Steps != steps {
				t.Fatalf("ran %d steps, want %d", sum.Steps, steps)
			}
			f := sum.Final
			for _, x := range []float64{f.Residual, f.MaxPenetration, f.MeanHeight, f.MaxSpeed, f.FixedForce[0], f.FixedForce[1], f.FixedForce[2]} {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					t.Fatalf("summary figures not finite: %+v", f)
				}
			}
			if f.Escaped != nil && *f.Escaped != 0 {
				t.Errorf("%d bodies escaped from the container", *f.Escaped)
			}
			checkFinal(t, filepath.Join(dir, "final.csv"), sc)
		})
	}
}

// checkFinal reads final.csv: every number is finite, and every movable
// body of a scene with a box container is inside its inner space (open at
// the top: run's rule for escaped bodies).
func checkFinal(t *testing.T, path string, sc *scene.Scene) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// A pour's bodies are in final.csv once they have entered.
	if n := len(rows) - 1; n < len(sc.Model.Bodies) || n > sc.TotalBodies() || len(sc.Entering) == 0 && n != len(sc.Model.Bodies) {
		t.Fatalf("%s: %d rows, want a header and %d bodies (%d with a pour's)", path, len(rows), len(sc.Model.Bodies), sc.TotalBodies())
	}
	all := sc.ModelWith(sc.TotalBodies())
	for _, row := range rows[1:] {
		v := make([]float64, len(row))
		for i, s := range row {
			if v[i], err = strconv.ParseFloat(s, 64); err != nil || math.IsNaN(v[i]) || math.IsInf(v[i], 0) {
				t.Fatalf("%s: row %v: %q is not a finite number", path, row, s)
			}
		}
		id := int(v[0])
		b := all.Bodies[id]
		if d := sc.Domain; d != nil && !b.Fixed {
			p := v[1:4]
			for k := range 3 {
				if p[k] < d.Min[k] || (k < 2 && p[k] > d.Max[k]) {
					t.Errorf("body %d at %v is outside the container [%v, %v]", id, p, d.Min, d.Max)
					break
				}
			}
		}
	}
}
