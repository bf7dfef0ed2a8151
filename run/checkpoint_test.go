package run

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/checkpoint"
	"github.com/gpusim/gpusim/engine"
	"github.com/gpusim/gpusim/scene"
)

// restartScene has spheres, boxes, an ellipsoid, a tilted plane and the
// walls of a box container (boxes), three materials (one with cohesion)
// and traced bodies: every kind of contact, and contacts that persist from
// step to step so that warm start matters.
const restartScene = `{
  "name": "restart",
  "materials": [
    {"name": "default", "friction": 0.3},
    {"name": "rubber", "friction": 0.7, "cohesion": 0.2},
    {"name": "ice", "friction": 0.05}
  ],
  "settings": {"dt": 0.01, "tol": 1e-7, "max_iter": 200, "workers": 2},
  "run": {"steps": 30, "trace": [0, 2]},
  "bodies": [
    {"shape": {"type": "box", "half_extents": [0.06, 0.04, 0.03]}, "pos": [0.1, 0.1, 0.06], "vel": [0.5, 0, 0], "mass": 1, "material": "ice"},
    {"shape": {"type": "box", "half_extents": [0.05, 0.05, 0.05]}, "pos": [-0.2, 0.1, 0.3],
     "rot": [0.9238795325, 0, 0, 0.3826834324], "omega": [1, 2, 3], "density": 700},
    {"shape": {"type": "sphere", "radius": 0.05}, "pos": [0, -0.2, 0.2], "vel": [0.2, 0.3, 0], "mass": 0.5, "material": "rubber"},
    {"shape": {"type": "ellipsoid", "semi_axes": [0.06, 0.04, 0.03]}, "pos": [0.2, -0.1, 0.15], "density": 900, "material": "rubber"}
  ],
  "generators": [
    {"type": "lattice", "count": 8, "shape": {"type": "sphere", "radius": 0.04}, "mass": 0.2,
     "spacing": 0.09, "max_per_row": 2, "origin": [-0.2, -0.2, 0.12], "jitter": 0.005, "seed": 7}
  ],
  "containers": [
    {"type": "box", "inner_min": [-0.4, -0.4, 0], "inner_max": [0.4, 0.4, 0.6], "thickness": 0.05},
    {"type": "plane", "point": [0, 0, 0.02], "normal": [0.1, 0, 1], "material": "ice"}
  ]
}`

func loadRestart(t *testing.T, warm bool) *scene.Scene {
	t.Helper()
	sc, err := scene.Parse([]byte(restartScene), "restart.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	// Set as the CLI does, after the document: the checkpoint must carry
	// the settings, not only the document.
	sc.Settings.WarmStart = warm
	return sc
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// statsRows returns the rows of stats.csv, in step order, without the
// columns that depend on the process rather than the physics: submits
// (device round trips: a resumed run starts with fresh buffer capacities,
// so its first step pays their growth) and the wall-clock seconds (every
// column named *_s).
func statsRows(t *testing.T, path string) []string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(string(readFile(t, path))), "\n")
	var keep []int
	for i, name := range strings.Split(lines[0], ",") {
		if name != "submits" && !strings.HasSuffix(name, "_s") {
			keep = append(keep, i)
		}
	}
	var rows []string
	for _, line := range lines[1:] {
		f := strings.Split(line, ",")
		var sb strings.Builder
		for j, i := range keep {
			if j > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(f[i])
		}
		rows = append(rows, sb.String())
	}
	return rows
}

// TestRestartBitIdentical runs the scene 30 steps in one go, and 12 steps
// with a checkpoint plus a resume to 30, with warm start off and on: the
// final states must agree bit for bit (final.csv byte for byte), and the
// resumed stats and trace rows must be the unsplit run's last 18.
func TestRestartBitIdentical(t *testing.T) { testRestart(t, "cpu", engine.PrecisionDouble) }

// TestRestartBitIdenticalMixed is the same with settings.precision
// "mixed", which the checkpoint carries (format version 4).
func TestRestartBitIdenticalMixed(t *testing.T) { testRestart(t, "cpu", engine.PrecisionMixed) }

