package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/internal/outdir"
	"github.com/gpusim/gpusim/internal/testfile"
	"github.com/gpusim/gpusim/sweep"
)

// sweepSpec is 4 runs of settle (30 spheres, 5 steps, CPU path): two
// frictions by two seeds.
const sweepSpec = `{"name": "tiny", "scene": "settle", "base": ["n=30", "run.steps=5"],
 "vary": {"materials.0.friction": [0.2, 0.5], "generators.0.seed": {"range": [1, 2]}}, "backend": "cpu"}`

func writeSpec(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func runDirs(t *testing.T, dir string) []string {
	t.Helper()
	es, _ := os.ReadDir(filepath.Join(dir, "runs"))
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestSweepCLIRunsCollectsAndResumes(t *testing.T) {
	spec := writeSpec(t, sweepSpec)
	out := filepath.Join(t.TempDir(), "sw")
	code, stdout, stderr := runCLI(t, "sweep", spec, "--out", out, "--jobs", "2")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "4 runs complete") || strings.Count(stderr, "run done") != 4 {
		t.Errorf("stdout %q, stderr %q", stdout, stderr)
	}
	code, _, stderr = runCLI(t, "sweep", spec, "--out", out)
	if code != exitOK || strings.Contains(stderr, "run started") || !strings.Contains(stderr, "complete=4") {
		t.Errorf("second sweep: exit %d, stderr %q; want every run skipped", code, stderr)
	}
	code, stdout, stderr = runCLI(t, "collect", out, "--x", "materials.0.friction", "--y", "mean_height_m")
	if code != exitOK {
		t.Fatalf("collect: exit %d: %s", code, stderr)
	}
	rows := testfile.CSV(t, filepath.Join(out, "collect.csv"))
	if len(rows) != 5 || rows[0][1] != "materials.0.friction" || rows[4][3] != "done" {
		t.Errorf("collect.csv: %v", rows)
	}
	png := filepath.Join(out, "collect-mean_height_m-vs-materials.0.friction.png")
	if _, err := os.Stat(png); err != nil || !strings.Contains(stdout, png) || !strings.Contains(stdout, "4 runs (4 done)") {
		t.Errorf("collect stdout %q; plot: %v", stdout, err)
	}
	changed := writeSpec(t, strings.Replace(sweepSpec, "[0.2, 0.5]", "[0.3, 0.5]", 1))
	code, _, stderr = runCLI(t, "sweep", changed, "--out", out)
	if code != exitUsage || !strings.Contains(stderr, "the spec changed") {
		t.Errorf("changed spec into the same folder: exit %d, %s", code, stderr)
	}
}

// --index and --index-from-env run exactly one run: only its folder
// appears; the manifest lists all.
func TestSweepCLIIndex(t *testing.T) {
	spec := writeSpec(t, sweepSpec)
	for _, c := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--index", "1"}, nil, "0001"},
		{[]string{"--index-from-env"}, map[string]string{"SLURM_ARRAY_TASK_ID": "2"}, "0002"},
		{[]string{"--index-from-env"}, map[string]string{"JOB_COMPLETION_INDEX": "3"}, "0003"},
	} {
		out := filepath.Join(t.TempDir(), "sw")
		var o, e bytes.Buffer
		err := sweepCLI(append([]string{spec, "--out", out}, c.args...), &o, &e, func(k string) string { return c.env[k] })
		if err != nil {
			t.Errorf("%v %v: %v", c.args, c.env, err)
			continue
		}
		if got := runDirs(t, out); !reflect.DeepEqual(got, []string{c.want}) {
			t.Errorf("%v %v: run folders %v, want [%s]", c.args, c.env, got, c.want)
		}
		if _, err := os.Stat(filepath.Join(out, "manifest.json")); err != nil {
			t.Error(err)
		}
	}
	for _, c := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--index", "4"}, nil, "run index 4 out of range"},
		{[]string{"--index-from-env"}, nil, "neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX is set"},
		{[]string{"--index-from-env"}, map[string]string{"SLURM_ARRAY_TASK_ID": "1a"}, "SLURM_ARRAY_TASK_ID"},
		{[]string{"--index", "1", "--index-from-env"}, nil, "give one"},
	} {
		out := filepath.Join(t.TempDir(), "sw")
		var o, e bytes.Buffer
		err := sweepCLI(append([]string{spec, "--out", out}, c.args...), &o, &e, func(k string) string { return c.env[k] })
		if _, ok := err.(usageError); !ok || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %v: error %v, want a usage error with %q", c.args, c.env, err, c.want)
		}
		if got := runDirs(t, out); len(got) != 0 {
			t.Errorf("%v: run folders %v after an error", c.args, got)
		}
	}
}

