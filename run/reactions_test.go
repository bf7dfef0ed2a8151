package run

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gpusim/gpusim/checkpoint"
	"github.com/gpusim/gpusim/scene"
	"github.com/gpusim/gpusim/vtk"
)

// chainScene is k spheres of 1 kg hanging 0.2 m apart on spherical joints,
// the top one from the world, at rest: joint i holds the k − i links
// below it. Tight settings, so that the impulses balance gravity to far
// below the tests' tolerances.
func chainScene(t *testing.T, k int, warm bool) *scene.Scene { return swingingChain(t, k, warm, 0) }

// swingingChain is chainScene with link i started at swing·i m/s along x.
func swingingChain(t *testing.T, k int, warm bool, swing float64) *scene.Scene {
	t.Helper()
	var bodies, joints []string
	for i := 0; i < k; i++ {
		bodies = append(bodies, fmt.Sprintf(`{"shape": {"type": "sphere", "radius": 0.05}, "pos": [0, 0, %g], "vel": [%g, 0, 0], "mass": 1}`,
			-0.1-0.2*float64(i), swing*float64(i)))
		b2 := fmt.Sprintf(`, "body2": %d`, i-1) // the world when omitted
		if i == 0 {
			b2 = ""
		}
		joints = append(joints, fmt.Sprintf(`{"type": "spherical", "body1": %d%s, "point": [0, 0, %g]}`, i, b2, -0.2*float64(i)))
	}
	doc := fmt.Sprintf(`{"name": "hang", "materials": [{"name": "m", "friction": 0.5}],
  "settings": {"dt": 0.001, "tol": 1e-10, "max_iter": 500, "workers": 1, "warm_start": %v},
  "run": {"steps": 30},
  "bodies": [%s], "joints": [%s]}`, warm, strings.Join(bodies, ",\n"), strings.Join(joints, ",\n"))
	sc, err := scene.Parse([]byte(doc), "hang.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// reactionRows returns reactions.csv's rows of the given step as
// kind/id → the six numbers.
func reactionRows(t *testing.T, path string, step int) map[string][6]float64 {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(string(readFile(t, path))), "\n")
	if lines[0] != reactionsHeader {
		t.Fatalf("%s: header %q", path, lines[0])
	}
	rows := map[string][6]float64{}
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		if len(f) != 10 {
			t.Fatalf("%s: row %q", path, l)
		}
		if s, _ := strconv.Atoi(f[0]); s != step {
			continue
		}
		var v [6]float64
		for c := range v {
			v[c], _ = strconv.ParseFloat(f[4+c], 64)
		}
		rows[f[2]+"/"+f[3]] = v
	}
	return rows
}

// TestReactionsChain: reactions.csv of a hanging chain of 5 links gives
// the anchor (joint 0) the whole weight 5·m·g upwards on link 0 and no
// torque, and summary.json the same as the last step's reaction.
func TestReactionsChain(t *testing.T) {
	const k, g = 5, 9.81
	out := t.TempDir()
	sum, err := Run(context.Background(), chainScene(t, k, true), Options{Backend: "cpu", OutDir: out})
	if err != nil {
		t.Fatal(err)
	}
	rows := reactionRows(t, filepath.Join(out, "reactions.csv"), 30)
	if len(rows) != k {
		t.Fatalf("step 30: %d rows, want one per joint (%d): %v", len(rows), k, rows)
	}
	for i := 0; i < k; i++ {
		r := rows[fmt.Sprintf("joint/%d", i)]
		want := float64(k-i) * g
		// 1e-6 relative: at rest the impulses balance gravity to the
		// solver's tolerance 1e-10 (as in tests.TestChainReaction).
		if math.Abs(r[2]-want) > 1e-6*want || math.Hypot(r[0], r[1]) > 1e-6*want || math.Sqrt(r[3]*r[3]+r[4]*r[4]+r[5]*r[5]) > 1e-6*want {
			t.Errorf("joint %d at step 30: %v, want force (0, 0, %g) N and no torque", i, r, want)
		}
	}
	if len(sum.Reactions) != k || sum.Reactions[0].Kind != "joint" || sum.Reactions[0].ID != 0 {
		t.Fatalf("summary reactions %+v, want %d joints", sum.Reactions, k)
	}
	s0 := sum.Reactions[0]
	if s0.Force[2] != rows["joint/0"][2] || math.Abs(s0.MeanForce[2]-k*g) > 1e-6*k*g {
		t.Errorf("summary of joint 0: %+v; want the last force %v and a mean of %g N", s0, rows["joint/0"], k*g)
	}
	t.Logf("chain of %d links of 1 kg: anchor reaction %.9f N in reactions.csv, weight %.9f N", k, rows["joint/0"][2], k*g)
}

// restingScene is a box (2 kg, half-extents 0.1 m) resting on a fixed box
// (body 1) with its centre 0.05 m off the fixed box's in x: the fixed box
// carries its weight, (0, 0, −m g), and about the fixed box's centre the
// torque r × F = (0, d·m·g, 0), d = 0.05 m.
const restingScene = `{"name": "resting", "materials": [{"name": "m", "friction": 0.5}],
  "settings": {"dt": 0.001, "tol": 1e-10, "max_iter": 500, "workers": 1},
  "run": {"steps": 200},
  "bodies": [
    {"shape": {"type": "box", "half_extents": [0.1, 0.1, 0.1]}, "pos": [0.05, 0, 0.2], "mass": 2},
    {"shape": {"type": "box", "half_extents": [0.2, 0.2, 0.1]}, "pos": [0, 0, 0], "fixed": true}
  ]}`

