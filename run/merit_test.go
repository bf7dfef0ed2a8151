package run

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/fclib"
	"github.com/gpusim/gpusim/scene"
)

// TestMeritUndefined runs flow-gap for two steps, before any sphere can
// reach the gap: its flow rate has no value. summary.json must still be
// written (JSON has no NaN: encoding one failed the run) with the figure
// marked undefined rather than given a made-up 0.
func TestMeritUndefined(t *testing.T) {
	sc, err := scene.LoadBuiltin("flow-gap", []string{"n=50"})
	if err != nil {
		t.Fatal(err)
	}
	sc.Steps = 2
	dir := t.TempDir()
	if _, err := Run(context.Background(), sc, Options{Backend: "cpu", OutDir: dir}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct{ Merit *Merit }
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Merit == nil {
		t.Fatal("summary.json has no merit")
	}
	for _, f := range sum.Merit.Figures {
		if f.Name == "flow_rate" {
			if !f.Undefined || f.Value != 0 {
				t.Errorf("flow_rate after 2 steps = %+v, want undefined", f)
			}
			if s := sum.Merit.String(); !strings.Contains(s, "flow_rate            undefined") {
				t.Errorf("printed merit does not say undefined:\n%s", s)
			}
			return
		}
	}
	t.Fatalf("no flow_rate in %+v", sum.Merit.Figures)
}

// TestMeritForces: MeritForces on the run's own γ of the last step, in
// AtEnd, gives merit.csv's last row for shear (shear and normal force)
// and chain (the anchors' force) bit for bit: the same forces from the
// same impulses, contacts and state.
func TestMeritForces(t *testing.T) {
	for _, c := range []struct {
		name, set string
		steps     int
		cols      []int // merit.csv's columns of the figures, in order
	}{
		{"shear", "n=20", 5, []int{3, 4}},
		{"chain", "n=4", 3, []int{3, 4, 5}},
	} {
		sc, err := scene.LoadBuiltin(c.name, []string{c.set})
		if err != nil {
			t.Fatal(err)
		}
		sc.Steps = c.steps
		dir := t.TempDir()
		var figs []fclib.Figure
		atEnd := func(sim *engine.Sim) error {
			p := sim.Problem()
			g := p.NewVec(engine.Rows(p))
			p.Write(g, sim.Impulses(nil))
			figs, err = MeritForces(sc, sim, g)
			return err
		}
		if _, err := Run(context.Background(), sc, Options{Backend: "cpu", OutDir: dir, AtEnd: atEnd}); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var last []float64
		if err := scanMerit(filepath.Join(dir, "merit.csv"), func(r []float64) { last = append(last[:0], r...) }); err != nil {
			t.Fatal(err)
		}
		if len(figs) != len(c.cols) {
			t.Fatalf("%s: figures %v, want %d", c.name, figs, len(c.cols))
		}
		if !slices.ContainsFunc(figs, func(f fclib.Figure) bool { return f.Value != 0 }) {
			t.Errorf("%s: every figure is 0: %v", c.name, figs)
		}
		for i, col := range c.cols {
			// scanMerit's rows start at time: column k of merit.csv is r[k-1].
			if want := last[col-1]; figs[i].Value != want {
				t.Errorf("%s: %s = %v, merit.csv's last row %v", c.name, figs[i].Name, figs[i].Value, want)
			}
		}
	}
}