func TestSweepCLIBadInput(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		{`{"scene": "settle", "vary": {"materials.0.frictoin": [0.2]}}`, "run 0"},
		{`{"scene": "nosuch", "vary": {"n": [1]}}`, `"nosuch" is neither`},
		{`{"scene": "settle", "mode": "zip", "vary": {"n": [1, 2], "mu": [1]}}`, "zip mode needs equal lengths"},
	} {
		out := filepath.Join(t.TempDir(), "sw")
		code, _, stderr := runCLI(t, "sweep", writeSpec(t, c.spec), "--out", out)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, %s", c.spec, code, stderr)
		}
		if _, err := os.Stat(filepath.Join(out, "manifest.json")); err == nil {
			t.Errorf("%s: a manifest was written for a bad spec", c.spec)
		}
	}
	code, _, stderr := runCLI(t, "sweep", writeSpec(t, sweepSpec), "--jobs", "0")
	if code != exitUsage || !strings.Contains(stderr, "--jobs 0") {
		t.Errorf("--jobs 0: exit %d, %s", code, stderr)
	}
	code, _, stderr = runCLI(t, "collect", t.TempDir())
	if code != exitUsage || !strings.Contains(stderr, "not a sweep folder") {
		t.Errorf("collect of an empty folder: exit %d, %s", code, stderr)
	}
}

// --list writes the manifest and prints a line per run without running.
func TestSweepCLIList(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sw")
	stdout := runOK(t, "sweep", writeSpec(t, sweepSpec), "--out", out, "--list")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	want := "3\truns/0003\tn=30 run.steps=5 materials.0.friction=0.5 generators.0.seed=2"
	if len(lines) != 4 || lines[3] != want {
		t.Errorf("--list printed %q; want 4 lines ending %q", stdout, want)
	}
	if got := runDirs(t, out); len(got) != 0 {
		t.Errorf("--list ran %v", got)
	}
}

// A run that fails does not stop the others; the exit status is 1 and the
// error names the failed run.
func TestSweepCLIFailedRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "sw")
	spec := writeSpec(t, `{"scene": "rolling-ball", "base": ["run.steps=3"], "backend": "cpu",
		"vary": {"bodies.0.pos": [[0, 0, 1], [0, 0, 0.5]]}}`)
	code, _, stderr := runCLI(t, "sweep", spec, "--out", out)
	if code != exitFailure || !strings.Contains(stderr, "1 of 2 runs failed: [1]") {
		t.Errorf("exit %d, stderr %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "runs", "0000", "DONE")); err != nil {
		t.Errorf("run 0 did not complete: %v", err)
	}
}

// A malformed CUDA_VISIBLE_DEVICES (a scheduler's GPU assignment) stops a
// sweep that may use Vulkan before any run starts, with exit status 2 and
// the variable named; a run says so too. The CPU backend ignores it.
func TestSweepCLIBadCUDAVisible(t *testing.T) {
	t.Setenv("CUDA_VISIBLE_DEVICES", "gpu0")
	spec := writeSpec(t, strings.Replace(sweepSpec, `"backend": "cpu"`, `"backend": "auto"`, 1))
	out := filepath.Join(t.TempDir(), "sw")
	code, _, stderr := runCLI(t, "sweep", spec, "--out", out)
	if code != exitUsage || !strings.Contains(stderr, `CUDA_VISIBLE_DEVICES="gpu0"`) || len(runDirs(t, out)) != 0 {
		t.Errorf("sweep: exit %d, runs %v, stderr %q; want exit %d naming the variable and no run", code, runDirs(t, out), stderr, exitUsage)
	}
	code, _, stderr = runCLI(t, "run", "rolling-ball", "--steps", "1", "--out", t.TempDir(), "--quiet")
	if code != exitUsage || !strings.Contains(stderr, "neither an index nor a GPU UUID") {
		t.Errorf("run: exit %d, stderr %q; want exit %d naming the entry", code, stderr, exitUsage)
	}
	code, _, stderr = runCLI(t, "sweep", writeSpec(t, sweepSpec), "--out", filepath.Join(t.TempDir(), "cpu"))
	if code != exitOK {
		t.Errorf("backend cpu: exit %d, %s", code, stderr)
	}
}

