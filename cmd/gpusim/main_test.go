package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpusim/gpusim/gpu"
	"github.com/gpusim/gpusim/internal/testfile"
)

// wantUsage runs gpusim with args and fails the test (naming the case
// as name) unless it exits with the usage status and its stderr contains
// want.
func wantUsage(t *testing.T, name, args []string, want string) {
	t.Helper()
	code, _, stderr := runCLI(t, args...)
	if code != exitUsage {
		t.Errorf("%v: exit %d, want %d (stderr %q)", name, code, exitUsage, stderr)
	}
	if !strings.Contains(stderr, want) {
		t.Errorf("%v: stderr %q does not mention %q", name, stderr, want)
	}
}

// TestMain lets the test binary stand in for gpusim where the CLI runs
// itself (os.Executable): gpusim bench runs each case as "gpusim
// bench-case" in a process of its own, which from an in-process test is
// this binary; without this it would run the tests again, which run the
// bench again.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "bench-case" {
		os.Exit(cli(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = cli(args, &o, &e)
	return code, o.String(), e.String()
}

// runOK runs the CLI with args, fails the test unless it exits with
// exitOK (naming the command and its stderr) and returns its stdout.
func runOK(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := runCLI(t, args...)
	if code != exitOK {
		t.Fatalf("gpusim %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	return stdout
}

func TestScenesLists(t *testing.T) {
	code, out, _ := runCLI(t, "scenes")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, name := range []string{"rolling-ball", "fill", "pressure", "settle"} {
		if !strings.Contains(out, name) {
			t.Errorf("gpusim scenes does not list %s:\n%s", name, out)
		}
	}
}

func TestRunWritesOutputs(t *testing.T) {
	dir := t.TempDir()
	out := runOK(t, "run", "rolling-ball", "--steps", "20", "--trace", "0,1", "--out", dir, "--backend", "cpu")
	if !strings.Contains(out, "rolling-ball") {
		t.Errorf("summary does not name the scene:\n%s", out)
	}
	stats := testfile.CSV(t, filepath.Join(dir, "stats.csv"))
	wantStats := "step,time,bodies,contacts,iterations,residual,objective,fixed_fx,fixed_fy,fixed_fz,submits,collide_s,solve_s,step_s,build_s,integrate_s"
	if strings.Join(stats[0], ",") != wantStats || len(stats) != 21 {
		t.Errorf("stats.csv: header %v, %d rows; want %s and 20 rows", stats[0], len(stats)-1, wantStats)
	}
	trace := testfile.CSV(t, filepath.Join(dir, "trace.csv"))
	if len(trace) != 41 || len(trace[0]) != 16 || trace[0][0] != "step" || trace[0][15] != "wz" {
		t.Errorf("trace.csv: %d rows, header %v", len(trace)-1, trace[0])
	}
	final := testfile.CSV(t, filepath.Join(dir, "final.csv"))
	if len(final) != 3 || len(final[0]) != 14 || final[0][0] != "id" {
		t.Errorf("final.csv: %d rows, header %v", len(final)-1, final[0])
	}
	var sum map[string]any
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &sum); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"scene", "settings", "steps", "wall_s", "final", "scene_doc"} {
		if _, ok := sum[k]; !ok {
			t.Errorf("summary.json lacks %q", k)
		}
	}
	if sum["steps"].(float64) != 20 {
		t.Errorf("summary.json steps = %v, want 20", sum["steps"])
	}
	// The atomically written outputs are ordinary files, readable by the
	// group and others: they come from a temporary file, which
	// os.CreateTemp makes 0600, and atomicfile sets 0644 whatever the
	// umask (stats.csv and trace.csv are created with the umask's mode).
	for _, f := range []string{"final.csv", "summary.json"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v (%v), want -rw-r--r--", f, fi.Mode().Perm(), err)
		}
	}
}

// TestRunMemProfile: --memprofile writes a heap profile (gzipped pprof)
// whose allocation sites include the CPU path's solver arrays
// (cpuref.resizeF) and the collider's contacts. That it is taken while the
// engine is alive is run.Options.AtEnd's contract (before the backend is
// closed); this test does not decode the in-use counts.
func TestRunMemProfile(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "heap.prof")
	runOK(t, "run", "settle", "--set", "n=200", "--steps", "3", "--out", filepath.Join(dir, "out"), "--backend", "cpu", "--quiet", "--memprofile", prof)
	data := testfile.Gunzip(t, prof)
	for _, fn := range []string{"cpuref.resizeF", "collide.(*Collider).appendContacts", "inuse_space"} {
		if !bytes.Contains(data, []byte(fn)) {
			t.Errorf("the heap profile does not name %s", fn)
		}
	}
}

func TestRunBadInput(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run"}, "one scene"},
		{[]string{"run", "no-such-scene"}, "no-such-scene"},
		{[]string{"run", "rolling-ball", "--trace", "7"}, "out of range"},
		{[]string{"run", "rolling-ball", "--trace", "x"}, "not a body id"},
		{[]string{"run", "rolling-ball", "--dt", "-1"}, "dt"},
		{[]string{"run", "rolling-ball", "--solver", "nope"}, "unknown solver"},
		{[]string{"run", "rolling-ball", "--set", "nosuchkey=1"}, "nosuchkey"},
		{[]string{"run", "rolling-ball", "--set", "v0"}, "="},
		{[]string{"run", "rolling-ball", "--steps", "0"}, "--steps"},
		{[]string{"run", "rolling-ball", "--bogus"}, "bogus"},
		{[]string{"run", "rolling-ball", "--backend", "warp"}, "unknown backend"},
		{[]string{"frobnicate"}, "unknown command"},
	}
	for _, c := range cases {
		args := append(append([]string{}, c.args...), "--out", dir)
		if c.args[0] != "run" {
			args = c.args
		}
		wantUsage(t, c.args, args, c.want)
	}
}

// TestRunVulkanWithValidation runs a short scene on the Vulkan backend with
// the validation layers on: any validation error fails the run.
func TestRunVulkanWithValidation(t *testing.T) {
	if _, err := gpu.Devices(); err != nil {
		if os.Getenv("GPUSIM_REQUIRE_VULKAN") == "1" {
			t.Fatalf("GPUSIM_REQUIRE_VULKAN=1 but no Vulkan: %v", err)
		}
		t.Skipf("no Vulkan device: %v", err)
	}
	dir := t.TempDir()
	runOK(t, "run", "rolling-ball", "--backend", "vulkan", "--vk-validation", "--steps", "10", "--out", dir, "--quiet")
	stats := testfile.CSV(t, filepath.Join(dir, "stats.csv"))
	if len(stats) != 11 {
		t.Fatalf("stats.csv has %d rows, want 10", len(stats)-1)
	}
	// The Vulkan path reports its round trips; the CPU path reports 0.
	if stats[1][10] == "0" {
		t.Errorf("submits column is 0 on the Vulkan backend: %v", stats[1])
	}
}