// TestRestartBitIdenticalVulkan is the same on the Vulkan backend, which
// saves and restores its state and warm-start memory through the same
// interfaces; it skips where there is no Vulkan device.
func TestRestartBitIdenticalVulkan(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: four runs on the Vulkan backend take a minute on lavapipe")
	}
	be, _, err := NewBackend("vulkan", "", false, 0)
	if errors.Is(err, engine.ErrUnavailable) {
		t.Skipf("no Vulkan backend: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	be.Close()
	testRestart(t, "vulkan", engine.PrecisionDouble)
}

func testRestart(t *testing.T, backend, precision string) {
	load := func(warm bool) *scene.Scene {
		sc := loadRestart(t, warm)
		sc.Settings.Precision = precision
		return sc
	}
	const n, k = 30, 12
	for _, warm := range []bool{false, true} {
		dir := t.TempDir()
		full, split, resumed := filepath.Join(dir, "full"), filepath.Join(dir, "split"), filepath.Join(dir, "resumed")
		sum, err := Run(context.Background(), load(warm), Options{Backend: backend, OutDir: full})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Final.Contacts < 10 {
			t.Fatalf("warm %v: %d contacts at the end: the scene does not test persistent contacts", warm, sum.Final.Contacts)
		}
		sc := load(warm)
		sc.Steps = k
		sum, err = Run(context.Background(), sc, Options{Backend: backend, OutDir: split, CheckpointEvery: k})
		if err != nil {
			t.Fatal(err)
		}
		ckPath := filepath.Join(split, "checkpoints", checkpoint.FileName(k))
		if sum.Checkpoint != ckPath {
			t.Fatalf("summary names checkpoint %q, want %q", sum.Checkpoint, ckPath)
		}
		rsc, ck, err := Resume(ckPath)
		if err != nil {
			t.Fatal(err)
		}
		if ck.Step != k || rsc.Settings != sc.Settings || (ck.Warm != nil) != warm {
			t.Fatalf("checkpoint: step %d, settings %+v, warm data %v; want %d, %+v, %v", ck.Step, rsc.Settings, ck.Warm != nil, k, sc.Settings, warm)
		}
		rsc.Steps = n // --steps counts from the start of the run
		sum, err = Run(context.Background(), rsc, Options{Backend: backend, OutDir: resumed, Resume: ck})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Steps != n || sum.ResumedFrom != k {
			t.Errorf("resumed summary: steps %d, resumed from %d; want %d, %d", sum.Steps, sum.ResumedFrom, n, k)
		}
		want, got := readFile(t, filepath.Join(full, "final.csv")), readFile(t, filepath.Join(resumed, "final.csv"))
		if !bytes.Equal(got, want) {
			t.Errorf("warm %v: final.csv of the resumed run differs from the unsplit run's:\n%s\nwant\n%s", warm, got, want)
		}
		fullStats, resStats := statsRows(t, filepath.Join(full, "stats.csv")), statsRows(t, filepath.Join(resumed, "stats.csv"))
		if strings.Join(resStats, "\n") != strings.Join(fullStats[k:], "\n") {
			t.Errorf("warm %v: resumed stats.csv rows differ from steps %d…%d of the unsplit run", warm, k+1, n)
		}
		fullTrace := strings.SplitN(string(readFile(t, filepath.Join(full, "trace.csv"))), "\n", 2*k+2)
		resTrace := strings.SplitN(string(readFile(t, filepath.Join(resumed, "trace.csv"))), "\n", 2)
		if resTrace[1] != fullTrace[2*k+1] {
			t.Errorf("warm %v: resumed trace.csv differs from the unsplit run's steps after %d", warm, k)
		}
		if warm {
			// The comparison can fail: without the warm-start data the
			// first resumed solve starts from zero and the run drifts.
			rsc, ck, err := Resume(ckPath)
			if err != nil {
				t.Fatal(err)
			}
			rsc.Steps = n
			ck.Warm = nil
			var notices []string
			cold := filepath.Join(dir, "cold")
			if _, err := Run(context.Background(), rsc, Options{Backend: backend, OutDir: cold, Resume: ck,
				Notice: func(s string) { notices = append(notices, s) }}); err != nil {
				t.Fatal(err)
			}
			if bytes.Equal(readFile(t, filepath.Join(cold, "final.csv")), want) {
				t.Error("a resume without the warm-start data ends bit-identical too: the test cannot see a lost warm start")
			}
			warnings := 0
			for _, s := range notices {
				if strings.Contains(s, "no warm-start data") {
					warnings++
				}
			}
			if warnings != 1 {
				t.Errorf("notices %q, want one about the missing warm-start data", notices)
			}
		}
	}
}

// TestInterruptWritesCheckpoint cancels the run's context from the
// Progress callback after step 9 of 30: the run stops there, writes
// final.csv, stats.csv, summary.json (interrupted at step 9) and a
// checkpoint, and resuming from that checkpoint ends where the unsplit run
// does, bit for bit.
func TestInterruptWritesCheckpoint(t *testing.T) {
	const stopAt = 9
	dir := t.TempDir()
	full, stopped, resumed := filepath.Join(dir, "full"), filepath.Join(dir, "stopped"), filepath.Join(dir, "resumed")
	if _, err := Run(context.Background(), loadRestart(t, true), Options{Backend: "cpu", OutDir: full}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sum, err := Run(ctx, loadRestart(t, true), Options{Backend: "cpu", OutDir: stopped,
		Progress: func(p Progress) {
			if p.Step == stopAt {
				cancel()
			}
		}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	ckPath := filepath.Join(stopped, "checkpoints", checkpoint.FileName(stopAt))
	if sum == nil || sum.InterruptedAt == nil || *sum.InterruptedAt != stopAt || sum.Checkpoint != ckPath {
		t.Fatalf("summary %+v: want interrupted at %d with checkpoint %s", sum, stopAt, ckPath)
	}
	var js map[string]any
	if err := json.Unmarshal(readFile(t, filepath.Join(stopped, "summary.json")), &js); err != nil {
		t.Fatal(err)
	}
	if js["interrupted_at_step"] != float64(stopAt) || js["checkpoint"] != ckPath || js["steps"] != float64(stopAt) {
		t.Errorf("summary.json: interrupted_at_step %v, checkpoint %v, steps %v", js["interrupted_at_step"], js["checkpoint"], js["steps"])
	}
	if rows := statsRows(t, filepath.Join(stopped, "stats.csv")); len(rows) != stopAt {
		t.Errorf("stats.csv has %d rows, want %d", len(rows), stopAt)
	}
	if final := strings.Count(string(readFile(t, filepath.Join(stopped, "final.csv"))), "\n"); final != 1+len(loadRestart(t, true).Model.Bodies) {
		t.Errorf("final.csv has %d lines", final)
	}
	rsc, ck, err := Resume(ckPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), rsc, Options{Backend: "cpu", OutDir: resumed, Resume: ck}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(readFile(t, filepath.Join(resumed, "final.csv")), readFile(t, filepath.Join(full, "final.csv"))) {
		t.Error("the run resumed after an interrupt does not end bit-identical to the unsplit run")
	}
}

func TestResumeRejects(t *testing.T) {
	dir := t.TempDir()
	sc := loadRestart(t, false)
	sc.Steps = 3
	sum, err := Run(context.Background(), sc, Options{Backend: "cpu", OutDir: dir, CheckpointEvery: 3})
	if err != nil {
		t.Fatal(err)
	}
	// Past the end: a resumed run's --steps counts from the start.
	rsc, ck, err := Resume(sum.Checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	rsc.Steps = 2
	if _, err := Run(context.Background(), rsc, Options{Backend: "cpu", OutDir: filepath.Join(dir, "r"), Resume: ck}); err == nil || !strings.Contains(err.Error(), "past the run's end") {
		t.Errorf("resume past the end: error %v", err)
	}
	// A scene document that builds another model.
	ck.Scene = bytes.Replace(ck.Scene, []byte(`"friction": 0.3`), []byte(`"friction": 0.31`), 1)
	bad := filepath.Join(dir, "other-model.ckpt")
	if err := checkpoint.Write(bad, ck); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Resume(bad); err == nil || !strings.Contains(err.Error(), "other than the one the run stepped") {
		t.Errorf("changed model: error %v", err)
	}
	// A corrupted file.
	data := readFile(t, sum.Checkpoint)
	data[len(data)/2] ^= 1
	if err := os.WriteFile(bad, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Resume(bad); err == nil || !strings.Contains(err.Error(), "corrupted") || !strings.Contains(err.Error(), bad) {
		t.Errorf("corrupted: error %v", err)
	}
}
