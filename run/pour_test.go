package run

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/checkpoint"
	"github.com/gpusim/gpusim/cpuref"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/internal/testfile"
	"github.com/gpusim/gpusim/scene"
)

// pourScene pours 200 spheres (radius 3 cm) at 1000 per second, falling
// at 1 m/s, from a layer 7 cm thick 30 cm above the floor of an open box
// of 1 m × 1 m: the first lands after about 0.16 s, the last is due at
// 0.199 s.
const pourScene = `{
  "name": "pour",
  "materials": [{"name": "default", "friction": 0.4}],
  "settings": {"dt": 0.002, "tol": 1e-6, "max_iter": 100, "workers": 2},
  "run": {"steps": 150, "trace": [3, 105]},
  "containers": [{"type": "box", "inner_min": [-0.5, -0.5, 0], "inner_max": [0.5, 0.5, 1.5], "thickness": 0.1}],
  "generators": [
    {"type": "pour", "count": 200, "rate": 1000, "seed": 11, "density": 2500, "velocity": [0, 0, -1],
     "region": {"min": [-0.45, -0.45, 0.3], "max": [0.45, 0.45, 0.37]},
     "shape": {"type": "sphere", "radius": 0.03}}
  ]
}`

func loadPour(t *testing.T, sets ...string) *scene.Scene {
	t.Helper()
	sc, err := scene.Parse([]byte(pourScene), "pour.json", sets)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestPourRun: every body of the pour enters (5 walls and 200 spheres
// in final.csv, summary's bodies and bodies_total 205); stats.csv's
// bodies column grows from 6 (the walls and the sphere due at t = 0) to
// 205 a step at a time, two bodies a step at 1000/s and h = 2 ms; a
// traced pour body has trace rows from its entry on; frames, NumPy
// frames and reactions follow the bodies.
func TestPourRun(t *testing.T) {
	dir := t.TempDir()
	sum, err := Run(context.Background(), loadPour(t), Options{Backend: "cpu", OutDir: dir, VTKEvery: 50, NPZEvery: 50, Reactions: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Bodies != 205 || sum.BodiesTotal != 205 {
		t.Fatalf("summary: %d bodies of %d, want 205 of 205", sum.Bodies, sum.BodiesTotal)
	}
	if final := testfile.CSV(t, filepath.Join(dir, "final.csv")); len(final) != 1+205 {
		t.Fatalf("final.csv has %d rows, want a header and 205", len(final))
	}
	stats := testfile.CSV(t, filepath.Join(dir, "stats.csv"))
	for i, row := range stats[1:] {
		n, err := strconv.Atoi(row[2])
		if err != nil {
			t.Fatal(err)
		}
		// Step i+1 runs with the bodies due by step i's end, i·2 ms:
		// 5 walls and bodies 0 … 2i (entry at k ms).
		if want := min(205, 5+2*i+1); n != want {
			t.Fatalf("stats.csv step %d: %d bodies, want %d", i+1, n, want)
		}
	}
	// Body 105 is pour body 100, due at 0.1 s: it enters after step 50.
	var first105 int
	for _, row := range testfile.CSV(t, filepath.Join(dir, "trace.csv"))[1:] {
		if row[2] == "105" && first105 == 0 {
			first105, _ = strconv.Atoi(row[0])
		}
	}
	if first105 != 51 {
		t.Errorf("body 105's first trace row is of step %d, want 51", first105)
	}
	for _, f := range []string{"vtk/frame-000150.vtp", "npz/step-00000150.npz"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

// TestPourEntryClear steps the pour scene with a pourer: no sphere that
// enters overlaps a movable body present (the rule of pourer, exact for
// spheres, whose bounding sphere is the shape), every body enters in
// order, and the spheres the window keeps apart are apart.
func TestPourEntryClear(t *testing.T) {
	sc := loadPour(t)
	cur := *sc
	sim, err := engine.NewSim(&cur.Model, sc.Settings, cpuref.New(2))
	if err != nil {
		t.Fatal(err)
	}
	p := newPourer(sc, &cur.Model, nil)
	var st engine.State
	for range 150 {
		if _, err := sim.Step(); err != nil {
			t.Fatal(err)
		}
		if err := sim.Backend().ReadState(&st); err != nil {
			t.Fatal(err)
		}
		n := len(cur.Model.Bodies)
		if _, err := p.enter(sim, func() (*engine.State, error) { return &st, nil }); err != nil {
			t.Fatal(err)
		}
		if err := sim.Backend().ReadState(&st); err != nil {
			t.Fatal(err)
		}
		pos := func(i int) mgl64.Vec3 { return mgl64.Vec3{st.Pos[3*i], st.Pos[3*i+1], st.Pos[3*i+2]} }
		for k := n; k < len(cur.Model.Bodies); k++ {
			if pos(k) != sc.Entering[k-len(sc.Model.Bodies)].Pos {
				t.Fatalf("body %d entered at %v, not at its spot", k, pos(k))
			}
			for i := range k {
				if cur.Model.Bodies[i].Static() {
					continue
				}
				// 0.06 m: two radii of 3 cm; no overlap at all.
				if d := pos(k).Sub(pos(i)).Len(); d < 0.06 {
					t.Fatalf("step %d: body %d enters %.3g m from body %d", sim.Steps(), k, d, i)
				}
			}
		}
	}
	if len(cur.Model.Bodies) != 205 {
		t.Fatalf("%d bodies after 0.3 s, want 205", len(cur.Model.Bodies))
	}
}

// TestPourWaits: a pour whose every spot overlaps a ball resting in its
// region never enters (first in, first out: the second body waits behind
// the first), and the run says so once, after a second.
func TestPourWaits(t *testing.T) {
	src := `{"materials": [{"name": "m", "friction": 0.3}], "gravity": [0, 0, 0],
	  "settings": {"dt": 0.01}, "run": {"duration": 1.5},
	  "bodies": [{"shape": {"type": "sphere", "radius": 0.3}, "pos": [0, 0, 0], "mass": 1}],
	  "generators": [{"type": "pour", "count": 2, "rate": 10, "start": 0.1, "mass": 1,
	    "region": {"min": [-0.2, -0.2, -0.2], "max": [0.2, 0.2, 0.2]}, "shape": {"type": "sphere", "radius": 0.05}}]}`
	sc, err := scene.Parse([]byte(src), "wait.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	var notices []string
	sum, err := Run(context.Background(), sc, Options{Backend: "cpu", OutDir: t.TempDir(), Notice: func(s string) { notices = append(notices, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Bodies != 1 || sum.BodiesTotal != 3 {
		t.Errorf("summary: %d bodies of %d, want 1 of 3", sum.Bodies, sum.BodiesTotal)
	}
	var waits []string
	for _, n := range notices {
		if strings.HasPrefix(n, "pour:") {
			waits = append(waits, n)
		}
	}
	if len(waits) != 1 || !strings.Contains(waits[0], "body 1 has waited") {
		t.Errorf("notices %q, want one saying body 1 waits", notices)
	}
}

// TestPourResume: a pour run interrupted by a checkpoint at step 90 (181
// of the 200 spheres in, the first ones on the floor) and resumed ends
// bit-identical to the unsplit run (final.csv byte for byte, the stats
// rows), with warm start off and on.
func TestPourResume(t *testing.T) {
	const n, k = 150, 90
	for _, warm := range []string{"false", "true"} {
		dir := t.TempDir()
		full, split, resumed := filepath.Join(dir, "full"), filepath.Join(dir, "split"), filepath.Join(dir, "resumed")
		sets := []string{"settings.warm_start=" + warm, "run.steps=" + strconv.Itoa(n)}
		if _, err := Run(context.Background(), loadPour(t, sets...), Options{Backend: "cpu", OutDir: full}); err != nil {
			t.Fatal(err)
		}
		sc := loadPour(t, sets...)
		sc.Steps = k
		if _, err := Run(context.Background(), sc, Options{Backend: "cpu", OutDir: split, CheckpointEvery: k}); err != nil {
			t.Fatal(err)
		}
		rsc, ck, err := Resume(filepath.Join(split, "checkpoints", checkpoint.FileName(k)))
		if err != nil {
			t.Fatal(err)
		}
		if got := ck.State.Len(); got != 5+2*k+1 {
			t.Fatalf("the checkpoint holds %d bodies, want %d", got, 5+2*k+1)
		}
		rsc.Steps = n
		sum, err := Run(context.Background(), rsc, Options{Backend: "cpu", OutDir: resumed, Resume: ck})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Bodies != 205 || sum.Final.Contacts < 20 {
			t.Errorf("resumed summary: %d bodies, %d contacts at the end; want 205, ≥ 20 (persistent contacts that warm start matters to)", sum.Bodies, sum.Final.Contacts)
		}
		want, got := readFile(t, filepath.Join(full, "final.csv")), readFile(t, filepath.Join(resumed, "final.csv"))
		if !bytes.Equal(got, want) {
			t.Errorf("warm %s: final.csv of the resumed run differs from the unsplit run's", warm)
		}
		fullStats, resStats := statsRows(t, filepath.Join(full, "stats.csv")), statsRows(t, filepath.Join(resumed, "stats.csv"))
		if strings.Join(resStats, "\n") != strings.Join(fullStats[k:], "\n") {
			t.Errorf("warm %s: resumed stats.csv rows differ from steps %d…%d of the unsplit run", warm, k+1, n)
		}
		// Resumed in its own folder, whose summary.json and stats.csv
		// rows hold fewer bodies than the scene's total (and more than
		// its t = 0 model): it goes on there, to the same end.
		rsc, ck, err = Resume(filepath.Join(split, "checkpoints", checkpoint.FileName(k)))
		if err != nil {
			t.Fatal(err)
		}
		rsc.Steps = n
		if _, err := Run(context.Background(), rsc, Options{Backend: "cpu", OutDir: split, Resume: ck}); err != nil {
			t.Fatalf("warm %s: resumed into its own folder: %v", warm, err)
		}
		if got := readFile(t, filepath.Join(split, "final.csv")); !bytes.Equal(got, want) {
			t.Errorf("warm %s: final.csv of the run resumed in place differs from the unsplit run's", warm)
		}
		if got := statsRows(t, filepath.Join(split, "stats.csv")); strings.Join(got, "\n") != strings.Join(fullStats, "\n") {
			t.Errorf("warm %s: stats.csv of the run resumed in place differs from the unsplit run's", warm)
		}
	}
}

// TestPourAtEnd: a run with AtEnd lets no body enter after its last step,
// so that AtEnd sees that step's problem (Sim.Grow drops it).
func TestPourAtEnd(t *testing.T) {
	sc := loadPour(t, "run.steps=10")
	sum, err := Run(context.Background(), sc, Options{Backend: "cpu", OutDir: t.TempDir(), AtEnd: func(sim *engine.Sim) error {
		if sim.Problem() == nil {
			t.Error("AtEnd: no problem of the last step")
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	// 5 walls and the bodies due by the end of step 9 (18 ms): 0 … 18.
	if sum.Bodies != 5+19 {
		t.Errorf("%d bodies at the end, want 24", sum.Bodies)
	}
}