// TestReactionsRestingBox: with Options.Reactions a scene without joints
// reports its fixed body: the weight of the box resting on it, and the
// torque of that weight about its centre; the frames carry the arrays.
// Without the option the run writes no reactions.csv and its summary has
// no reactions.
func TestReactionsRestingBox(t *testing.T) {
	const m, g, d = 2.0, 9.81, 0.05
	load := func() *scene.Scene {
		sc, err := scene.Parse([]byte(restingScene), "resting.json", nil)
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	out := t.TempDir()
	sum, err := Run(context.Background(), load(), Options{Backend: "cpu", OutDir: out, Reactions: true, VTKEvery: 100})
	if err != nil {
		t.Fatal(err)
	}
	rows := reactionRows(t, filepath.Join(out, "reactions.csv"), 200)
	r, ok := rows["body/1"]
	if len(rows) != 1 || !ok {
		t.Fatalf("step 200: rows %v, want one for body 1", rows)
	}
	w := m * g
	// 1e-6 relative: the box has settled (its drop from the 1 mm-free
	// start is over in a few steps), each step's impulses balance its
	// weight to the tolerance 1e-10.
	if math.Abs(r[2]+w) > 1e-6*w || math.Hypot(r[0], r[1]) > 1e-6*w {
		t.Errorf("force on the fixed box %v N, want (0, 0, %g)", r[:3], -w)
	}
	if math.Abs(r[4]-d*w) > 1e-6*w || math.Hypot(r[3], r[5]) > 1e-6*w {
		t.Errorf("torque on the fixed box %v N·m, want (0, %g, 0)", r[3:], d*w)
	}
	if len(sum.Reactions) != 1 || sum.Reactions[0].Kind != "body" || sum.Reactions[0].ID != 1 {
		t.Errorf("summary reactions %+v, want body 1", sum.Reactions)
	}
	p, err := vtk.ReadFile(filepath.Join(out, vtk.FrameFile(200)))
	if err != nil {
		t.Fatal(err)
	}
	// The frame's one point is the moving box (body 0); the fixed box is
	// field data, its reaction in the field arrays fixed_reaction_*.
	if a := p.PointArray(vtk.ArrayReactionForce); a == nil || a.Tuples() != 1 || p.NumPoints() != 1 || p.PointArray(vtk.ArrayReactionTorque) == nil {
		t.Errorf("frame 200: %d points, point reaction array %+v, want 1 point and 1 tuple", p.NumPoints(), a)
	}
	if a := p.FieldArray(vtk.ArrayFixedReactionForce); a == nil || a.Tuples() != 1 || a.Data[2] != r[2] {
		t.Errorf("frame 200: field array %s %+v, want body 1's force %v", vtk.ArrayFixedReactionForce, a, r[:3])
	}
	force, torque, err := vtk.Reactions(p)
	if err != nil {
		t.Fatal(err)
	}
	// reactions.csv and the frame hold the same float64 (the csv in its
	// shortest exact form), so they are equal.
	if len(force) != 2 || force[1] != (mgl64.Vec3{r[0], r[1], r[2]}) || torque[1] != (mgl64.Vec3{r[3], r[4], r[5]}) || force[0] != (mgl64.Vec3{}) {
		t.Errorf("frame 200: reactions %v, %v; want body 1's %v", force, torque, r)
	}
	plain := t.TempDir()
	sum, err = Run(context.Background(), load(), Options{Backend: "cpu", OutDir: plain})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(plain, "reactions.csv")); err == nil || sum.Reactions != nil {
		t.Errorf("a run without joints or Options.Reactions wrote reactions.csv (%v) or reactions into its summary (%v)", err, sum.Reactions)
	}
}

// TestReactionsResumeCutBack: a run of the chain killed after writing
// part of a step's rows (reactions.csv ends in a cut line, and rows past
// its last checkpoint) resumed into its folder ends with reactions.csv
// byte for byte the unsplit run's.
func TestReactionsResumeCutBack(t *testing.T) {
	dir := t.TempDir()
	full, split := filepath.Join(dir, "full"), filepath.Join(dir, "split")
	for _, out := range []string{full, split} {
		if _, err := Run(context.Background(), swingingChain(t, 3, true, 0.5), Options{Backend: "cpu", OutDir: out, CheckpointEvery: 10}); err != nil {
			t.Fatal(err)
		}
	}
	want := readFile(t, filepath.Join(full, "reactions.csv"))
	// As SIGKILL can leave it: rows up to step 25 and a cut one.
	path := filepath.Join(split, "reactions.csv")
	cut := bytes.Index(want, []byte("\n26,")) + 1
	if err := os.WriteFile(path, append(append([]byte{}, want[:cut]...), "26,0.026,joint,0,0,0"...), 0o644); err != nil {
		t.Fatal(err)
	}
	rsc, ck, err := Resume(filepath.Join(split, "checkpoints", checkpoint.FileName(20)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), rsc, Options{Backend: "cpu", OutDir: split, Resume: ck}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); !bytes.Equal(got, want) {
		t.Errorf("reactions.csv after the resume into the killed run's folder:\n%s\nwant\n%s", got, want)
	}
}