// collect --log: x, y or xy with --x and --y; anything else is exit 2.
func TestCollectCLILog(t *testing.T) {
	spec := writeSpec(t, sweepSpec)
	out := filepath.Join(t.TempDir(), "sw")
	if code, _, stderr := runCLI(t, "sweep", spec, "--out", out); code != exitOK {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	if code, stdout, stderr := runCLI(t, "collect", out, "--x", "materials.0.friction", "--y", "max_speed_m_s", "--log", "xy"); code != exitOK || !strings.Contains(stdout, ".png") {
		t.Errorf("--log xy: exit %d, %s %s", code, stdout, stderr)
	}
	for _, args := range [][]string{
		{"--x", "materials.0.friction", "--y", "max_speed_m_s", "--log", "z"},
		{"--log", "x"},
		{"--x", "materials.0.friction", "--y", "fixed_force_z_N", "--log", "y"}, // negative values
	} {
		if code, _, stderr := runCLI(t, append([]string{"collect", out}, args...)...); code != exitUsage || !strings.Contains(stderr, "log") {
			t.Errorf("collect %v: exit %d, %s; want %d", args, code, stderr, exitUsage)
		}
	}
}

// TestSweepFolderLocks: a whole sweep holds its folder alone, single runs
// (--index, a scheduler's array tasks) share it, each holding its run's
// folder. Here this process holds the locks as the other gpusim would.
// Before, a second sweep on one folder ran the same runs at once, each
// removing the folders of runs the other was writing.
func TestSweepFolderLocks(t *testing.T) {
	spec := writeSpec(t, sweepSpec)
	out := filepath.Join(t.TempDir(), "sw")
	whole, err := outdir.Acquire(out, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	pid := fmt.Sprintf("pid %d on host", os.Getpid())
	for _, args := range [][]string{{"sweep", spec, "--out", out}, {"sweep", spec, "--out", out, "--index", "1"}} {
		code, _, stderr := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(stderr, out+" is in use by another gpusim process ("+pid) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v while a sweep holds the folder: exit %d, stderr %q; want exit 2 naming %s", args, code, stderr, pid)
		}
	}
	if names := runDirs(t, out); len(names) != 0 {
		t.Errorf("run folders %v made while the folder was held", names)
	}
	whole.Release()

	// An array task running run 0 holds the sweep folder shared and run
	// 0's folder: run 1 goes ahead, run 0 and a whole sweep are refused.
	task, err := outdir.Acquire(out, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	run0, err := outdir.Acquire(filepath.Join(out, "runs", "0000"), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "sweep", spec, "--out", out, "--index", "1"); code != exitOK {
		t.Errorf("--index 1 beside a task on run 0: exit %d: %s", code, stderr)
	}
	code, _, stderr := runCLI(t, "sweep", spec, "--out", out, "--index", "0")
	if code != exitUsage || !strings.Contains(stderr, filepath.Join(out, "runs", "0000")+" is in use by another gpusim process ("+pid) {
		t.Errorf("--index 0 while its folder is held: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "runs", "0000", sweep.FailedFile)); !os.IsNotExist(err) {
		t.Errorf("FAILED marker in the held run's folder: %v", err)
	}
	code, _, stderr = runCLI(t, "sweep", spec, "--out", out)
	if code != exitUsage || !strings.Contains(stderr, "in use by other gpusim processes (single runs of a sweep, --index)") {
		t.Errorf("whole sweep beside a task: exit %d, stderr %q", code, stderr)
	}
	run0.Release()
	task.Release()
	if code, _, stderr := runCLI(t, "sweep", spec, "--out", out); code != exitOK || !strings.Contains(stderr, "complete=1") {
		t.Errorf("whole sweep after the task: exit %d, stderr %q; want run 1 skipped, the others run", code, stderr)
	}
}
